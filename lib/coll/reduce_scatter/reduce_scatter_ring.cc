// Reduce-scatter: ring.
//
// The reduce-scatter half of the ring allreduce, arranged so rank r finishes
// with block r: in step s each rank passes the running partial of block
// r-s-1 (mod n) to its right neighbour and folds its own contribution into the
// partial of block r-s-2 that arrives from the left, reading its own
// contribution straight from the input. The partials it makes live in two
// scratch blocks used in turn (one being sent while the next is reduced), the
// last one goes straight to the result, so the input is never copied and
// in-place dst is written only at rank r's block (the rest of dst stays as the
// user left it). Each step moves its block in chunks (REDUCE_CHUNK), reducing
// each as it arrives.
// Cost: n-1 rounds of T/n elements: T = (n-1)(L + o) + (n-1)/n T es (G + gamma).
// Constraints: none. In-place: dst holds all T elements, the result goes to
// dst + r*T/n. Tag steps: s (step s, modulo 2^16).
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/reduce_scatter/reduce_scatter.h"

namespace ucc::coll {

namespace {

// The partial from the left, and with more than two ranks this rank's own
// partials in turn: blocks of the largest block's size.
void ring_scratch(uint64_t largest_bytes, uint32_t n, ScratchPlan &plan) {
    plan.add(largest_bytes);
    if (n > 2) {
        plan.add(largest_bytes);
        plan.add(largest_bytes);
    }
}

uint64_t largest_v_block(const Args &a, uint32_t n) {
    uint64_t largest = 0;
    for (uint32_t i = 0; i < n; ++i) {
        largest = std::max(largest, a.dst_count_at(i));
    }
    return largest;
}

}  // namespace

void reduce_scatter_ring_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    ring_scratch(a.count * a.esize, n, plan);
}

void reduce_scatterv_ring_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    ring_scratch(largest_v_block(a, n) * a.esize, n, plan);
}

// Shared by reduce_scatter and reduce_scatterv: blocks are described by a
// function giving (offset, length) in elements.
template <class Blocks>
Task ring_reduce_scatter(Coll &c, uint64_t largest, Blocks blocks, void *out) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const auto *in = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    uint8_t *tmp = c.scratch(largest * es);  // the partial from the left
    uint8_t *part[2] = {nullptr, nullptr};   // this rank's partials, in turn
    if (n > 2) {
        part[0] = c.scratch(largest * es);
        part[1] = c.scratch(largest * es);
    }
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    for (uint32_t s = 0; s + 1 < n; ++s) {
        const auto [soff, slen] = blocks((r + 2 * n - s - 1) % n);
        const auto [roff, rlen] = blocks((r + 2 * n - s - 2) % n);
        // Step 0 sends the rank's own input block, later steps the partial
        // made in the step before; the last step's partial is the result.
        const uint8_t *sbuf = s == 0 ? in + soff * es : part[(s - 1) % 2];
        uint8_t *made = s + 2 == n ? static_cast<uint8_t *>(out) : part[s % 2];
        UCC_CO_TRY(co_await send_recv_reduce(c, right, sbuf, slen, left, tmp, rlen, made,
                                             in + roff * es, s));
    }
    const auto [off, len] = blocks(r);
    if (n == 1) {
        c.copy(out, in + off * es, len * es);
    }
    c.finalize_result(out, len);
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
    co_return co_await ring_reduce_scatter(c, block, blocks, out);
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
    co_return co_await ring_reduce_scatter(c, largest_v_block(a, n), blocks, out);
}

}  // namespace ucc::coll
