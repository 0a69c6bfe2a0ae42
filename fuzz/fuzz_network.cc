// libFuzzer target: the simulator's network-model parser (parse_network in
// lib/net/network_model.h) on arbitrary text. It must never crash or trip a
// sanitizer; a rejection leaves the model unchanged and says why; and a model
// it accepts round-trips, as the header promises of describe(): the spec
// string describe() prints parses back to the same model, field for field,
// and prints the same again. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/net/network_model.h"

namespace {

using ucc::net::NetworkModel;

void check(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

bool same(const NetworkModel &a, const NetworkModel &b) {
    return a.preset == b.preset && a.ranks_per_node == b.ranks_per_node &&
           a.lat_intra_ps == b.lat_intra_ps && a.lat_inter_ps == b.lat_inter_ps &&
           a.bw_intra_bps == b.bw_intra_bps && a.bw_inter_bps == b.bw_inter_bps &&
           a.o_send_ps == b.o_send_ps && a.o_recv_ps == b.o_recv_ps && a.gap_ps == b.gap_ps &&
           a.copy_bps == b.copy_bps && a.reduce_bps == b.reduce_bps &&
           a.jitter_max_ps == b.jitter_max_ps && a.cma_bps == b.cma_bps &&
           a.o_cma_ps == b.o_cma_ps && a.cache_bytes == b.cache_bytes &&
           a.cma_mem_bps == b.cma_mem_bps && a.copy_mem_bps == b.copy_mem_bps &&
           a.reduce_mem_bps == b.reduce_mem_bps && a.cores == b.cores && a.wake_ps == b.wake_ps;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // parse_network takes a C string: the text up to the first NUL.
    const std::string spec(reinterpret_cast<const char *>(data), size);
    NetworkModel m;
    m.preset = "untouched";
    std::string error;
    if (ucc::net::parse_network(spec.c_str(), &m, &error) != UCC_OK) {
        check(m.preset == "untouched" && !error.empty());
        return 0;
    }
    const std::string printed = m.describe();
    NetworkModel back;
    check(ucc::net::parse_network(printed.c_str(), &back, nullptr) == UCC_OK);
    check(same(m, back) && back.describe() == printed);
    // The cost functions on the extremes of what was parsed.
    for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 40, UINT64_MAX}) {
        check(m.wire_ps(0, 1u << 31, bytes) >= 0 && m.copy_ps(bytes) >= 0 &&
              m.reduce_ps(bytes) >= 0);
    }
    (void)m.latency_ps(0, UINT32_MAX);
    return 0;
}
