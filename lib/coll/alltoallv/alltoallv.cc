// Alltoallv: the algorithm table.
#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

namespace {

// With UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS the dst displacements are
// offsets in the peers' buffers: only the one-sided algorithm reads them so.
bool alltoallv_two_sided(const Args &a, uint32_t) {
    return !a.mapped;
}

// The reference's hybrid runs host memory only (the rounds pack blocks in
// host scratch).
bool alltoallv_hybrid_supports(const Args &a, uint32_t) {
    return !a.mapped && a.src_mem == UCC_MEMORY_TYPE_HOST && a.dst_mem == UCC_MEMORY_TYPE_HOST;
}

bool alltoallv_node_split_supports(const Args &a, uint32_t size) {
    return !a.mapped && hierarchical_supports(a, size);
}

}  // namespace

std::span<const Algorithm> alltoallv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLTOALLV, "pairwise", "pairwise exchange of blocks of any size",
         alltoallv_pairwise, alltoallv_two_sided, alltoallv_pairwise_scratch},
        {UCC_COLL_TYPE_ALLTOALLV, "onesided",
         "puts at dst displacements in the peers' mapped buffers (MEM_MAPPED_BUFFERS)",
         alltoallv_onesided, alltoallv_onesided_supports, nullptr, true},
        {UCC_COLL_TYPE_ALLTOALLV, "node_split",
         "exchanges within the node (a flat alltoallv) and across nodes (all posted at once) "
         "concurrently (UCC_CLS with hier)",
         alltoallv_node_split, alltoallv_node_split_supports, alltoallv_node_split_scratch, false,
         true},
        {UCC_COLL_TYPE_ALLTOALLV, "hybrid",
         "small blocks in log2(n) Bruck rounds with headers of their sizes, large ones directly "
         "(ALLTOALLV_HYBRID_*)",
         alltoallv_hybrid, alltoallv_hybrid_supports, alltoallv_hybrid_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
