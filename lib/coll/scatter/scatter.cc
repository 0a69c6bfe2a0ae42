// Scatter: the algorithm table.
#include "lib/coll/scatter/scatter.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> scatter_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_SCATTER, "knomial", "k-nomial tree of contiguous subtrees; log_k(n) levels",
         scatter_knomial, supports_any, scatter_knomial_scratch},
        {UCC_COLL_TYPE_SCATTER, "linear", "the root sends to every rank directly", scatter_linear,
         supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
