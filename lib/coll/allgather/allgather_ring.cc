// Allgather: ring.
//
// Every rank places its own block at offset r*B of dst, then in n-1 steps sends
// to its right neighbour the block it received in the previous step (its own in
// the first) while receiving the next one from its left neighbour straight into
// place.
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
    if (!a.inplace) {
        c.copy(dst + r * block, a.src, block);
    }
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + n - s) % n;
        const uint32_t rb = (r + 2 * n - s - 1) % n;
        Req snd = c.send(right, s, dst + sb * block, block);
        Req rcv = c.recv(left, s, dst + rb * block, block);
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
