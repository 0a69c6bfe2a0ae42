// Reduce: k-nomial tree.
//
// The mirror image of the k-nomial bcast: with the root as virtual rank 0, every
// rank receives the partial results of all its children at once, folds them into
// its own contribution in a fixed order (own first, then children in tree order,
// whatever order they arrived in), and sends the result to its parent. Only the
// root's dst is written; other ranks accumulate in scratch memory.
// Cost: ceil(log_k n) levels; a rank with c children receives c vectors:
//   T = log_k n (L + (k-1)(o + m G + m gamma_reduce)).
// Constraints: none. In-place at the root: dst holds the root's input.
// Tag steps: 0.
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/reduce/reduce.h"

namespace ucc::coll {

// An inner node other than the root: its partial; every inner node: one
// vector per child.
void reduce_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const patterns::KnomialNode node =
        patterns::knomial_node(patterns::to_vrank(rank, a.root, n), n, a.radix);
    if (node.children.empty()) {
        return;
    }
    const size_t bytes = a.count * a.esize;
    if (rank != a.root) {
        plan.add(bytes);
    }
    plan.add(bytes * node.children.size());
}

Task reduce_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const bool is_root = c.rank() == a.root;
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    const size_t bytes = a.count * a.esize;
    const void *mine = a.inplace ? a.dst : a.src;
    uint8_t *acc = nullptr;
    if (is_root) {
        acc = static_cast<uint8_t *>(a.dst);
        c.copy(acc, mine, bytes);
    } else if (!node.children.empty()) {
        acc = c.scratch(bytes);
        c.copy(acc, mine, bytes);
    }
    if (!node.children.empty()) {
        uint8_t *in = c.scratch(bytes * node.children.size());
        ReqList recvs = c.req_list(node.children.size());
        for (size_t i = 0; i < node.children.size(); ++i) {
            recvs.push_back(c.recv(patterns::from_vrank(node.children[i], a.root, n), 0,
                                   in + i * bytes, bytes));
        }
        UCC_CO_TRY(co_await c.wait_all(recvs));
        // Children are listed largest subtree first; fold them in rank order.
        for (size_t i = node.children.size(); i-- > 0;) {
            UCC_CO_TRY(c.reduce(acc, acc, in + i * bytes, a.count));
        }
    }
    if (is_root) {
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    const uint32_t parent = patterns::from_vrank(static_cast<uint32_t>(node.parent), a.root, n);
    Req s = c.send(parent, 0, acc != nullptr ? acc : mine, bytes);
    co_return co_await c.wait(s);
}

}  // namespace ucc::coll
