// A block of a ring reduction in pieces (the messages of one step): every
// piece of `chunk` elements but the last, which holds the rest, fewer than
// `chunk` (an empty piece where `chunk` divides the block). No block's
// pieces begin another's, so a peer that disagrees on the block's length
// (ranks that disagree on the count) sends a piece of another length than
// the receive it meets, and the receive fails its length check, as a whole
// block would: the pieces cost the collective none of its error checking.
// Both ends of a message cut by this rule.
#pragma once

#include <cstdint>

namespace ucc::coll::patterns {

struct Pieces {
    // `chunk` 0: one piece.
    Pieces(uint64_t len_elems, uint64_t chunk_elems)
        : len(len_elems), chunk(chunk_elems), n(chunk == 0 ? 1 : len / chunk + 1) {}
    uint64_t offset(uint64_t j) const { return j * chunk; }
    uint64_t size(uint64_t j) const { return j + 1 < n ? chunk : len - j * chunk; }
    uint64_t len;
    uint64_t chunk;
    uint64_t n;  // pieces
};

}  // namespace ucc::coll::patterns
