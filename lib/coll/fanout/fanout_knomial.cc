// Fan-out: k-nomial tree from the root.
//
// The mirror image of fan-in: the root sends an empty message to each of its
// children and completes; every other rank completes when its parent's message
// has arrived and it has passed the message on to its own children.
// Cost: ceil(log_k n) levels: T = log_k n (L + (k-1) o).
// Constraints: none (no buffers). Tag steps: 0.
#include "lib/coll/fanout/fanout.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task fanout_knomial(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t root = c.args().root;
    const patterns::KnomialNode node =
        patterns::knomial_node(patterns::to_vrank(c.rank(), root, n), n, c.args().radix);
    if (node.parent >= 0) {
        Req q = c.recv(patterns::from_vrank(static_cast<uint32_t>(node.parent), root, n), 0,
                       nullptr, 0);
        UCC_CO_TRY(co_await c.wait(q));
    }
    ReqList out = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        out.push_back(c.send(patterns::from_vrank(child, root, n), 0, nullptr, 0));
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
