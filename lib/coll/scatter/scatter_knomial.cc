// Scatter: k-nomial tree.
//
// The mirror image of the k-nomial gather: the root lays the blocks out in
// virtual-rank order and sends each child the contiguous range of its subtree;
// every rank keeps its own block and forwards its children's sub-ranges.
// Cost: ceil(log_k n) levels; the root sends (n-1) B bytes:
//   T = log_k n (L + o) + (n-1) B G.
// Constraints: none. Scratch: span*B per rank (n*B at the root). In-place at
// the root: its own block stays in src and nothing is written to dst.
// Tag steps: 0.
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/scatter/scatter.h"

namespace ucc::coll {

// The root and every inner node: the blocks of its subtree, in virtual-rank order.
void scatter_knomial_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const uint32_t v = patterns::to_vrank(rank, a.root, n);
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    if (node.parent < 0 || !node.children.empty()) {
        plan.add(patterns::knomial_span(v, n, a.radix) * a.count * a.esize);
    }
}

Task scatter_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t root = a.root;
    const size_t block = a.count * a.esize;
    const uint32_t v = patterns::to_vrank(c.rank(), root, n);
    const uint32_t k = a.radix;
    const patterns::KnomialNode node = patterns::knomial_node(v, n, k);
    const uint32_t span = patterns::knomial_span(v, n, k);
    uint8_t *tmp = nullptr;
    if (node.parent < 0) {
        tmp = c.scratch(span * block);
        const auto *src = static_cast<const uint8_t *>(a.src);
        for (uint32_t i = 0; i < n; ++i) {
            c.copy(tmp + i * block,
                   src + static_cast<size_t>(patterns::from_vrank(i, root, n)) * block, block);
        }
    } else {
        tmp = node.children.empty() ? static_cast<uint8_t *>(a.dst) : c.scratch(span * block);
        Req q = c.recv(patterns::from_vrank(static_cast<uint32_t>(node.parent), root, n), 0, tmp,
                       span * block);
        UCC_CO_TRY(co_await c.wait(q));
    }
    ReqList out = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        out.push_back(c.send(patterns::from_vrank(child, root, n), 0, tmp + (child - v) * block,
                             patterns::knomial_span(child, n, k) * block));
    }
    UCC_CO_TRY(co_await c.wait_all(out));
    if (!a.inplace && tmp != a.dst) {
        c.copy(a.dst, tmp, block);
    }
    co_return UCC_OK;
}

// Scatter: linear. The root sends every rank its block directly. One level;
// the root handles n-1 messages. It posts them before copying its own block,
// so receivers that pull their blocks (a rendezvous) do so meanwhile.
Task scatter_linear(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t block = a.count * a.esize;
    const auto *src = static_cast<const uint8_t *>(a.src);
    if (c.rank() != a.root) {
        Req q = c.recv(a.root, 0, a.dst, block);
        co_return co_await c.wait(q);
    }
    ReqList out = c.req_list(n - 1);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != a.root) {
            out.push_back(c.send(r, 0, src + static_cast<size_t>(r) * block, block));
        }
    }
    if (!a.inplace) {
        c.copy(a.dst, src + static_cast<size_t>(a.root) * block, block);
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
