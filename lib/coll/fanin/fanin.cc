// Fan-in: the algorithm table.
#include "lib/coll/fanin/fanin.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> fanin_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_FANIN, "knomial", "k-nomial tree to the root; log_k(n) levels",
         fanin_knomial, supports_any},
        {UCC_COLL_TYPE_FANIN, "linear", "every rank signals the root directly", fanin_linear,
         supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
