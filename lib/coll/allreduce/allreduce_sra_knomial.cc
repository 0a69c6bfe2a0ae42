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
// Out of place the first round reads src (no copy of it into dst), but at
// an extra or a proxy, which hold whole vectors in dst.
// Cost: 2 log_k p rounds, about 2 m (p-1)/p bytes per rank:
//   T = 2 log_k p (L + (k-1) o) + 2 (p-1)/p m G + (p-1)/p m gamma_reduce
//       (+ 2 (L + o + m G) if n != p).
// Constraints: none (any n, radix and count; blocks may be empty when count
// < p). Scratch: k-1 received parts and a spare of the largest part, and an
// extra's whole vector on a proxy.
// The rounds: patterns/knomial_rounds.h. Tag steps: 0 (fold in), 1 + s
// (reduce-scatter round s), 100 + s (allgather round s), 1000 (fold out).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial_rounds.h"

namespace ucc::coll {

namespace {

// The vector cut into p runs of near-equal numbers of elements.
patterns::KnomialRuns element_runs(const Args &a, uint32_t n) {
    return {patterns::multiply_shape(a.radix, n), a.count, 1};
}

}  // namespace

void allreduce_sra_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::KnomialRuns runs = element_runs(a, n);
    if (rank >= runs.shape.p || n == 1) {
        return;
    }
    plan.add(patterns::knomial_scatter_reduce_scratch(runs, a.esize));
    if (rank + runs.shape.p < n) {
        plan.add(a.count * a.esize);
    }
}

Task allreduce_sra_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t bytes = a.count * a.esize;
    auto *acc = static_cast<uint8_t *>(a.dst);
    const patterns::KnomialRuns runs = element_runs(a, n);
    const uint32_t p = runs.shape.p;
    // Out of place, the scatter-reduce's first round reads src; only an
    // extra and a proxy (which folds whole vectors into dst) copy it first.
    const bool whole = n == 1 || r >= p || r + p < n;
    if (!a.inplace && whole) {
        c.copy(acc, a.src, bytes);
    }
    if (n == 1) {
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    if (r >= p) {
        co_return co_await allreduce_extra(c, acc, p);
    }
    uint8_t *work = c.scratch(patterns::knomial_scatter_reduce_scratch(runs, a.esize));
    if (r + p < n) {
        UCC_CO_TRY(co_await allreduce_fold_in_extras(c, acc, c.scratch(bytes), p));
    }
    const auto *src = static_cast<const uint8_t *>(a.src);
    UCC_CO_TRY(co_await patterns::knomial_scatter_reduce(c, acc, work, runs, 1,
                                                         a.inplace || whole ? nullptr : src));
    uint64_t off;
    uint64_t len;
    runs.range(r, r + 1, &off, &len);
    c.finalize_result(acc + off * a.esize, len);
    UCC_CO_TRY(co_await patterns::knomial_allgather_runs(c, acc, runs, 100));
    co_return co_await allreduce_fold_out_extras(c, acc, p);
}

}  // namespace ucc::coll
