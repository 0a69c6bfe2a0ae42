// Bcast: scatter-allgather (k-nomial scatter, ring allgather).
//
// The buffer is cut into n near-equal blocks, block v belonging to virtual
// rank v (the root is 0). The root scatters them down a radix-k k-nomial tree
// (patterns/knomial.h): a subtree covers the contiguous virtual ranks
// [v, v + span), so each child receives its subtree's blocks, one contiguous
// range of the buffer, straight into place and passes its children theirs.
// Then a ring allgather over the virtual ranks completes every buffer: in
// step s rank v sends block v - s to v + 1 and receives block v - s - 1 from
// v - 1. The root has every block already: it only sends, and its left
// neighbour sends it nothing, so the ring is a chain starting at the root.
// The root sends (n-1)/n m once and every rank forwards about m: twice the
// bytes of one message, but spread over all links, so large buffers go at
// the links' bandwidth whatever n.
// Cost: T = log_k n (L + o) + (n-1)/n m G (scatter, at the root)
//   + (n-1)(L + o + m/n G) (allgather) ~ (log_k n + n - 1)(L + o) + 2 m G.
// Constraints: none (any n, root, radix and count; blocks may be empty when
// count < n). IN_PLACE is meaningless for bcast and ignored.
// Tag steps: 0 (scatter), 1 + s (allgather step s, modulo 2^11: between two
// neighbours the ring's messages go in order).
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

namespace {

// Byte range of the blocks of virtual ranks [v, v + span).
void blocks_range(const Args &a, uint32_t n, uint32_t v, uint32_t span, size_t *off, size_t *len) {
    uint64_t first;
    uint64_t first_len;
    uint64_t last;
    uint64_t last_len;
    patterns::block_range(a.count, n, v, &first, &first_len);
    patterns::block_range(a.count, n, v + span - 1, &last, &last_len);
    *off = first * a.esize;
    *len = (last + last_len - first) * a.esize;
}

}  // namespace

Task bcast_sag_knomial(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    auto *buf = static_cast<uint8_t *>(a.src);
    size_t off;
    size_t len;
    // Scatter: this rank's subtree's blocks from its parent, then its
    // children's subtrees to them.
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    if (node.parent >= 0) {
        blocks_range(a, n, v, patterns::knomial_span(v, n, a.radix), &off, &len);
        Req q = c.recv(patterns::from_vrank(static_cast<uint32_t>(node.parent), a.root, n), 0,
                       buf + off, len);
        UCC_CO_TRY(co_await c.wait(q));
    }
    ReqList sends = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        blocks_range(a, n, child, patterns::knomial_span(child, n, a.radix), &off, &len);
        sends.push_back(c.send(patterns::from_vrank(child, a.root, n), 0, buf + off, len));
    }
    UCC_CO_TRY(co_await c.wait_all(sends));
    // Allgather around the ring of virtual ranks, the root at its head.
    const uint32_t right = patterns::from_vrank((v + 1) % n, a.root, n);
    const uint32_t left = patterns::from_vrank((v + n - 1) % n, a.root, n);
    for (uint32_t s = 0; s + 1 < n; ++s) {
        Req snd;
        Req rcv;
        if (v + 1 < n) {
            blocks_range(a, n, (v + n - s) % n, 1, &off, &len);
            snd = c.send(right, 1 + s, buf + off, len);
        }
        if (v != 0) {
            blocks_range(a, n, (v + 2 * n - s - 1) % n, 1, &off, &len);
            rcv = c.recv(left, 1 + s, buf + off, len);
        }
        UCC_CO_TRY(co_await c.wait(snd, rcv));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
