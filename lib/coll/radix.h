// The radix a k-nomial algorithm runs with: the reference's per-algorithm
// variables (tl/ucp's <COLL>_KN_RADIX, <COLL>_SRA/SAG/SRG_KN_RADIX; the
// ranged ones by message size and memory type), KN_RADIX over the plain
// ones as the reference's, and KNOMIAL_RADIX where none is set ("auto").
// Where KNOMIAL_RADIX is auto too (its default), the radix is the one the
// cost formulas predict cheapest on the team's network (cost::radix_for),
// kDefaultRadix where no network is known. The core resolves it once an
// algorithm is chosen (Args::radix), and the cost formulas predict with it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc::coll {

struct Algorithm;
struct Args;

// A radix left to the library (KNOMIAL_RADIX auto), and what it becomes
// where no network is known.
constexpr uint32_t kRadixAuto = 0;
constexpr uint32_t kDefaultRadix = 4;

// One variable: the algorithm it sets, and its kind.
struct RadixVar {
    ucc_coll_type_t type;
    const char *alg;  // our algorithm's name
    const char *var;  // the variable, without prefix: "BCAST_KN_RADIX"
    // UINT_RANGED in the reference (ranges of bytes and memory types);
    // else a plain number.
    bool ranged;
    // KN_RADIX, when positive, replaces it (the plain ones but fanin's and
    // fanout's, as the reference's).
    bool kn;
};
std::span<const RadixVar> radix_vars();
constexpr size_t kRadixVars = 15;

// A ranged value's range: bytes lo..hi (both included, as the
// reference's), the memory types (bit per ucc_memory_type_t).
struct RadixRange {
    uint64_t lo = 0;
    uint64_t hi = UINT64_MAX;
    uint32_t mem_mask = ~0u;
    uint32_t value = 0;
    bool operator==(const RadixRange &) const = default;
};

// One variable's value. 0: auto.
struct RadixSetting {
    std::vector<RadixRange> ranges;  // the first that holds decides
    uint32_t value = 0;              // where none holds
    bool operator==(const RadixSetting &) const = default;
};

// A context's radixes: the variables set (radix_vars() index; few or none:
// a simulated rank keeps nothing else), and KNOMIAL_RADIX for the rest.
struct Radixes {
    struct Set {
        uint32_t var = 0;
        RadixSetting setting;
        bool operator==(const Set &) const = default;
    };
    uint32_t fallback = kRadixAuto;  // KNOMIAL_RADIX
    std::vector<Set> set;
    bool operator==(const Radixes &) const = default;
};

// The variable that sets `alg`'s radix; nullptr: none (it takes
// KNOMIAL_RADIX, or reads no radix).
const RadixVar *radix_var(const Algorithm &alg);

// The radix `alg` runs `a` with on `size` ranks: the setting of its
// variable for a's bytes (count x element size, times the team size where
// count is a per-rank block) and memory type, else KNOMIAL_RADIX;
// kRadixAuto where that is auto too (the caller chooses: cost::radix_for).
// a.radixes null: a.radix.
uint32_t radix_for(const Algorithm &alg, const Args &a, uint32_t size);

// Whether `alg` reads a radix (has a radix variable).
inline bool reads_radix(const Algorithm &alg) {
    return radix_var(alg) != nullptr;
}

}  // namespace ucc::coll
