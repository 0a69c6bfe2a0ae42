// Gatherv: the algorithm table.
#include "lib/coll/gatherv/gatherv.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> gatherv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_GATHERV, "linear", "every rank sends its block to the root directly",
         gatherv_linear, supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
