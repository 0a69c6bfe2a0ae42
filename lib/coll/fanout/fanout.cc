// Fan-out: the algorithm table.
#include "lib/coll/fanout/fanout.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> fanout_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_FANOUT, "knomial", "k-nomial tree from the root; log_k(n) levels",
         fanout_knomial, supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
