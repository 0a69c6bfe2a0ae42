// Reduce: the algorithm table.
#include "lib/coll/reduce/reduce.h"

#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> reduce_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_REDUCE, "knomial", "k-nomial tree (radix KNOMIAL_RADIX); log_k(n) levels",
         reduce_knomial, supports_any, reduce_knomial_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
