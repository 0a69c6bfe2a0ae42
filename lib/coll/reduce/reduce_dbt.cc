// Reduce: double binary tree, pipelined.
//
// The mirror image of the dbt bcast: the ranks other than the root form two
// binary trees (patterns/dbt.h), every rank an inner node of at most one. The
// vector is cut into segments (REDUCE_SEGMENT bytes); even segments are
// reduced up tree 0, odd ones up tree 1. For each segment of its tree an inner
// node receives its children's partials and combines them in the tree's
// in-order, left child, own, right child, whatever order they arrived in,
// then sends the partial on; a leaf sends its own segment. The root combines
// its own segment with the tree root's partial. Receives run kWindow segments
// ahead, so a rank reduces one segment while the next are in flight, and each
// tree runs as its own task (when_all): neither holds the other up.
// The combining order is fixed by the trees alone: the result is bitwise the
// same whatever the timing.
// Cost: depth d = floor(log2(n-1)) + 1, S = segment bytes, m/S segments:
//   T ~ 2 d (L + 2(o + S G) + S gamma) + (m/S) max(2o + S gamma + S G/2, S G):
//   per segment the busiest rank receives, combines and sends one, and of its
//   two sends per two segments one waits behind the combine.
// Constraints: none (any n, root and count). In-place at the root: dst holds
// the root's input.
// Scratch: an inner node, kWindow x (children + 1) segments of its tree; the
// root kWindow segments per tree.
// Tag steps: t (tree t's segments), relying on per-(peer, tag) in-order
// matching.
#include "lib/coll/patterns/dbt.h"
#include "lib/coll/reduce/reduce.h"

namespace ucc::coll {

namespace {

// Segments of one tree whose transfers may be in flight at once.
constexpr uint64_t kWindow = 8;

// Tree t's scratch at virtual rank v: `slots` slots of `bufs` segments (the
// children's partials, then the rank's own partial; at the root, the tree
// root's partial).
struct TreeScratch {
    uint64_t slots = 0;
    uint64_t bufs = 0;
    size_t seg_bytes = 0;
    size_t bytes() const { return slots * bufs * seg_bytes; }
};

TreeScratch tree_scratch(const Args &a, uint32_t t, uint32_t v, uint32_t n) {
    TreeScratch ts;
    const patterns::Segments seg(a.count, a.esize, a.segment_bytes);
    const uint32_t children = patterns::dbt_rank_links(t, v, n).children();
    ts.slots = std::min(kWindow, (seg.n + 1 - t) / 2);
    ts.bufs = v == 0 ? 1 : (children == 0 ? 0 : children + 1);
    ts.seg_bytes = seg.elems * a.esize;
    return ts;
}

// Tree t's segments (2k + t) at virtual rank v: the children's partials
// received into `scratch`, folded in in-order with the rank's own segment and
// sent to the parent (at the root: into dst); segment k uses slot k % kWindow.
Task reduce_tree(Coll &c, uint32_t t, uint32_t v, uint8_t *scratch) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t es = a.esize;
    const patterns::Segments seg(a.count, es, a.segment_bytes);
    const patterns::BtreeLinks l = patterns::dbt_rank_links(t, v, n);
    const TreeScratch ts = tree_scratch(a, t, v, n);
    const auto *own = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    auto *dst = static_cast<uint8_t *>(a.dst);
    auto peer = [&](int64_t vrank) {
        return patterns::from_vrank(static_cast<uint32_t>(vrank), a.root, n);
    };
    auto buf = [&](uint64_t slot, uint32_t j) {
        return scratch + (slot * ts.bufs + j) * ts.seg_bytes;
    };
    const uint64_t segs = (seg.n + 1 - t) / 2;
    const int64_t from[2] = {l.left, l.right};
    Req recvs[kWindow][2];
    Req sends[kWindow];
    auto post_recvs = [&](uint64_t k) {
        for (uint32_t j = 0; j < 2; ++j) {
            if (from[j] >= 0) {
                recvs[k % kWindow][j] =
                    c.recv(peer(from[j]), t, buf(k % kWindow, j), seg.len(2 * k + t) * es);
            }
        }
    };
    for (uint64_t k = 0; k < std::min(kWindow, segs); ++k) {
        post_recvs(k);
    }
    for (uint64_t k = 0; k < segs; ++k) {
        const uint64_t slot = k % kWindow;
        const uint64_t len = seg.len(2 * k + t);
        const uint64_t off = seg.offset(2 * k + t) * es;
        // The children's partials in, and the slot's send of segment k - kWindow out.
        UCC_CO_TRY(co_await c.wait(recvs[slot][0], recvs[slot][1], sends[slot]));
        if (v == 0) {
            UCC_CO_TRY(c.reduce(dst + off, own + off, buf(slot, 0), len));
        } else {
            const uint8_t *partial = own + off;
            if (l.left >= 0) {
                uint8_t *acc = buf(slot, l.children());
                UCC_CO_TRY(c.reduce(acc, buf(slot, 0), own + off, len));
                if (l.right >= 0) {
                    UCC_CO_TRY(c.reduce(acc, acc, buf(slot, 1), len));
                }
                partial = acc;
            }
            sends[slot] = c.send(peer(l.parent), t, partial, len * es);
        }
        if (k + kWindow < segs) {
            post_recvs(k + kWindow);
        }
    }
    for (uint64_t slot = 0; slot < kWindow; ++slot) {
        UCC_CO_TRY(co_await c.wait(sends[slot]));
    }
    co_return UCC_OK;
}

}  // namespace

void reduce_dbt_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    if (n == 1 || a.count == 0) {
        return;
    }
    const uint32_t v = patterns::to_vrank(rank, a.root, n);
    const size_t bytes = tree_scratch(a, 0, v, n).bytes() + tree_scratch(a, 1, v, n).bytes();
    if (bytes != 0) {
        plan.add(bytes);
    }
}

Task reduce_dbt(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (n == 1 && !a.inplace) {
        c.copy(dst, a.src, a.count * a.esize);
    }
    if (n > 1 && a.count != 0) {
        const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
        const size_t bytes0 = tree_scratch(a, 0, v, n).bytes();
        const size_t bytes = bytes0 + tree_scratch(a, 1, v, n).bytes();
        uint8_t *scratch = bytes != 0 ? c.scratch(bytes) : nullptr;
        UCC_CO_TRY(co_await when_all(c, reduce_tree(c, 0, v, scratch),
                                     reduce_tree(c, 1, v, scratch + bytes0)));
        if (v != 0) {
            co_return UCC_OK;
        }
    }
    c.finalize_result(dst, a.count);
    co_return UCC_OK;
}

}  // namespace ucc::coll
