// Reduce-scatter: k-nomial (radix-k scatter-reduce; the reference's tl/ucp
// knomial).
//
// Let k = KNOMIAL_RADIX (lowered to n on smaller teams) and p the largest
// power of k <= n. Rank x's block belongs to run x mod p: each rank copies
// its input into scratch in that run-major order.
// Ranks r >= p hand the copy to proxy r mod p and wait for their block; each
// proxy folds its extras in, in rank order. The scatter-reduce rounds of
// patterns/knomial_rounds.h then run over the runs: in round s each rank of
// a group {b + j d} (d = p / k^(s+1)) keeps 1/k of its range, sends the rest
// to its members and reduces the k copies of its part in group order, so
// after log_k p rounds rank r holds run r reduced: its own block, and those
// of its extras, which it sends them. With no extras (n = p) the runs are
// the blocks themselves: no copy, the first round reads the input in place.
// Against the ring: log_k p rounds instead of n-1, for the same bytes.
// Cost: log_k p rounds, (p-1)/p of the n*B input moved and reduced:
//   T = log_k p (L + (k-1) o) + (p-1)/p n B (G + gamma)
//       (+ n B gamma_copy + 2 (L + o) + (n+1) B G + n B gamma if n != p).
// Constraints: none (any n, radix and count). Scratch: the n*B input, the
// rounds' k-1 received parts and a spare, and an extra's copy on a proxy.
// In-place: dst holds all n*B, the result goes to dst + r*B.
// Tag steps: 0 (an extra's input), 1 + s (round s), 1000 (an extra's block).
#include "lib/coll/patterns/knomial_rounds.h"
#include "lib/coll/reduce_scatter/reduce_scatter.h"

namespace ucc::coll {

namespace {

// The input in run-major order.
void copy_by_runs(Coll &c, const patterns::KnomialRuns &runs, uint8_t *to, const uint8_t *in) {
    const size_t es = c.args().esize;
    const size_t block = c.args().count * es;
    for (uint32_t x = 0; x < c.size(); ++x) {
        c.copy(to + runs.place(x) * es, in + x * block, block);
    }
}

}  // namespace

void reduce_scatter_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::KnomialRuns runs = patterns::block_runs(a.radix, n, a.count);
    const uint64_t total = uint64_t{n} * a.count * a.esize;
    if (n == 1) {
        return;
    }
    plan.add(total);
    if (rank < runs.shape.p) {
        plan.add(patterns::knomial_scatter_reduce_scratch(runs, a.esize));
        if (rank + runs.shape.p < n) {
            plan.add(total);
        }
    }
}

Task reduce_scatter_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const size_t block = a.count * es;
    const uint64_t total = uint64_t{n} * a.count;
    const auto *in = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    uint8_t *out = static_cast<uint8_t *>(a.dst) + (a.inplace ? r * block : 0);
    if (n == 1) {
        if (!a.inplace) {
            c.copy(out, in, block);
        }
        c.finalize_result(out, a.count);
        co_return UCC_OK;
    }
    const patterns::KnomialRuns runs = patterns::block_runs(a.radix, n, a.count);
    const uint32_t p = runs.shape.p;
    uint8_t *acc = c.scratch(total * es);
    // With no extras the runs are the blocks in rank order: the first round
    // reads the input where it lies.
    const bool direct = n == p;
    if (!direct) {
        copy_by_runs(c, runs, acc, in);
    }
    if (r >= p) {
        Req s = c.send(r % p, 0, acc, total * es);
        Req q = c.recv(r % p, 1000, out, block);
        UCC_CO_TRY(co_await c.wait(s, q));
        c.finalize_result(out, a.count);
        co_return UCC_OK;
    }
    uint8_t *work = c.scratch(patterns::knomial_scatter_reduce_scratch(runs, es));
    if (r + p < n) {
        uint8_t *tmp = c.scratch(total * es);
        for (uint32_t e = r + p; e < n; e += p) {
            Req q = c.recv(e, 0, tmp, total * es);
            UCC_CO_TRY(co_await c.wait(q));
            UCC_CO_TRY(c.reduce(acc, acc, tmp, total));
        }
    }
    UCC_CO_TRY(
        co_await patterns::knomial_scatter_reduce(c, acc, work, runs, 1, direct ? in : nullptr));
    ReqList to_extras = c.req_list((n - 1 - r) / p);
    for (uint32_t e = r + p; e < n; e += p) {
        to_extras.push_back(c.send(e, 1000, acc + runs.place(e) * es, block));
    }
    c.copy(out, acc + runs.place(r) * es, block);
    c.finalize_result(out, a.count);
    co_return co_await c.wait_all(to_extras);
}

}  // namespace ucc::coll
