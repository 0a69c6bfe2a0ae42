// libFuzzer target: the simulator's fault-plan parser (FaultPlan::parse and
// from_spec in transports/sim/faults.h) on arbitrary text, for 1 to 256
// ranks (the first byte). It must never crash or trip a sanitizer; a
// rejection says why, naming a fault; a plan it accepts names only ranks
// below the count and round-trips: the text describe() prints parses back to
// a plan that prints the same. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "transports/sim/faults.h"

namespace {

using ucc::sim::FaultPlan;

void check(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

// Every item of `items` names a rank below n.
template <class Items>
bool below(const Items &items, uint32_t n) {
    for (const auto &item : items) {
        if (item.rank >= n) {
            return false;
        }
    }
    return true;
}

bool ranks_below(const FaultPlan &p, uint32_t n) {
    return below(p.crashes, n) && below(p.stalls, n) && below(p.nomem, n) && below(p.oob, n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) {
        return 0;
    }
    const uint32_t n = 1u + data[0];
    const std::string spec(reinterpret_cast<const char *>(data) + 1, size - 1);
    uint64_t seed = 0;
    for (size_t i = 1; i < size && i < 9; ++i) {
        seed = seed << 8 | data[i];
    }
    FaultPlan plan;
    std::string error;
    if (!FaultPlan::from_spec(spec, n, seed, &plan, &error)) {
        check(error.find("fault") != std::string::npos);
        return 0;
    }
    check(ranks_below(plan, n));
    check(plan.empty() == plan.describe().empty());
    const std::string printed = plan.describe();
    FaultPlan back;
    check(FaultPlan::parse(printed, n, &back, &error));
    check(back.describe() == printed);
    check(back.fails_calls() == plan.fails_calls());
    return 0;
}
