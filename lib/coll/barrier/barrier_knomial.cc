// Barrier: k-nomial fan-in then fan-out.
//
// Every rank waits for an empty message from each of its children in a radix-k
// tree rooted at rank 0, reports to its parent, then waits for the release from
// its parent and passes it on to its children. Fewer messages than
// dissemination (2(n-1) in total), twice the depth.
// Cost: 2 ceil(log_k n) levels: T = 2 log_k n (L + (k-1) o).
// Constraints: none. Tag steps: 0 (fan-in), 1 (fan-out).
#include "lib/coll/barrier/barrier.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task barrier_knomial(Coll &c) {
    const uint32_t n = c.size();
    const patterns::KnomialNode node = patterns::knomial_node(c.rank(), n, c.args().radix);
    {
        ReqList in = c.req_list(node.children.size());
        for (uint32_t child : node.children) {
            in.push_back(c.recv(child, 0, nullptr, 0));
        }
        UCC_CO_TRY(co_await c.wait_all(in));
    }
    if (node.parent >= 0) {
        const auto parent = static_cast<uint32_t>(node.parent);
        Req s = c.send(parent, 0, nullptr, 0);
        Req q = c.recv(parent, 1, nullptr, 0);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    ReqList out = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        out.push_back(c.send(child, 1, nullptr, 0));
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
