// Bcast: the algorithm table.
#include "lib/coll/bcast/bcast.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> bcast_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_BCAST, "knomial", "k-nomial tree (radix KNOMIAL_RADIX); log_k(n) levels",
         bcast_knomial, supports_any},
        {UCC_COLL_TYPE_BCAST, "onesided",
         "the root puts into every peer's mapped buffer; every rank signals every other",
         bcast_onesided, bcast_onesided_supports, nullptr, true},
        {UCC_COLL_TYPE_BCAST, "2step",
         "two levels: among node leaders from the root, then in each node (UCC_CLS with hier)",
         bcast_2step, hierarchical_supports, nullptr, false, true},
        {UCC_COLL_TYPE_BCAST, "sag_knomial",
         "scatter down a k-nomial tree, ring allgather; bandwidth-optimal for large buffers",
         bcast_sag_knomial, supports_any},
        {UCC_COLL_TYPE_BCAST, "dbt",
         "double binary tree, segments (BCAST_SEGMENT) pipelined down both trees", bcast_dbt,
         supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
