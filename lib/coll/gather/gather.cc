// Gather: the algorithm table.
#include "lib/coll/gather/gather.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> gather_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_GATHER, "knomial", "k-nomial tree of contiguous subtrees; log_k(n) levels",
         gather_knomial, supports_any, gather_knomial_scratch},
        {UCC_COLL_TYPE_GATHER, "linear", "every rank sends to the root directly", gather_linear,
         supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
