// Allgatherv: the algorithm table.
#include "lib/coll/allgatherv/allgatherv.h"
#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> allgatherv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLGATHERV, "ring", "ring over blocks of any size; n-1 rounds",
         allgatherv_ring, supports_any},
        {UCC_COLL_TYPE_ALLGATHERV, "gab",
         "two levels: gatherv in the node, allgatherv among node leaders, bcast in the node "
         "(UCC_CLS with hier)",
         allgatherv_gab, hierarchical_supports, allgatherv_gab_scratch, false, true},
    };
    return kTable;
}

}  // namespace ucc::coll
