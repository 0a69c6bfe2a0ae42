// Allgather: the algorithm table.
#include "lib/coll/allgather/allgather.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> allgather_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLGATHER, "bruck", "Bruck; ceil(log2 n) rounds, n*B scratch",
         allgather_bruck, supports_any, allgather_bruck_scratch},
        {UCC_COLL_TYPE_ALLGATHER, "ring", "ring; n-1 rounds, bandwidth-optimal", allgather_ring,
         supports_any},
        {UCC_COLL_TYPE_ALLGATHER, "onesided",
         "puts into every peer's mapped dst, completion counted in the global work buffer",
         allgather_onesided, allgather_onesided_supports, nullptr, true},
        {UCC_COLL_TYPE_ALLGATHER, "gab",
         "two levels: gather in the node, allgather among node leaders, bcast in the node "
         "(UCC_CLS with hier)",
         allgather_gab, hierarchical_supports, allgather_gab_scratch, false, true},
        {UCC_COLL_TYPE_ALLGATHER, "neighbor",
         "neighbour exchange; n/2 rounds of two blocks (odd team sizes: the ring)",
         allgather_neighbor, supports_any},
        {UCC_COLL_TYPE_ALLGATHER, "knomial",
         "recursive multiplying with radix k; log_k n rounds of k-1 messages", allgather_knomial,
         supports_any, allgather_knomial_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
