// Allgatherv: ring.
//
// Like the ring allgather, with blocks of their own sizes and places: rank r
// puts its block at dst + displacements[r], then in n-1 steps passes to its
// right neighbour the block it received last (its own first) while receiving
// the next one from its left neighbour straight into place.
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
    if (!a.inplace) {
        c.copy(dst + a.dst_displ_at(r) * es, a.src, a.dst_count_at(r) * es);
    }
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + n - s) % n;
        const uint32_t rb = (r + 2 * n - s - 1) % n;
        Req snd = c.send(right, s, dst + a.dst_displ_at(sb) * es, a.dst_count_at(sb) * es);
        Req rcv = c.recv(left, s, dst + a.dst_displ_at(rb) * es, a.dst_count_at(rb) * es);
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
