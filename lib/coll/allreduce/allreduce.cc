// Allreduce: the algorithm table.
#include "lib/coll/allreduce/allreduce.h"

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

std::span<const Algorithm> allreduce_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling",
         "recursive doubling with fold-in of extra ranks; latency-optimal for small vectors",
         allreduce_recursive_doubling, supports_any, allreduce_recursive_doubling_scratch},
        {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner",
         "recursive-halving reduce-scatter + recursive-doubling allgather; large vectors, many "
         "ranks",
         allreduce_rabenseifner, supports_any, allreduce_rabenseifner_scratch},
        {UCC_COLL_TYPE_ALLREDUCE, "ring",
         "ring reduce-scatter + ring allgather; bandwidth-optimal, latency linear in team size",
         allreduce_ring, supports_any, allreduce_ring_scratch},
        {UCC_COLL_TYPE_ALLREDUCE, "knomial",
         "recursive multiplying, k-1 partners per round (radix KNOMIAL_RADIX); log_k(n) rounds",
         allreduce_knomial, supports_any, allreduce_knomial_scratch},
        {UCC_COLL_TYPE_ALLREDUCE, "rab",
         "two levels: reduce in the node, allreduce among node leaders, bcast in the node "
         "(UCC_CLS with hier)",
         allreduce_rab, hierarchical_supports, nullptr, false, true},
        {UCC_COLL_TYPE_ALLREDUCE, "split_rail",
         "two levels: reduce-scatter in the node, an allreduce per block across nodes, allgather "
         "in the node (UCC_CLS with hier)",
         allreduce_split_rail, hierarchical_supports, nullptr, false, true},
        {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial",
         "radix-k scatter-reduce-allgather (Rabenseifner with KNOMIAL_RADIX); log_k(n) rounds "
         "each way, 2 m bytes",
         allreduce_sra_knomial, supports_any, allreduce_sra_knomial_scratch},
        {UCC_COLL_TYPE_ALLREDUCE, "sharp",
         "in the network's switches (a network that reduces, as SHARP; one rank per node, or "
         "a hierarchical algorithm's node leaders)",
         allreduce_sharp, allreduce_sharp_supports, nullptr, false, false, 30},
    };
    return kTable;
}

}  // namespace ucc::coll
