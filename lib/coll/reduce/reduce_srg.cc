// Reduce: scatter-reduce-gather (ring reduce-scatter, k-nomial gather).
//
// The vector is cut into n near-equal blocks, block v belonging to virtual
// rank v (the root is 0). A ring reduce-scatter over the virtual ranks comes
// first: in step s rank v sends the partial of block v - s - 1 to v + 1 and
// receives the partial of block v - s - 2 from v - 1, folding in its own
// contribution as it arrives (in chunks of REDUCE_CHUNK, as the allreduce
// ring); after n - 1 steps rank v holds the reduction of block v. Then the
// blocks are gathered to the root up a radix-k k-nomial tree: a subtree
// covers the contiguous virtual ranks [v, v + span), so each rank sends its
// parent one contiguous range, its own block followed by its children's.
// Every block is reduced along the ring in a fixed order (the partial from
// the left first), so the result does not depend on timing.
// Cost: T = (n-1)(L + o) + (n-1)/n m (G + gamma) (reduce-scatter)
//   + log_k n (L + o) + (n-1)/n m G (gather, at the root)
//   ~ (n - 1 + log_k n)(L + o) + 2 m G + m gamma.
// Constraints: none (any n, root, radix and count; blocks may be empty when
// count < n). In-place at the root: dst holds the root's input.
// Scratch: two blocks (the partial in flight and the one arriving), and on
// a rank other than the root its subtree's blocks.
// Tag steps: 1 + s (reduce-scatter step s, modulo 2^11: between two
// neighbours the ring's messages go in order), 0 (gather).
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/reduce/reduce.h"

namespace ucc::coll {

namespace {

// Element range of the blocks of virtual ranks [v, v + span).
void blocks_range(const Args &a, uint32_t n, uint32_t v, uint32_t span, uint64_t *off,
                  uint64_t *len) {
    uint64_t last;
    uint64_t last_len;
    uint64_t first_len;
    patterns::block_range(a.count, n, v, off, &first_len);
    patterns::block_range(a.count, n, v + span - 1, &last, &last_len);
    *len = last + last_len - *off;
}

// Block 0 is a largest block.
size_t largest_block_bytes(const Args &a, uint32_t n) {
    uint64_t off;
    uint64_t len;
    patterns::block_range(a.count, n, 0, &off, &len);
    return len * a.esize;
}

size_t subtree_bytes(const Args &a, uint32_t v, uint32_t n) {
    uint64_t off;
    uint64_t len;
    blocks_range(a, n, v, patterns::knomial_span(v, n, a.radix), &off, &len);
    return len * a.esize;
}

}  // namespace

void reduce_srg_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    if (n == 1) {
        return;
    }
    plan.add(2 * largest_block_bytes(a, n));
    const uint32_t v = patterns::to_vrank(rank, a.root, n);
    if (v != 0) {
        plan.add(subtree_bytes(a, v, n));
    }
}

Task reduce_srg(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const size_t es = a.esize;
    const auto *own = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (n == 1) {
        c.copy(dst, own, a.count * es);
        c.finalize_result(dst, a.count);
        co_return UCC_OK;
    }
    const size_t block = largest_block_bytes(a, n);
    uint8_t *tmp[2];
    tmp[0] = c.scratch(2 * block);
    tmp[1] = tmp[0] + block;
    // Where this rank's subtree's blocks gather: dst at the root, elsewhere
    // scratch whose element `origin` is block v's first.
    uint64_t origin = 0;
    uint64_t len;
    if (v != 0) {
        blocks_range(a, n, v, 1, &origin, &len);
    }
    uint8_t *gather = v == 0 ? dst : c.scratch(subtree_bytes(a, v, n));
    const uint32_t right = patterns::from_vrank((v + 1) % n, a.root, n);
    const uint32_t left = patterns::from_vrank((v + n - 1) % n, a.root, n);
    for (uint32_t s = 0; s + 1 < n; ++s) {
        uint64_t soff;
        uint64_t slen;
        uint64_t roff;
        uint64_t rlen;
        blocks_range(a, n, (v + 2 * n - s - 1) % n, 1, &soff, &slen);
        blocks_range(a, n, (v + 2 * n - s - 2) % n, 1, &roff, &rlen);
        // Step 0 sends this rank's own contribution; later steps the partial
        // reduced in the step before. The last step's result is block v.
        const uint8_t *sbuf = s == 0 ? own + soff * es : tmp[(s + 1) % 2];
        uint8_t *rbuf = tmp[s % 2];
        uint8_t *out = s + 2 == n ? gather + (roff - origin) * es : rbuf;
        UCC_CO_TRY(co_await send_recv_reduce(c, right, sbuf, slen, left, rbuf, rlen, out,
                                             own + roff * es, 1 + s));
    }
    // Gather up the k-nomial tree: the children's subtrees after block v.
    const patterns::KnomialNode node = patterns::knomial_node(v, n, a.radix);
    ReqList recvs = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        uint64_t off;
        uint64_t clen;
        blocks_range(a, n, child, patterns::knomial_span(child, n, a.radix), &off, &clen);
        recvs.push_back(c.recv(patterns::from_vrank(child, a.root, n), 0,
                               gather + (off - origin) * es, clen * es));
    }
    UCC_CO_TRY(co_await c.wait_all(recvs));
    if (v == 0) {
        c.finalize_result(dst, a.count);
        co_return UCC_OK;
    }
    const uint32_t parent = patterns::from_vrank(static_cast<uint32_t>(node.parent), a.root, n);
    Req snd = c.send(parent, 0, gather, subtree_bytes(a, v, n));
    co_return co_await c.wait(snd);
}

}  // namespace ucc::coll
