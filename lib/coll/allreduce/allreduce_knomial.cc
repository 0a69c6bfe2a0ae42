// Allreduce: k-nomial (recursive multiplying, radix k = KNOMIAL_RADIX).
//
// Recursive doubling with k-1 partners per round. Let p be the largest power
// of k <= n (k lowered to n on smaller teams). Ranks r >= p first hand their
// vector to proxy (r - p) mod p and wait for the result; each proxy folds
// its extras in, in rank order. Among the first p ranks, in round s
// (distance d = k^s) the k ranks of a group {b + j d, j < k} exchange their
// whole vectors and each combines the k of them in group order
// v_0 op v_1 op ... op v_(k-1); after log_k p rounds every one of them holds
// the total, which the proxies send back to their extras. Fewer rounds than
// recursive doubling (log_k p instead of log_2 p) for k-1 messages per round
// in flight at once: what the latency of a network rewards for small
// vectors.
// Bitwise identical results on every rank: the members of a group combine
// the same operands in the same order, so they hold identical bits after
// every round, for floats too.
// Cost: (log_k p + 2[n != p]) rounds of k-1 messages of m bytes:
//   T = (log_k p + 2[n!=p]) (L + (k-1)(o + m G)) + log_k p (k-1) m gamma_reduce.
// Constraints: none (any n and radix, in place or not). Scratch: k vectors
// (k-1 received operands and the other half of a ping-pong result).
// Tag steps: 0 (fold in), 1 + s (round s), 1000 (fold out).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

// A rank of the first p: k-1 received operands and a spare result.
void allreduce_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::MultiplyShape s = patterns::multiply_shape(a.radix, n);
    if (rank < s.p && n > 1) {
        plan.add(uint64_t{s.k} * a.count * a.esize);
    }
}

Task allreduce_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t bytes = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (!a.inplace) {
        c.copy(dst, a.src, bytes);
    }
    if (n == 1) {
        c.finalize_result(dst, a.count);
        co_return UCC_OK;
    }
    const auto [k, p] = patterns::multiply_shape(a.radix, n);
    if (r >= p) {
        co_return co_await allreduce_extra(c, dst, p);
    }
    uint8_t *scratch = c.scratch(uint64_t{k} * bytes);
    uint8_t *spare = scratch + (k - 1) * bytes;
    uint8_t *cur = dst;  // this rank's partial: dst or spare, in turn
    UCC_CO_TRY(co_await allreduce_fold_in_extras(c, cur, scratch, p));
    uint32_t step = 1;
    for (uint32_t d = 1; d < p; d *= k, ++step) {
        const uint32_t mine = (r / d) % k;
        const uint32_t base = r - mine * d;
        ReqList reqs = c.req_list(2 * (k - 1));
        // Member mine + i first at step i: every member receives one
        // message at a time, not all k - 1 at once at the first member.
        for (uint32_t i = 1; i < k; ++i) {
            const uint32_t j = (mine + i) % k;
            const uint32_t slot = j < mine ? j : j - 1;
            reqs.push_back(c.send(base + j * d, step, cur, bytes));
            reqs.push_back(c.recv(base + j * d, step, scratch + slot * bytes, bytes));
        }
        UCC_CO_TRY(co_await c.wait_all(reqs));
        // v_0 op v_1 op ... in group order, into the other buffer.
        uint8_t *next = cur == dst ? spare : dst;
        auto operand = [&](uint32_t j) -> const uint8_t * {
            return j == mine ? cur : scratch + (j < mine ? j : j - 1) * bytes;
        };
        UCC_CO_TRY(c.reduce(next, operand(0), operand(1), a.count));
        for (uint32_t j = 2; j < k; ++j) {
            UCC_CO_TRY(c.reduce(next, next, operand(j), a.count));
        }
        cur = next;
    }
    if (cur != dst) {
        c.copy(dst, cur, bytes);
    }
    c.finalize_result(dst, a.count);
    co_return co_await allreduce_fold_out_extras(c, dst, p);
}

}  // namespace ucc::coll
