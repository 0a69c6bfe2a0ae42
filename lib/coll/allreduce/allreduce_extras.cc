// Allreduce: the extra ranks of recursive multiplying (knomial, sra_knomial).
//
// With p the largest power of the radix <= n, ranks p..n-1 take no part in
// the rounds: each hands its vector to proxy r mod p (step 0) and receives
// the result from it (step 1000). A proxy folds its extras in rank order
// before the rounds and sends them the result after.
#include "lib/coll/allreduce/allreduce.h"

namespace ucc::coll {

Task allreduce_extra(Coll &c, uint8_t *acc, uint32_t p) {
    const size_t bytes = c.args().count * c.args().esize;
    Req s = c.send(c.rank() % p, 0, acc, bytes);
    Req q = c.recv(c.rank() % p, 1000, acc, bytes);
    co_return co_await c.wait(s, q);
}

Task allreduce_fold_in_extras(Coll &c, uint8_t *acc, uint8_t *tmp, uint32_t p) {
    const Args &a = c.args();
    for (uint32_t e = c.rank() + p; e < c.size(); e += p) {
        Req q = c.recv(e, 0, tmp, a.count * a.esize);
        UCC_CO_TRY(co_await c.wait(q));
        UCC_CO_TRY(c.reduce(acc, acc, tmp, a.count));
    }
    co_return UCC_OK;
}

Task allreduce_fold_out_extras(Coll &c, const uint8_t *acc, uint32_t p) {
    const uint32_t r = c.rank();
    if (r + p >= c.size()) {
        co_return UCC_OK;
    }
    ReqList out = c.req_list((c.size() - 1 - r) / p);
    for (uint32_t e = r + p; e < c.size(); e += p) {
        out.push_back(c.send(e, 1000, acc, c.args().count * c.args().esize));
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
