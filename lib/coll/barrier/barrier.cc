// Barrier: the algorithm table.
#include "lib/coll/barrier/barrier.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> barrier_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_BARRIER, "dissemination",
         "k-ary dissemination, k-1 partners a round (radix BARRIER_DISSEMINATION_RADIX); "
         "ceil(log_k n) rounds",
         barrier_dissemination, supports_any},
        {UCC_COLL_TYPE_BARRIER, "knomial",
         "k-nomial fan-in + fan-out (radix KNOMIAL_RADIX); fewest messages", barrier_knomial,
         supports_any},
        {UCC_COLL_TYPE_BARRIER, "hier",
         "two levels: fan-in in the node, barrier among node leaders, fan-out (UCC_CLS with hier)",
         barrier_hier, hierarchical_supports, nullptr, false, true},
    };
    return kTable;
}

}  // namespace ucc::coll
