// Alltoallv: the algorithm table.
#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> alltoallv_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_ALLTOALLV, "pairwise", "pairwise exchange of blocks of any size",
         alltoallv_pairwise, supports_any, alltoallv_pairwise_scratch},
    };
    return kTable;
}

}  // namespace ucc::coll
