// Reduce: scatter-reduce-gather (the reference's tl/ucp srg_knomial;
// Rabenseifner's reduce with an arbitrary radix).
//
// Ranks are taken relative to the root (virtual rank v = r - root mod n,
// the root 0). When n is a power of the radix k, k^2 at least, a k-nomial
// scatter-reduce (patterns/knomial_rounds.h, run on the team rotated:
// subgroup.h RotatedEnv; its first round reads the rank's own vector, so
// nothing is copied) leaves run v of n near-equal runs, reduced, at virtual
// rank v in log_k n rounds. Otherwise (one round saves the ring no step) a ring
// reduce-scatter does, in n - 1 steps: in step s rank v sends the partial of
// block v - s - 1 to v + 1 and receives the partial of block v - s - 2 from
// v - 1, folding in its own contribution as it arrives (in chunks of
// REDUCE_CHUNK, as the allreduce ring); extras folded into proxies, as the
// k-nomial allreduce does, would cost a whole vector's transfer. Then the
// blocks gather to the root up a radix-k k-nomial tree: a subtree covers the
// contiguous virtual ranks [v, v + span), so each rank sends its parent one
// contiguous range, its own block followed by its children's. Every block is
// reduced on one rank in a fixed order: the result does not depend on timing.
// Cost (k-nomial, n = k^j, j >= 2): T = log_k n (L + (k-1) o) + (n-1)/n m (G + gamma)
//   + log_k n (L + o) + (n-1)/n m G (gather, at the root);
// (ring): T = (n-1)(L + o) + (n-1)/n m (G + gamma) + log_k n (L + o)
//   + (n-1)/n m G.
// Constraints: none (any n, root, radix and count; blocks may be empty when
// count < n). In place at the root: dst holds its input.
// Scratch (k-nomial): the scatter-reduce's parts and, but at the root, the
// vector; (ring): two blocks, and but at the root its subtree's blocks.
// Tag steps: 1 + s (reduce-scatter step or round s, the ring's modulo
// 2^11), 0 (gather of the ring), 1000 (gather of the k-nomial rounds).
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/knomial_rounds.h"
#include "lib/coll/reduce/reduce.h"
#include "lib/coll/subgroup.h"

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

patterns::KnomialRuns element_runs(const Args &a, uint32_t n) {
    return {patterns::multiply_shape(a.radix, n), a.count, 1};
}

// Whether the k-nomial rounds run: n a power of the radix, two rounds at
// least (one round saves the ring no step).
bool knomial_fits(const Args &a, uint32_t n) {
    const patterns::MultiplyShape s = patterns::multiply_shape(a.radix, n);
    return s.p == n && n > s.k;
}

void ring_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    plan.add(2 * largest_block_bytes(a, n));
    const uint32_t v = patterns::to_vrank(rank, a.root, n);
    if (v != 0) {
        plan.add(subtree_bytes(a, v, n));
    }
}

// The ring reduce-scatter and the gather of n blocks (any n).
Task srg_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const size_t es = a.esize;
    const auto *own = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    auto *dst = static_cast<uint8_t *>(a.dst);
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

// The k-nomial scatter-reduce and gather on the team seen from the root
// (virtual rank c.rank(), the root 0); acc: the whole vector (the root's
// dst), work: the scatter-reduce's parts.
Task srg_knomial(Coll &c, const uint8_t *own, uint8_t *acc, uint8_t *work) {
    const Args &a = c.args();
    const uint32_t v = c.rank();
    const patterns::KnomialRuns runs = element_runs(a, c.size());
    const uint32_t n = runs.shape.p;
    // (The first round reads own: acc holds nothing before.)
    UCC_CO_TRY(co_await patterns::knomial_scatter_reduce(c, acc, work, runs, 1,
                                                         acc != own ? own : nullptr));
    const patterns::KnomialNode node = patterns::knomial_node(v, n, runs.shape.k);
    ReqList recvs = c.req_list(node.children.size());
    for (uint32_t child : node.children) {
        uint64_t off;
        uint64_t len;
        runs.range(child, child + patterns::knomial_span(child, n, runs.shape.k), &off, &len);
        recvs.push_back(c.recv(child, 1000, acc + off * a.esize, len * a.esize));
    }
    UCC_CO_TRY(co_await c.wait_all(recvs));
    if (v == 0) {
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    uint64_t off;
    uint64_t len;
    runs.range(v, v + patterns::knomial_span(v, n, runs.shape.k), &off, &len);
    Req snd = c.send(static_cast<uint32_t>(node.parent), 1000, acc + off * a.esize, len * a.esize);
    co_return co_await c.wait(snd);
}

}  // namespace

void reduce_srg_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    if (n == 1) {
        return;
    }
    if (!knomial_fits(a, n)) {
        ring_scratch(a, rank, n, plan);
        return;
    }
    plan.add(patterns::knomial_scatter_reduce_scratch(element_runs(a, n), a.esize));
    if (patterns::to_vrank(rank, a.root, n) != 0) {
        plan.add(a.count * a.esize);
    }
}

Task reduce_srg(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const size_t bytes = a.count * a.esize;
    const auto *own = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    if (n == 1) {
        c.copy(a.dst, own, bytes);
        c.finalize_result(a.dst, a.count);
        co_return UCC_OK;
    }
    if (!knomial_fits(a, n)) {
        co_return co_await srg_ring(c);
    }
    uint8_t *work =
        c.scratch(patterns::knomial_scatter_reduce_scratch(element_runs(a, n), a.esize));
    uint8_t *acc = v == 0 ? static_cast<uint8_t *>(a.dst) : c.scratch(bytes);
    if (a.root == 0) {
        co_return co_await srg_knomial(c, own, acc, work);
    }
    Args rotated = a;
    rotated.root = 0;
    RotatedEnv env(c.env(), a.root, n);
    Coll view(env, rotated, v, n, c.tag_base());
    view.inherit(c);
    co_return co_await srg_knomial(view, own, acc, work);
}

}  // namespace ucc::coll
