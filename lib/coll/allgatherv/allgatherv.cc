// Allgatherv: the algorithm table.
#include "lib/coll/allgatherv/allgatherv.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> allgatherv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLGATHERV, "ring", "ring over blocks of any size; n-1 rounds",
         allgatherv_ring, supports_any},
    };
    return kTable;
}

}  // namespace ucc::coll
