// Reduce: the algorithm table.
#include "lib/coll/reduce/reduce.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> reduce_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_REDUCE, "knomial", "k-nomial tree (radix KNOMIAL_RADIX); log_k(n) levels",
         reduce_knomial, supports_any, reduce_knomial_scratch},
        {UCC_COLL_TYPE_REDUCE, "2step",
         "two levels: in each node, then among node leaders into the root (UCC_CLS with hier)",
         reduce_2step, hierarchical_supports, reduce_2step_scratch, false, true},
        {UCC_COLL_TYPE_REDUCE, "dbt",
         "double binary tree, segments (REDUCE_SEGMENT) pipelined up both trees", reduce_dbt,
         supports_any, reduce_dbt_scratch},
        {UCC_COLL_TYPE_REDUCE, "srg",
         "reduce-scatter (k-nomial rounds on k^j ranks, else a ring), k-nomial gather to the "
         "root; bandwidth-optimal for large vectors",
         reduce_srg, supports_any, reduce_srg_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
