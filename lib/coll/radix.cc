// The radix a k-nomial algorithm runs with (radix.h).
#include "lib/coll/radix.h"

#include <cstring>
#include <iterator>

#include "lib/coll/coll.h"
#include "lib/coll/coll_types.h"

namespace ucc::coll {

namespace {

// The reference's tl/ucp variables, onto our algorithms (and ours for the
// dissemination barrier and Bruck's alltoall, which the reference lacks). reduce_scatterv
// knomial shares reduce_scatter's.
constexpr RadixVar kVars[] = {
    {UCC_COLL_TYPE_BARRIER, "knomial", "BARRIER_KN_RADIX", false, true},
    {UCC_COLL_TYPE_BARRIER, "dissemination", "BARRIER_DISSEMINATION_RADIX", false, false},
    {UCC_COLL_TYPE_ALLTOALL, "bruck", "ALLTOALL_BRUCK_RADIX", false, false},
    {UCC_COLL_TYPE_FANIN, "knomial", "FANIN_KN_RADIX", false, false},
    {UCC_COLL_TYPE_FANOUT, "knomial", "FANOUT_KN_RADIX", false, false},
    {UCC_COLL_TYPE_ALLREDUCE, "knomial", "ALLREDUCE_KN_RADIX", true, false},
    {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial", "ALLREDUCE_SRA_KN_RADIX", true, false},
    {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial", "REDUCE_SCATTER_KN_RADIX", false, true},
    {UCC_COLL_TYPE_ALLGATHER, "knomial", "ALLGATHER_KN_RADIX", true, false},
    {UCC_COLL_TYPE_BCAST, "knomial", "BCAST_KN_RADIX", false, true},
    {UCC_COLL_TYPE_BCAST, "sag_knomial", "BCAST_SAG_KN_RADIX", true, false},
    {UCC_COLL_TYPE_REDUCE, "knomial", "REDUCE_KN_RADIX", false, true},
    {UCC_COLL_TYPE_REDUCE, "srg", "REDUCE_SRG_KN_RADIX", true, false},
    {UCC_COLL_TYPE_GATHER, "knomial", "GATHER_KN_RADIX", false, true},
    {UCC_COLL_TYPE_SCATTER, "knomial", "SCATTER_KN_RADIX", false, true},
};
static_assert(std::size(kVars) == kRadixVars);

// The variable of `alg`, or -1.
int var_of(const Algorithm &alg) {
    const ucc_coll_type_t type =
        alg.type == UCC_COLL_TYPE_REDUCE_SCATTERV ? UCC_COLL_TYPE_REDUCE_SCATTER : alg.type;
    for (size_t i = 0; i < kRadixVars; ++i) {
        if (kVars[i].type == type && std::strcmp(kVars[i].alg, alg.name) == 0) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

}  // namespace

std::span<const RadixVar> radix_vars() {
    return kVars;
}

const RadixVar *radix_var(const Algorithm &alg) {
    const int v = var_of(alg);
    return v < 0 ? nullptr : &kVars[v];
}

uint32_t radix_for(const Algorithm &alg, const Args &a, uint32_t size) {
    if (a.radixes == nullptr) {
        return a.radix;
    }
    const int v = a.radixes->set.empty() ? -1 : var_of(alg);
    const RadixSetting *found = nullptr;
    for (const Radixes::Set &set : a.radixes->set) {
        if (static_cast<int>(set.var) == v) {
            found = &set.setting;
            break;
        }
    }
    if (found == nullptr) {
        return a.radixes->fallback;
    }
    const RadixSetting &s = *found;
    if (!s.ranges.empty()) {
        const uint64_t bytes = message_bytes(a.type, a.count, a.esize, size);
        const uint32_t mem = static_cast<uint32_t>(a.src_mem);
        for (const RadixRange &r : s.ranges) {
            if (r.lo <= bytes && bytes <= r.hi && (mem >= 32 || (r.mem_mask >> mem & 1u) != 0)) {
                return r.value != 0 ? r.value : a.radixes->fallback;
            }
        }
    }
    return s.value != 0 ? s.value : a.radixes->fallback;
}

}  // namespace ucc::coll
