// Bcast: k-nomial tree.
//
// Ranks are renumbered so the root is virtual rank 0 and arranged in a radix-k
// tree (patterns/knomial.h): every rank receives the whole buffer from its
// parent, then forwards it to all its children at once. Radix 2 is the binomial
// tree; a larger radix trades depth (log_k n) for more sends per rank.
// Cost: ceil(log_k n) levels, each (k-1) sends from one rank:
//   T = log_k n (L + (k-1)(o + m G)).
// Constraints: none; IN_PLACE is meaningless for bcast and ignored.
// Tag steps: 0.
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task bcast_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    const size_t bytes = a.count * a.esize;
    void *buf = a.src;
    if (node.parent >= 0) {
        Req q = c.recv(patterns::from_vrank(static_cast<uint32_t>(node.parent), a.root, n), 0, buf,
                       bytes);
        UCC_CO_TRY(co_await c.wait(q));
    }
    ReqList sends = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        sends.push_back(c.send(patterns::from_vrank(child, a.root, n), 0, buf, bytes));
    }
    co_return co_await c.wait_all(sends);
}

}  // namespace ucc::coll
