// Barrier: k-ary dissemination (Hensgen, Finkel and Manber's dissemination
// barrier with k - 1 partners a round, the "n-way dissemination" of Hoefler,
// Mehlan, Mietke and Rehm, 2006; k = 2 is the classic one).
//
// In round i (distance d = k^i) every rank sends an empty message to each
// rank r + j d and waits for one from each rank r - j d (mod n), for
// j = 1 .. k-1 with j d < n. By induction, after round i a rank has heard,
// directly or through a partner, from the k^(i+1) - 1 ranks before it (or
// all of them), so after ceil(log_k n) rounds none leaves before every rank
// has entered. The rounds are as many as a k-nomial tree's depth, half the
// fan-in + fan-out's, each with k - 1 messages each way; the radix trades
// rounds for the messages' CPU time (small k where o is large against L).
// Cost: ceil(log_k n) rounds: T = ceil(log_k n)(L + 2(k-1) o), the sends and
//   receives of a round overlapping the flight.
// Constraints: any n; k = the radix (BARRIER_DISSEMINATION_RADIX, lowered
//   to n, at least 2). Tag steps: 1..ceil(log_k n).
#include "lib/coll/barrier/barrier.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task barrier_dissemination(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const uint64_t k = patterns::lowered_radix(c.args().radix, n);
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= k, ++step) {
        ReqList reqs = c.req_list(2 * (k - 1));
        for (uint64_t dist = d; dist < n && dist < k * d; dist += d) {
            reqs.push_back(c.send(static_cast<uint32_t>((r + dist) % n), step, nullptr, 0));
            reqs.push_back(c.recv(static_cast<uint32_t>((r + n - dist) % n), step, nullptr, 0));
        }
        UCC_CO_TRY(co_await c.wait_all(reqs));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
