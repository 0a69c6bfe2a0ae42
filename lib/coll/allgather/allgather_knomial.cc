// Allgather: k-nomial (recursive multiplying; the reference's tl/ucp knomial).
//
// Let k = KNOMIAL_RADIX (lowered to n on smaller teams) and p the largest
// power of k <= n. Ranks r >= p hand their block to proxy r mod p and wait
// for the whole result; so proxy q holds the blocks of q, q + p, q + 2p, ...
// (its run). The runs are laid out one after the other (when n = p: dst
// itself; else a scratch copy) and the allgather rounds of
// patterns/knomial_rounds.h run over them: in round s each rank sends the
// runs it holds to the k-1 other members of its group {b + j k^s}, so after
// log_k p rounds every rank of the rounds holds every run. A proxy then puts
// the blocks in rank order into dst and sends dst to its extras. Against
// Bruck: the same log rounds with k-1 messages in flight per round, no final
// rotation when n is a power of k, and a reduce_scatter knomial of the same
// shape.
// Cost: log_k p rounds, (p-1)/p n B bytes in:
//   T = log_k p (L + (k-1) o) + (p-1)/p n B G
//       (+ 2 (L + o) + (n+1) B G + n B gamma_copy if n != p).
// Constraints: none (any n, radix and count). Scratch: n*B on a rank of the
// rounds when n != p. In-place: the own block at r*B.
// Tag steps: 0 (an extra's block), 1 + s (round s), 1000 (the result to an
// extra).
#include "lib/coll/allgather/allgather.h"
#include "lib/coll/patterns/knomial_rounds.h"

namespace ucc::coll {

void allgather_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::KnomialRuns runs = patterns::block_runs(a.radix, n, a.count);
    if (rank < runs.shape.p && n != runs.shape.p) {
        plan.add(uint64_t{n} * a.count * a.esize);
    }
}

Task allgather_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const size_t block = a.count * es;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const auto *own = static_cast<const uint8_t *>(a.inplace ? dst + r * block : a.src);
    const patterns::KnomialRuns runs = patterns::block_runs(a.radix, n, a.count);
    const uint32_t p = runs.shape.p;
    if (r >= p) {
        // The result overwrites the own block only after the proxy has it.
        Req s = c.send(r % p, 0, own, block);
        Req q = c.recv(r % p, 1000, dst, n * block);
        co_return co_await c.wait(s, q);
    }
    uint8_t *buf = n == p ? dst : c.scratch(n * block);
    if (buf + runs.place(r) * es != own) {
        c.copy(buf + runs.place(r) * es, own, block);
    }
    {
        ReqList in = c.req_list((n - 1 - r) / p);
        for (uint32_t e = r + p; e < n; e += p) {
            in.push_back(c.recv(e, 0, buf + runs.place(e) * es, block));
        }
        UCC_CO_TRY(co_await c.wait_all(in));
    }
    UCC_CO_TRY(co_await patterns::knomial_allgather_runs(c, buf, runs, 1));
    if (n == p) {
        co_return UCC_OK;
    }
    for (uint32_t x = 0; x < n; ++x) {
        c.copy(dst + x * block, buf + runs.place(x) * es, block);
    }
    ReqList out = c.req_list((n - 1 - r) / p);
    for (uint32_t e = r + p; e < n; e += p) {
        out.push_back(c.send(e, 1000, dst, n * block));
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
