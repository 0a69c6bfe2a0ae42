// Radix-k scatter-reduce and allgather rounds (knomial_rounds.h).
#include "lib/coll/patterns/knomial_rounds.h"

#include <utility>

namespace ucc::coll::patterns {

namespace {

// The largest part of the first round (the runs come largest first).
uint64_t largest_part(const KnomialRuns &runs) {
    uint64_t off;
    uint64_t len;
    runs.range(0, runs.shape.p / runs.shape.k, &off, &len);
    return len;
}

// One round's messages in a group {base + j d} of k: to every other member
// j, the bytes out(j) under `step`, and from it into in(j); each returns
// {pointer, bytes}. Member mine + i comes i-th, so that at every step each
// member receives one message (in one order for all, the first member would
// get k - 1 at once and its port take them in one after another).
template <class Out, class In>
void exchange(Coll &c, ReqList &reqs, uint32_t base, uint32_t d, uint32_t k, uint32_t mine,
              uint32_t step, Out out, In in) {
    for (uint32_t i = 1; i < k; ++i) {
        const uint32_t j = (mine + i) % k;
        const auto [sbuf, sbytes] = out(j);
        const auto [rbuf, rbytes] = in(j);
        reqs.push_back(c.send(base + j * d, step, sbuf, sbytes));
        reqs.push_back(c.recv(base + j * d, step, rbuf, rbytes));
    }
}

}  // namespace

uint64_t knomial_scatter_reduce_scratch(const KnomialRuns &runs, size_t esize) {
    return uint64_t{runs.shape.k} * largest_part(runs) * esize;
}

Task knomial_scatter_reduce(Coll &c, uint8_t *acc, uint8_t *work, KnomialRuns runs, uint32_t step,
                            const uint8_t *src) {
    const uint32_t r = c.rank();
    const uint32_t k = runs.shape.k;
    const size_t es = c.args().esize;
    const uint64_t part = largest_part(runs);
    uint8_t *recvd = work;  // k-1 parts, then the spare
    uint8_t *spare = recvd + (k - 1) * part * es;
    uint32_t lo = 0;  // [lo, hi): the runs this rank still reduces
    uint32_t hi = runs.shape.p;
    // What this round reads of this rank's own data: src in the first.
    const uint8_t *in = src != nullptr ? src : acc;
    for (uint32_t d = runs.shape.p / k; d >= 1; d /= k, ++step, in = acc) {
        const uint32_t mine = (r / d) % k;
        const uint32_t w = (hi - lo) / k;
        uint64_t koff;
        uint64_t klen;
        runs.range(lo + mine * w, lo + (mine + 1) * w, &koff, &klen);
        ReqList reqs = c.req_list(2 * (k - 1));
        exchange(
            c, reqs, r - mine * d, d, k, mine, step,
            [&](uint32_t j) {
                uint64_t off;
                uint64_t len;
                runs.range(lo + j * w, lo + (j + 1) * w, &off, &len);
                return std::pair<const uint8_t *, size_t>(in + off * es, len * es);
            },
            [&](uint32_t j) {
                const uint32_t slot = j < mine ? j : j - 1;
                return std::pair<uint8_t *, size_t>(recvd + slot * part * es, klen * es);
            });
        UCC_CO_TRY(co_await c.wait_all(reqs));
        // v_0 op v_1 op ... in group order, into the spare, then in place.
        uint8_t *own = acc + koff * es;
        auto operand = [&](uint32_t j) -> const uint8_t * {
            return j == mine ? in + koff * es : recvd + (j < mine ? j : j - 1) * part * es;
        };
        UCC_CO_TRY(c.reduce(spare, operand(0), operand(1), klen));
        for (uint32_t j = 2; j < k; ++j) {
            UCC_CO_TRY(c.reduce(spare, spare, operand(j), klen));
        }
        c.copy(own, spare, klen * es);
        lo += mine * w;
        hi = lo + w;
    }
    co_return UCC_OK;
}

Task knomial_allgather_runs(Coll &c, uint8_t *buf, KnomialRuns runs, uint32_t step) {
    const uint32_t r = c.rank();
    const uint32_t k = runs.shape.k;
    const size_t es = c.args().esize;
    uint32_t lo = r;  // [lo, hi): the runs this rank holds
    uint32_t hi = r + 1;
    for (uint32_t d = 1; d < runs.shape.p; d *= k, ++step) {
        const uint32_t mine = (r / d) % k;
        const uint32_t w = hi - lo;
        const uint32_t plo = lo - mine * w;
        uint64_t moff;
        uint64_t mlen;
        runs.range(lo, hi, &moff, &mlen);
        ReqList reqs = c.req_list(2 * (k - 1));
        exchange(
            c, reqs, r - mine * d, d, k, mine, step,
            [&](uint32_t) {
                return std::pair<const uint8_t *, size_t>(buf + moff * es, mlen * es);
            },
            [&](uint32_t j) {
                uint64_t off;
                uint64_t len;
                runs.range(plo + j * w, plo + (j + 1) * w, &off, &len);
                return std::pair<uint8_t *, size_t>(buf + off * es, len * es);
            });
        UCC_CO_TRY(co_await c.wait_all(reqs));
        lo = plo;
        hi = plo + k * w;
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll::patterns
