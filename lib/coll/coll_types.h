// What each collective type reads and moves: the library's one list of these
// properties (validation, signatures, the consistency check and the trace all
// ask here). The types are the one-bit values of ucc_coll_type_t.
#pragma once

#include <bit>
#include <cstdint>

#include "ucc/api/ucc.h"

namespace ucc::coll {

// The index of a collective type's bit (UCC_COLL_TYPE_ALLGATHER: 1), for
// tables, signatures and tags indexed by type: floor(log2) of a value with
// several bits, 0 for 0, at most 15.
constexpr uint32_t type_index(uint64_t t) {
    const uint32_t b = t > 1 ? static_cast<uint32_t>(std::bit_width(t)) - 1 : 0;
    return b < 15 ? b : 15;
}
static_assert(type_index(0) == 0 && type_index(1) == 0 && type_index(2) == 1 &&
              type_index(uint64_t{1} << 15) == 15 && type_index(uint64_t{1} << 40) == 15);

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

// The message size selection compares (TUNE ranges, the ranged radix
// variables): count x element size, times the team size where count is a
// per-rank block (allgather(v), gather(v), scatter(v), alltoall(v),
// reduce_scatter(v)); 0 for the synchronisations.
constexpr uint64_t message_bytes(ucc_coll_type_t t, uint64_t count, uint64_t esize,
                                 uint32_t team_size) {
    switch (t) {
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return count * esize * team_size;
        case UCC_COLL_TYPE_BARRIER:
        case UCC_COLL_TYPE_FANIN:
        case UCC_COLL_TYPE_FANOUT:
            return 0;
        default:
            return count * esize;
    }
}

}  // namespace ucc::coll
