// Alltoallv: the algorithm table.
#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

namespace {

// With UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS the dst displacements are
// offsets in the peers' buffers: only the one-sided algorithm reads them so.
bool alltoallv_two_sided(const Args &a, uint32_t) {
    return !a.mapped;
}

}  // namespace

std::span<const Algorithm> alltoallv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLTOALLV, "pairwise", "pairwise exchange of blocks of any size",
         alltoallv_pairwise, alltoallv_two_sided, alltoallv_pairwise_scratch},
        {UCC_COLL_TYPE_ALLTOALLV, "onesided",
         "puts at dst displacements in the peers' mapped buffers (MEM_MAPPED_BUFFERS)",
         alltoallv_onesided, alltoallv_onesided_supports, nullptr, true},
    };
    return kTable;
}

}  // namespace ucc::coll
