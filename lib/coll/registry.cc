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
        case UCC_COLL_TYPE_ALLGATHERV:
            return allgatherv_algorithms();
        case UCC_COLL_TYPE_ALLTOALLV:
            return alltoallv_algorithms();
        case UCC_COLL_TYPE_FANIN:
            return fanin_algorithms();
        case UCC_COLL_TYPE_FANOUT:
            return fanout_algorithms();
        case UCC_COLL_TYPE_GATHER:
            return gather_algorithms();
        case UCC_COLL_TYPE_GATHERV:
            return gatherv_algorithms();
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            return reduce_scatter_algorithms();
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return reduce_scatterv_algorithms();
        case UCC_COLL_TYPE_SCATTER:
            return scatter_algorithms();
        case UCC_COLL_TYPE_SCATTERV:
            return scatterv_algorithms();
        default:
            return {};
    }
}

}  // namespace ucc::coll
