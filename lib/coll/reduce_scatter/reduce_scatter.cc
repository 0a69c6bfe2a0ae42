// Reduce-scatter and reduce-scatterv: the algorithm tables.
#include "lib/coll/reduce_scatter/reduce_scatter.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> reduce_scatter_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_REDUCE_SCATTER, "ring", "ring; n-1 rounds, bandwidth-optimal",
         reduce_scatter_ring, supports_any, reduce_scatter_ring_scratch},
        {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial",
         "radix-k scatter-reduce; log_k n rounds, a scratch copy of the input",
         reduce_scatter_knomial, supports_any, reduce_scatter_knomial_scratch},
    };
    return kTable;
}

std::span<const Algorithm> reduce_scatterv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_REDUCE_SCATTERV, "ring", "ring over blocks of any size; n-1 rounds",
         reduce_scatterv_ring, supports_any, reduce_scatterv_ring_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
