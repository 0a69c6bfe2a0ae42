// Allreduce: Rabenseifner (recursive-halving reduce-scatter, recursive-doubling
// allgather).
//
// Extra ranks beyond the largest power of two p fold their vector into a partner
// first, as in recursive doubling. The p remaining ranks then halve: in each
// round a pair splits its current range of blocks, each keeps one half and
// reduces into it the partner's copy of that half. After log2 p rounds rank r
// holds the reduced block r. Then the rounds run backwards, doubling the range
// each time by exchanging finished blocks. Every block is reduced on exactly one
// rank (combining lower rank's operand first), then copied: identical bits on
// every rank.
// Cost: 2 log2 p rounds, about 2 m (p-1)/p bytes per rank:
//   T = 2 log2 p (L + o) + 2 m G + m gamma_reduce (+ 2 folds if n != p).
// Constraints: none (any n, any count; blocks may be empty when count < p).
// Tag steps: 0 (fold in), 1..log2 p (halving), 100 + i (doubling), 1000 (fold out).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

namespace {

// The first half of the blocks, the largest one, in elements.
uint64_t largest_half(uint64_t count, uint32_t p) {
    uint64_t off;
    uint64_t len;
    patterns::blocks_range(count, p, 0, p > 1 ? p / 2 : 1, &off, &len);
    return len;
}

}  // namespace

// A power-of-two rank: a half to reduce into, and with an extra rank above
// it the extra rank's whole vector.
void allreduce_rabenseifner_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const uint32_t p = patterns::pow2_floor(n);
    if (rank >= p) {
        return;
    }
    plan.add(largest_half(a.count, p) * a.esize);
    if (rank + p < n) {
        plan.add(a.count * a.esize);
    }
}

Task allreduce_rabenseifner(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const size_t bytes = a.count * es;
    uint8_t *acc = static_cast<uint8_t *>(a.dst);
    if (!a.inplace) {
        c.copy(acc, a.src, bytes);
    }
    const uint32_t p = patterns::pow2_floor(n);
    if (r >= p) {
        Req s = c.send(r - p, 0, acc, bytes);
        Req q = c.recv(r - p, 1000, acc, bytes);
        co_return co_await c.wait(s, q);
    }
    uint8_t *tmp = c.scratch(largest_half(a.count, p) * es);
    if (r + p < n) {
        uint8_t *full = c.scratch(bytes);
        Req q = c.recv(r + p, 0, full, bytes);
        UCC_CO_TRY(co_await c.wait(q));
        UCC_CO_TRY(c.reduce(acc, acc, full, a.count));
    }
    // Recursive halving: [lo, hi) is the range of blocks this rank still reduces.
    uint32_t lo = 0;
    uint32_t hi = p;
    uint32_t step = 1;
    for (uint32_t mask = p / 2; mask >= 1; mask /= 2, ++step) {
        const uint32_t peer = r ^ mask;
        const uint32_t mid = lo + (hi - lo) / 2;
        const bool keep_low = (r & mask) == 0;
        const uint32_t klo = keep_low ? lo : mid;
        const uint32_t khi = keep_low ? mid : hi;
        const uint32_t slo = keep_low ? mid : lo;
        const uint32_t shi = keep_low ? hi : mid;
        uint64_t koff;
        uint64_t klen;
        uint64_t soff;
        uint64_t slen;
        patterns::blocks_range(a.count, p, klo, khi, &koff, &klen);
        patterns::blocks_range(a.count, p, slo, shi, &soff, &slen);
        Req s = c.send(peer, step, acc + soff * es, slen * es);
        Req q = c.recv(peer, step, tmp, klen * es);
        UCC_CO_TRY(co_await c.wait(s, q));
        if (peer < r) {
            UCC_CO_TRY(c.reduce(acc + koff * es, tmp, acc + koff * es, klen));
        } else {
            UCC_CO_TRY(c.reduce(acc + koff * es, acc + koff * es, tmp, klen));
        }
        lo = klo;
        hi = khi;
    }
    {
        uint64_t off;
        uint64_t len;
        patterns::blocks_range(a.count, p, lo, hi, &off, &len);
        c.finalize_result(acc + off * es, len);
    }
    // Recursive doubling allgather of the finished blocks.
    step = 100;
    for (uint32_t mask = 1; mask < p; mask *= 2, ++step) {
        const uint32_t peer = r ^ mask;
        const uint32_t width = hi - lo;
        const uint32_t plo = (r & mask) == 0 ? hi : lo - width;
        uint64_t moff;
        uint64_t mlen;
        uint64_t poff;
        uint64_t plen;
        patterns::blocks_range(a.count, p, lo, hi, &moff, &mlen);
        patterns::blocks_range(a.count, p, plo, plo + width, &poff, &plen);
        Req s = c.send(peer, step, acc + moff * es, mlen * es);
        Req q = c.recv(peer, step, acc + poff * es, plen * es);
        UCC_CO_TRY(co_await c.wait(s, q));
        lo = std::min(lo, plo);
        hi = lo + 2 * width;
    }
    if (r + p < n) {
        Req s = c.send(r + p, 1000, acc, bytes);
        UCC_CO_TRY(co_await c.wait(s));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
