// Allreduce: radix-k scatter-reduce-allgather (Rabenseifner with k-nomial
// rounds; the reference's tl/ucp sra_knomial).
//
// Let k = KNOMIAL_RADIX (lowered to n on smaller teams) and p the largest
// power of k <= n. Ranks r >= p first hand their vector to proxy r mod p and
// wait for the result; each proxy folds its extras in, in rank order. The
// vector is cut into p near-equal blocks. Reduce-scatter: in round s the k
// ranks of a group {b + j d} (d = p / k^(s+1)) split their current range of
// blocks into k equal parts; member j keeps part j, sends every other part
// to its member and reduces the k copies of its own in group order
// v_0 op v_1 op ... op v_(k-1). After log_k p rounds rank r holds block r,
// reduced. Allgather: the rounds run backwards, each member sending its
// finished range to the k-1 others of its group. Every block is reduced on
// exactly one rank and then copied: identical bits on every rank. Against
// Rabenseifner (k = 2): log_k p rounds instead of log_2 p, for k-1 messages
// in flight per round and the same bytes.
// Cost: 2 log_k p rounds, about 2 m (p-1)/p bytes per rank:
//   T = 2 log_k p (L + (k-1) o) + 2 (p-1)/p m G + (p-1)/p m gamma_reduce
//       (+ 2 (L + o + m G) if n != p).
// Constraints: none (any n, radix and count; blocks may be empty when count
// < p). Scratch: k-1 received parts and a spare of the largest part, and an
// extra's whole vector on a proxy.
// Tag steps: 0 (fold in), 1 + s (reduce-scatter round s), 100 + s (allgather
// round s), 1000 (fold out).
#include <utility>

#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

namespace {

using patterns::blocks_range;

// The largest part of the first round (the blocks come largest first).
uint64_t largest_part(uint64_t count, const patterns::MultiplyShape &s) {
    uint64_t off;
    uint64_t len;
    blocks_range(count, s.p, 0, s.p / s.k, &off, &len);
    return len;
}

// One round's messages in a group {base + j d} of k: to every other member
// j, the bytes out(j) under `step`, and from it into in(j); each returns
// {pointer, bytes}.
template <class Out, class In>
void exchange(Coll &c, ReqList &reqs, uint32_t base, uint32_t d, uint32_t k, uint32_t mine,
              uint32_t step, Out out, In in) {
    for (uint32_t j = 0; j < k; ++j) {
        if (j != mine) {
            const auto [sbuf, sbytes] = out(j);
            const auto [rbuf, rbytes] = in(j);
            reqs.push_back(c.send(base + j * d, step, sbuf, sbytes));
            reqs.push_back(c.recv(base + j * d, step, rbuf, rbytes));
        }
    }
}

}  // namespace

void allreduce_sra_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::MultiplyShape s = patterns::multiply_shape(a.radix, n);
    if (rank >= s.p || n == 1) {
        return;
    }
    plan.add(uint64_t{s.k} * largest_part(a.count, s) * a.esize);
    if (rank + s.p < n) {
        plan.add(a.count * a.esize);
    }
}

Task allreduce_sra_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const size_t bytes = a.count * es;
    auto *acc = static_cast<uint8_t *>(a.dst);
    if (!a.inplace) {
        c.copy(acc, a.src, bytes);
    }
    if (n == 1) {
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    const patterns::MultiplyShape sh = patterns::multiply_shape(a.radix, n);
    const uint32_t k = sh.k;
    const uint32_t p = sh.p;
    if (r >= p) {
        co_return co_await allreduce_extra(c, acc, p);
    }
    const uint64_t part = largest_part(a.count, sh);
    uint8_t *recvd = c.scratch(uint64_t{k} * part * es);  // k-1 parts, then the spare
    uint8_t *spare = recvd + (k - 1) * part * es;
    if (r + p < n) {
        UCC_CO_TRY(co_await allreduce_fold_in_extras(c, acc, c.scratch(bytes), p));
    }
    // Reduce-scatter: [lo, hi) are the blocks this rank still reduces.
    uint32_t lo = 0;
    uint32_t hi = p;
    uint32_t step = 1;
    for (uint32_t d = p / k; d >= 1; d /= k, ++step) {
        const uint32_t mine = (r / d) % k;
        const uint32_t base = r - mine * d;
        const uint32_t w = (hi - lo) / k;
        uint64_t koff;
        uint64_t klen;
        blocks_range(a.count, p, lo + mine * w, lo + (mine + 1) * w, &koff, &klen);
        ReqList reqs = c.req_list(2 * (k - 1));
        exchange(
            c, reqs, base, d, k, mine, step,
            [&](uint32_t j) {
                uint64_t off;
                uint64_t len;
                blocks_range(a.count, p, lo + j * w, lo + (j + 1) * w, &off, &len);
                return std::pair<const uint8_t *, size_t>(acc + off * es, len * es);
            },
            [&](uint32_t j) {
                const uint32_t slot = j < mine ? j : j - 1;
                return std::pair<uint8_t *, size_t>(recvd + slot * part * es, klen * es);
            });
        UCC_CO_TRY(co_await c.wait_all(reqs));
        // v_0 op v_1 op ... in group order, into the spare, then in place.
        uint8_t *own = acc + koff * es;
        auto operand = [&](uint32_t j) -> const uint8_t * {
            return j == mine ? own : recvd + (j < mine ? j : j - 1) * part * es;
        };
        UCC_CO_TRY(c.reduce(spare, operand(0), operand(1), klen));
        for (uint32_t j = 2; j < k; ++j) {
            UCC_CO_TRY(c.reduce(spare, spare, operand(j), klen));
        }
        c.copy(own, spare, klen * es);
        lo += mine * w;
        hi = lo + w;
    }
    {
        uint64_t off;
        uint64_t len;
        blocks_range(a.count, p, lo, hi, &off, &len);
        c.finalize_result(acc + off * es, len);
    }
    // Allgather: the rounds backwards, each member's finished range to the others.
    step = 100;
    for (uint32_t d = 1; d < p; d *= k, ++step) {
        const uint32_t mine = (r / d) % k;
        const uint32_t base = r - mine * d;
        const uint32_t w = hi - lo;
        const uint32_t plo = lo - mine * w;
        uint64_t moff;
        uint64_t mlen;
        blocks_range(a.count, p, lo, hi, &moff, &mlen);
        ReqList reqs = c.req_list(2 * (k - 1));
        exchange(
            c, reqs, base, d, k, mine, step,
            [&](uint32_t) {
                return std::pair<const uint8_t *, size_t>(acc + moff * es, mlen * es);
            },
            [&](uint32_t j) {
                uint64_t off;
                uint64_t len;
                blocks_range(a.count, p, plo + j * w, plo + (j + 1) * w, &off, &len);
                return std::pair<uint8_t *, size_t>(acc + off * es, len * es);
            });
        UCC_CO_TRY(co_await c.wait_all(reqs));
        lo = plo;
        hi = plo + k * w;
    }
    co_return co_await allreduce_fold_out_extras(c, acc, p);
}

}  // namespace ucc::coll
