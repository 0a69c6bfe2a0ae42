// Allreduce: ring (reduce-scatter then allgather around a ring).
//
// The vector is cut into n near-equal blocks. In n-1 reduce-scatter steps each
// rank passes one block's running partial to its right neighbour, which folds in
// its own contribution; afterwards rank r holds the full reduction of block
// (r+1) mod n. In n-1 allgather steps the finished blocks travel around the ring.
// Every block is reduced exactly once, on one rank, and then copied, so all
// ranks end with identical bits.
// Out of place, every block of dst is written exactly once before it is read
// (received and reduced with the rank's own block, read from src, or received
// finished), so src is never copied to dst and no scratch is needed; in
// place, the partial from the left arrives in a scratch block.
// A reduce-scatter step moves its block in chunks (REDUCE_CHUNK) and reduces
// each as it arrives, still in cache, while the next are in flight.
// Cost: 2(n-1) rounds of count/n elements: T = 2(n-1)(L + o) + 2 (n-1)/n m G
//   + (n-1)/n m gamma_reduce. Bandwidth-optimal; latency grows with n.
// Constraints: none (any n and count, in-place or not).
// Tag steps: s (reduce-scatter step s), n + s (allgather step s), modulo 2^16.
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

namespace {

// Block 0 is a largest block.
uint64_t largest_block(uint64_t count, uint32_t n) {
    uint64_t off = 0;
    uint64_t len = 0;
    patterns::block_range(count, n, 0, &off, &len);
    return len;
}

}  // namespace

// In place (n > 1): the partial from the left, one largest block.
void allreduce_ring_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    if (a.inplace && n > 1) {
        plan.add(largest_block(a.count, n) * a.esize);
    }
}

Task allreduce_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    uint8_t *acc = static_cast<uint8_t *>(a.dst);
    // This rank's own contribution.
    const uint8_t *own = a.inplace ? acc : static_cast<const uint8_t *>(a.src);
    if (n == 1) {
        c.copy(acc, own, a.count * es);
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    uint8_t *tmp = a.inplace ? c.scratch(largest_block(a.count, n) * es) : nullptr;
    uint64_t off = 0;
    uint64_t len = 0;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + n - s) % n;
        const uint32_t rb = (r + 2 * n - s - 1) % n;
        uint64_t soff;
        uint64_t slen;
        uint64_t roff;
        uint64_t rlen;
        patterns::block_range(a.count, n, sb, &soff, &slen);
        patterns::block_range(a.count, n, rb, &roff, &rlen);
        // Step 0 sends this rank's own block; later steps the one reduced
        // in the step before.
        const uint8_t *sbuf = (s == 0 ? own : acc) + soff * es;
        uint8_t *rbuf = a.inplace ? tmp : acc + roff * es;
        // The partial coming from the left holds the earlier ranks of the ring.
        UCC_CO_TRY(co_await send_recv_reduce(c, right, sbuf, slen, left, rbuf, rlen,
                                             acc + roff * es, own + roff * es, s));
    }
    const uint32_t mine = (r + 1) % n;
    patterns::block_range(a.count, n, mine, &off, &len);
    c.finalize_result(acc + off * es, len);
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const uint32_t sb = (r + 1 + n - s) % n;
        const uint32_t rb = (r + n - s) % n;
        uint64_t soff;
        uint64_t slen;
        uint64_t roff;
        uint64_t rlen;
        patterns::block_range(a.count, n, sb, &soff, &slen);
        patterns::block_range(a.count, n, rb, &roff, &rlen);
        Req snd = c.send(right, n + s, acc + soff * es, slen * es);
        Req rcv = c.recv(left, n + s, acc + roff * es, rlen * es);
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
