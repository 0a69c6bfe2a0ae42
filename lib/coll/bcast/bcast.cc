// Bcast: the algorithm table.
#include "lib/coll/bcast/bcast.h"

#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> bcast_algorithms() {
    static constexpr Algorithm kTable[] = {
        {UCC_COLL_TYPE_BCAST, "knomial", "k-nomial tree (radix KNOMIAL_RADIX); log_k(n) levels",
         bcast_knomial, supports_any},
        {UCC_COLL_TYPE_BCAST, "onesided",
         "the root puts into every peer's mapped buffer; every rank signals every other",
         bcast_onesided, bcast_onesided_supports, nullptr, true},
    };
    return kTable;
}

}  // namespace ucc::coll
