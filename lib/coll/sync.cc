// Synchronised collectives (UCC_SYNC_COLLECTIVES): the algorithm runs between
// two dissemination barriers on the core's own step space, so their messages
// never match the algorithm's.
#include "lib/coll/coll.h"

namespace ucc::coll {

namespace {

Task sync_barrier(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    c.set_step_space(tag::kSyncSteps);
    uint32_t step = 1;
    ucc_status_t st = UCC_OK;
    for (uint64_t d = 1; d < n && st == UCC_OK; d *= 2, ++step) {
        const auto dist = static_cast<uint32_t>(d);
        Req s = c.send((r + dist) % n, step, nullptr, 0);
        Req q = c.recv((r + n - dist) % n, step, nullptr, 0);
        st = co_await c.wait(s, q);
    }
    c.set_step_space(0);
    co_return st;
}

}  // namespace

Task run_synchronized(Coll &c, AlgFn alg) {
    UCC_CO_TRY(co_await sync_barrier(c));
    UCC_CO_TRY(co_await alg(c));
    co_return co_await sync_barrier(c);
}

}  // namespace ucc::coll
