// Which algorithms exist for each collective type.
#include "lib/coll/algorithms.h"

namespace ucc::coll {

std::span<const Algorithm> algorithms(ucc_coll_type_t type) {
    switch (type) {
        case UCC_COLL_TYPE_ALLREDUCE:
            return allreduce_algorithms();
        case UCC_COLL_TYPE_BCAST:
            return bcast_algorithms();
        case UCC_COLL_TYPE_REDUCE:
            return reduce_algorithms();
        case UCC_COLL_TYPE_BARRIER:
            return barrier_algorithms();
        case UCC_COLL_TYPE_ALLGATHER:
            return allgather_algorithms();
        case UCC_COLL_TYPE_ALLTOALL:
            return alltoall_algorithms();
        default:
            return {};
    }
}

}  // namespace ucc::coll
