// Reduce-scatter: ring.
//
// The reduce-scatter half of the ring allreduce, arranged so rank r finishes
// with block r: in step s each rank passes the running partial of block
// r-s-1 (mod n) to its right neighbour and folds its own contribution into the
// partial of block r-s-2 that arrives from the left. The input is first copied
// to scratch, so in-place dst is written only at rank r's block (the rest of
// dst stays as the user left it).
// Cost: n-1 rounds of T/n elements: T = (n-1)(L + o) + (n-1)/n T es (G + gamma).
// Constraints: none. In-place: dst holds all T elements, the result goes to
// dst + r*T/n. Tag steps: s (step s, modulo 2^16).
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/reduce_scatter/reduce_scatter.h"

namespace ucc::coll {

// Shared by reduce_scatter and reduce_scatterv: blocks are described by a
// function giving (offset, length) in elements.
template <class Blocks>
Task ring_reduce_scatter(Coll &c, Blocks blocks, uint64_t total, void *out) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const void *in = a.inplace ? a.dst : a.src;
    uint8_t *acc = c.scratch(total * es);
    c.copy(acc, in, total * es);
    uint64_t largest = 0;
    for (uint32_t i = 0; i < n; ++i) {
        largest = std::max(largest, blocks(i).second);
    }
    uint8_t *tmp = c.scratch(largest * es);
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const auto [soff, slen] = blocks((r + 2 * n - s - 1) % n);
        const auto [roff, rlen] = blocks((r + 2 * n - s - 2) % n);
        Req snd = c.send(right, s, acc + soff * es, slen * es);
        Req rcv = c.recv(left, s, tmp, rlen * es);
        UCC_CO_TRY(co_await c.wait(snd, rcv));
        UCC_CO_TRY(c.reduce(acc + roff * es, tmp, acc + roff * es, rlen));
    }
    const auto [off, len] = blocks(r);
    c.finalize_result(acc + off * es, len);
    c.copy(out, acc + off * es, len * es);
    co_return UCC_OK;
}

Task reduce_scatter_ring(Coll &c) {
    const Args &a = c.args();
    const uint64_t block = a.count;
    auto blocks = [block](uint32_t i) { return std::pair<uint64_t, uint64_t>{i * block, block}; };
    uint8_t *out = static_cast<uint8_t *>(a.dst);
    if (a.inplace) {
        out += c.rank() * block * a.esize;
    }
    co_return co_await ring_reduce_scatter(c, blocks, block * c.size(), out);
}

Task reduce_scatterv_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    // Offsets are prefix sums of the counts; computed once (O(n) per call).
    std::vector<uint64_t> offs(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        offs[i + 1] = offs[i] + a.dst_count_at(i);
    }
    auto blocks = [&offs](uint32_t i) {
        return std::pair<uint64_t, uint64_t>{offs[i], offs[i + 1] - offs[i]};
    };
    uint8_t *out = static_cast<uint8_t *>(a.dst);
    if (a.inplace) {
        out += offs[c.rank()] * a.esize;
    }
    co_return co_await ring_reduce_scatter(c, blocks, offs[n], out);
}

}  // namespace ucc::coll
