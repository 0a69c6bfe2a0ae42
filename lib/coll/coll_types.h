// What each collective type reads and moves: the library's one list of these
// properties (validation, signatures, the consistency check and the trace all
// ask here). The types are the one-bit values of ucc_coll_type_t.
#pragma once

#include "ucc/api/ucc.h"

namespace ucc::coll {

// Has a root: args.root is read for these types only.
constexpr bool is_rooted(ucc_coll_type_t t) {
    switch (t) {
        case UCC_COLL_TYPE_BCAST:
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
        case UCC_COLL_TYPE_FANIN:
        case UCC_COLL_TYPE_FANOUT:
            return true;
        default:
            return false;
    }
}

// Reduces: args.op is read for these types only.
constexpr bool is_reduction(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLREDUCE || t == UCC_COLL_TYPE_REDUCE ||
           t == UCC_COLL_TYPE_REDUCE_SCATTER || t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

// Takes per-rank counts (and displacements) instead of one count.
constexpr bool is_v(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLGATHERV || t == UCC_COLL_TYPE_ALLTOALLV ||
           t == UCC_COLL_TYPE_GATHERV || t == UCC_COLL_TYPE_SCATTERV ||
           t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

// Moves user data (has buffers and a datatype): all but the synchronisations.
constexpr bool moves_data(ucc_coll_type_t t) {
    return t != UCC_COLL_TYPE_BARRIER && t != UCC_COLL_TYPE_FANIN && t != UCC_COLL_TYPE_FANOUT;
}

}  // namespace ucc::coll
