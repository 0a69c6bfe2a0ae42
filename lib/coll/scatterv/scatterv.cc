// Scatterv: the algorithm table.
#include "lib/coll/scatterv/scatterv.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> scatterv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_SCATTERV, "linear", "the root sends every rank its block directly",
         scatterv_linear, supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
