// Barrier: dissemination (the recursive-doubling family, any team size).
//
// In round i every rank sends an empty message to rank r + 2^i and waits for
// one from rank r - 2^i (mod n). After ceil(log2 n) rounds each rank has heard,
// directly or transitively, from every other rank, so none leaves before all
// have entered.
// Cost: ceil(log2 n) rounds: T = ceil(log2 n)(L + 2o).
// Constraints: none. Tag steps: 1..ceil(log2 n).
#include "lib/coll/barrier/barrier.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task barrier_dissemination(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= 2, ++step) {
        const auto dist = static_cast<uint32_t>(d);
        Req s = c.send((r + dist) % n, step, nullptr, 0);
        Req q = c.recv((r + n - dist) % n, step, nullptr, 0);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
