// Alltoall: the algorithm table.
#include "lib/coll/alltoall/alltoall.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> alltoall_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLTOALL, "pairwise", "pairwise exchange; n-1 rounds, one peer per round",
         alltoall_pairwise, supports_any, alltoall_inplace_scratch},
        {UCC_COLL_TYPE_ALLTOALL, "linear", "all exchanges posted at once; small teams",
         alltoall_linear, supports_any, alltoall_inplace_scratch},
        {UCC_COLL_TYPE_ALLTOALL, "bruck",
         "Bruck in base k (radix ALLTOALL_BRUCK_RADIX); ceil(log_k n) rounds of k-1 messages: "
         "small blocks on many ranks",
         alltoall_bruck, supports_any, alltoall_bruck_scratch},
        {UCC_COLL_TYPE_ALLTOALL, "onesided",
         "puts into the peers' mapped dst, completion counted in the global work buffer",
         alltoall_onesided, alltoall_onesided_supports, nullptr, true},
        {UCC_COLL_TYPE_ALLTOALL, "node_split",
         "exchanges within the node (a flat alltoallv) and across nodes (all posted at once) "
         "concurrently (UCC_CLS with hier)",
         alltoall_node_split, hierarchical_supports, alltoall_node_split_scratch, false, true},
    };
    return kTable;
}

}  // namespace ucc::coll
