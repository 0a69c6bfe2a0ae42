// Allgather: ring.
//
// In n-1 steps every rank sends to its right neighbour the block it received in
// the previous step (its own, straight from src, in the first) while receiving
// the next one from its left neighbour straight into place. Its own block is
// copied to offset r*B of dst while the first step's transfers are in flight
// (over a transport where the receiver pulls large messages, the neighbour
// reads src meanwhile).
// Cost: n-1 rounds of B bytes: T = (n-1)(L + o + B G). Bandwidth-optimal.
// Constraints: none. In-place: the own block is already at r*B.
// Tag steps: s (step s, modulo 2^16).
#include "lib/coll/allgather/allgather.h"

namespace ucc::coll {

Task allgather_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const uint8_t *own = a.inplace ? dst + r * block : static_cast<const uint8_t *>(a.src);
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + n - s) % n;
        const uint32_t rb = (r + 2 * n - s - 1) % n;
        Req rcv = c.recv(left, s, dst + rb * block, block);
        Req snd = c.send(right, s, s == 0 ? own : dst + sb * block, block);
        if (s == 0 && !a.inplace) {
            c.copy(dst + r * block, own, block);
        }
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    if (n == 1 && !a.inplace) {
        c.copy(dst, own, block);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
