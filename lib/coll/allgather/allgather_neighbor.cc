// Allgather: neighbour exchange (Chen et al.).
//
// For an even number of ranks. Rank r's pair is p = r/2, the blocks 2p and
// 2p + 1 (contiguous in dst). In step 0 the ranks 2p and 2p + 1 swap their
// blocks, so both hold pair p. In each of the n/2 - 1 steps that follow, a
// rank swaps two blocks with one neighbour, alternating sides: at odd steps
// the even ranks talk to their left neighbour and the odd ranks to their
// right one, at even steps the pairs of step 0 meet again. A rank sends the
// pair it received in the step before (its own in step 1) and receives a
// new one: an even rank gets the pairs p - 1, p + 1, p - 2, p + 2, ..., an
// odd rank p + 1, p - 1, p + 2, p - 2, ... (modulo n/2), every pair once.
// Half the rounds of the ring for the same bytes, with only two partners.
// Cost: n/2 rounds: T = (n/2)(L + o) + (n-1) B G. Bandwidth-optimal.
// Constraints: none; an odd team size runs the ring instead (as the
// reference's neighbor does).
// In-place: the own block is already at r*B.
// Tag steps: i (step i, modulo 2^11: the partners of steps i and i + 2 are
// the same and their messages go in order).
#include "lib/coll/allgather/allgather.h"

namespace ucc::coll {

Task allgather_neighbor(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    if (n % 2 != 0) {
        co_return co_await allgather_ring(c);
    }
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const uint8_t *own = a.inplace ? dst + r * block : static_cast<const uint8_t *>(a.src);
    const uint32_t pairs = n / 2;
    const uint32_t p = r / 2;
    const bool even = r % 2 == 0;
    {
        Req rcv = c.recv(r ^ 1u, 0, dst + (r ^ 1u) * block, block);
        Req snd = c.send(r ^ 1u, 0, own, block);
        if (!a.inplace) {
            c.copy(dst + r * block, own, block);
        }
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    uint32_t sent = p;  // the pair to send next
    for (uint32_t i = 1; i < pairs; ++i) {
        // Odd steps: an even rank with its left neighbour, which holds the
        // pairs below; even steps: with its right one, the pairs above.
        const bool left = (i % 2 == 1) == even;
        const uint32_t peer = left ? (r + n - 1) % n : (r + 1) % n;
        const uint32_t d = (i + 1) / 2;
        const uint32_t got = left ? (p + pairs - d % pairs) % pairs : (p + d) % pairs;
        Req rcv = c.recv(peer, i, dst + 2 * got * block, 2 * block);
        Req snd = c.send(peer, i, dst + 2 * sent * block, 2 * block);
        UCC_CO_TRY(co_await c.wait(snd, rcv));
        sent = got;
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
