// Allreduce: the algorithm table.
#include "lib/coll/allreduce/allreduce.h"

#include "lib/coll/algorithms.h"

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
    };
    return kTable;
}

}  // namespace ucc::coll
