// Gather: k-nomial tree.
//
// With the root as virtual rank 0, the subtree of every rank covers a
// contiguous range of virtual ranks (patterns::knomial_span). A rank collects
// its children's ranges behind its own block and sends the whole range to its
// parent; the root finally rotates the blocks from virtual to real rank order.
// Cost: ceil(log_k n) levels; the root receives (n-1) B bytes:
//   T = log_k n (L + o) + (n-1) B G.
// Constraints: none. Scratch: span*B per rank. In-place at the root: its block
// is already at root*B. Tag steps: 0.
#include "lib/coll/gather/gather.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

// The root and every inner node: its subtree's blocks, in virtual-rank order.
void gather_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const uint32_t v = patterns::to_vrank(rank, a.root, n);
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    if (!node.children.empty() || node.parent < 0) {
        plan.add(patterns::knomial_span(v, n, a.radix) * a.count * a.esize);
    }
}

Task gather_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t root = a.root;
    const size_t block = a.count * a.esize;
    const uint32_t v = patterns::to_vrank(c.rank(), root, n);
    const uint32_t k = a.radix;
    const patterns::KnomialNode node = patterns::knomial_node(v, n, k);
    const uint32_t span = patterns::knomial_span(v, n, k);
    auto *dst = static_cast<uint8_t *>(a.dst);
    const void *mine = a.inplace ? dst + static_cast<size_t>(root) * block : a.src;
    if (node.children.empty() && node.parent >= 0) {
        Req s = c.send(patterns::from_vrank(static_cast<uint32_t>(node.parent), root, n), 0, mine,
                       block);
        co_return co_await c.wait(s);
    }
    uint8_t *tmp = c.scratch(span * block);
    c.copy(tmp, mine, block);
    ReqList in = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        in.push_back(c.recv(patterns::from_vrank(child, root, n), 0, tmp + (child - v) * block,
                            patterns::knomial_span(child, n, k) * block));
    }
    UCC_CO_TRY(co_await c.wait_all(in));
    if (node.parent >= 0) {
        Req s = c.send(patterns::from_vrank(static_cast<uint32_t>(node.parent), root, n), 0, tmp,
                       span * block);
        co_return co_await c.wait(s);
    }
    for (uint32_t i = 0; i < n; ++i) {
        c.copy(dst + static_cast<size_t>(patterns::from_vrank(i, root, n)) * block, tmp + i * block,
               block);
    }
    co_return UCC_OK;
}

// Gather: linear. The root posts one receive per rank straight into place;
// every other rank sends its block. One level; the root handles n-1 messages.
Task gather_linear(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (c.rank() != a.root) {
        Req s = c.send(a.root, 0, a.src, block);
        co_return co_await c.wait(s);
    }
    if (!a.inplace) {
        c.copy(dst + static_cast<size_t>(a.root) * block, a.src, block);
    }
    ReqList in = c.req_list(n - 1);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != a.root) {
            in.push_back(c.recv(r, 0, dst + static_cast<size_t>(r) * block, block));
        }
    }
    co_return co_await c.wait_all(in);
}

}  // namespace ucc::coll
