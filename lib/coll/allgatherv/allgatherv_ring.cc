// Allgatherv: ring.
//
// Like the ring allgather, with blocks of their own sizes and places: in n-1
// steps rank r passes to its right neighbour the block it received last (its
// own first, from src, copied to dst + displacements[r] meanwhile) while
// receiving the next one from its left neighbour straight into place.
// Cost: n-1 rounds; every rank receives sum(counts) - counts[r] elements.
// Constraints: none. In-place: the own block is already at its displacement.
// Tag steps: s (step s, modulo 2^16).
#include "lib/coll/allgatherv/allgatherv.h"

namespace ucc::coll {

Task allgatherv_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    auto block = [&](uint32_t b) { return dst + a.dst_displ_at(b) * es; };
    auto bytes = [&](uint32_t b) { return a.dst_count_at(b) * es; };
    // The first step sends the own block from src and copies it into place
    // while the exchange runs; the receive is posted before the send.
    const uint8_t *own = a.inplace ? block(r) : static_cast<const uint8_t *>(a.src);
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + n - s) % n;
        const uint32_t rb = (r + 2 * n - s - 1) % n;
        Req rcv = c.recv(left, s, block(rb), bytes(rb));
        Req snd = c.send(right, s, s == 0 ? own : block(sb), bytes(sb));
        if (s == 0 && !a.inplace) {
            c.copy(block(r), own, bytes(r));
        }
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    if (n == 1 && !a.inplace) {
        c.copy(block(r), own, bytes(r));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
