// Allreduce: recursive doubling.
//
// Let p be the largest power of two <= n. Ranks r >= p first hand their vector
// to partner r - p and wait for the result. Among the first p ranks, in round
// i (distance d = 2^i) each rank exchanges its whole vector with rank r ^ d and
// combines the two; after log2 p rounds every one of them holds the total, which
// the partners of the extra ranks send back.
// Bitwise identical results on every rank: both partners of a round combine the
// same two operands in the same order (lower rank's operand first), so they
// hold identical bits after every round, for floats too.
// Cost: (log2 p + 2 if n != p) rounds; each round sends count*esize bytes.
//   T = (log2 p + 2[n!=p]) (L + o + m G) + log2 p * m * gamma_reduce.
// Constraints: none (any n, in-place or not, every supported dt/op).
// Tag steps: 0 (fold in), 1..log2 p (rounds), 1000 (fold out).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

// A power-of-two rank: the operand it receives.
void allreduce_recursive_doubling_scratch(const Args &a, uint32_t rank, uint32_t n,
                                          ScratchPlan &plan) {
    if (rank < patterns::pow2_floor(n)) {
        plan.add(a.count * a.esize);
    }
}

Task allreduce_recursive_doubling(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t bytes = a.count * a.esize;
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
    uint8_t *tmp = c.scratch(bytes);
    if (r + p < n) {
        // The extra rank is higher: its operand goes second.
        Req q = c.recv(r + p, 0, tmp, bytes);
        UCC_CO_TRY(co_await c.wait(q));
        UCC_CO_TRY(c.reduce(acc, acc, tmp, a.count));
    }
    uint32_t step = 1;
    for (uint32_t d = 1; d < p; d *= 2, ++step) {
        const uint32_t peer = r ^ d;
        Req s = c.send(peer, step, acc, bytes);
        Req q = c.recv(peer, step, tmp, bytes);
        UCC_CO_TRY(co_await c.wait(s, q));
        if (peer < r) {
            UCC_CO_TRY(c.reduce(acc, tmp, acc, a.count));
        } else {
            UCC_CO_TRY(c.reduce(acc, acc, tmp, a.count));
        }
    }
    c.finalize_result(acc, a.count);
    if (r + p < n) {
        Req s = c.send(r + p, 1000, acc, bytes);
        UCC_CO_TRY(co_await c.wait(s));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
