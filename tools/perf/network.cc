// The tools' network argument (network.h): the library resolves it
// (ucc_sim_network_resolve, lib/net/network_arg.h) and describes it.
#include "tools/perf/network.h"

#include "ucc/sim/ucc_sim.h"

namespace ucc::perf {

namespace {

constexpr size_t kSpecBytes = 4096;

}  // namespace

bool resolve_network(const std::string &arg, NetworkArg *out, std::string *error) {
    *out = NetworkArg{};
    char buf[kSpecBytes];
    uint64_t slots = 0;
    ucc_status_t st = ucc_sim_network_resolve(arg.c_str(), buf, sizeof(buf), &slots);
    if (st != UCC_OK) {
        *error = st == UCC_ERR_NO_RESOURCE ? arg + ": the network's spec is too long" : buf;
        return false;
    }
    out->spec = buf;
    out->slots = slots;
    st = ucc_sim_network_describe(out->spec.c_str(), buf, sizeof(buf));
    out->described = buf;
    if (st != UCC_OK) {
        *error = out->described;
        return false;
    }
    return true;
}

}  // namespace ucc::perf
