// Fan-in: k-nomial tree towards the root.
//
// With the root as virtual rank 0, every rank waits for an empty message from
// each of its children, then sends one to its parent. The root completes once
// every rank has entered; a leaf completes as soon as its message is sent, so
// it never waits for the root or for ranks outside its subtree.
// Cost: ceil(log_k n) levels: T = log_k n (L + (k-1) o).
// Constraints: none (no buffers). Tag steps: 0.
#include "lib/coll/fanin/fanin.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

Task fanin_knomial(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t root = c.args().root;
    const patterns::KnomialNode node =
        patterns::knomial_node(patterns::to_vrank(c.rank(), root, n), n, c.args().radix);
    ReqList in = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        in.push_back(c.recv(patterns::from_vrank(child, root, n), 0, nullptr, 0));
    }
    UCC_CO_TRY(co_await c.wait_all(in));
    if (node.parent < 0) {
        co_return UCC_OK;
    }
    Req s =
        c.send(patterns::from_vrank(static_cast<uint32_t>(node.parent), root, n), 0, nullptr, 0);
    co_return co_await c.wait(s);
}

// Fan-in: linear. Every non-root sends one empty message to the root, which
// waits for all n-1. One level, n-1 messages at the root.
Task fanin_linear(Coll &c) {
    const uint32_t n = c.size();
    const uint32_t root = c.args().root;
    if (c.rank() != root) {
        Req s = c.send(root, 0, nullptr, 0);
        co_return co_await c.wait(s);
    }
    ReqList in = c.req_list(n - 1);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != root) {
            in.push_back(c.recv(r, 0, nullptr, 0));
        }
    }
    co_return co_await c.wait_all(in);
}

}  // namespace ucc::coll
