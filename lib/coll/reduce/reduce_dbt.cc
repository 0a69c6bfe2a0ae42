// Reduce: double binary tree, pipelined.
//
// The mirror image of the dbt bcast: the ranks other than the root form two
// binary trees (patterns/dbt.h), every rank an inner node of at most one. The
// vector is cut into segments (REDUCE_SEGMENT bytes); even segments are
// reduced up tree 0, odd ones up tree 1. For each segment of its tree an inner
// node receives its children's partials and combines them in the tree's
// in-order, left child, own, right child, whatever order they arrived in,
// then sends the partial on; a leaf sends its own segment. The root combines
// its own segment with the tree root's partial. Receives run kWindow segment
// pairs ahead, so a rank reduces one segment while the next are in flight.
// The combining order is fixed by the trees alone: the result is bitwise the
// same whatever the timing.
// Cost: depth d = floor(log2(n-1)) + 1, S = segment bytes, m/S segments:
//   T ~ 2 d (L + 2(o + S G) + S gamma) + m G + m/2 gamma + 2 (m/S) o.
// Constraints: none (any n, root and count). In-place at the root: dst holds
// the root's input.
// Scratch: an inner node, kWindow x (children + 1) segments of its tree; the
// root kWindow x 2 segments.
// Tag steps: t (tree t's segments), relying on per-(peer, tag) in-order
// matching.
#include "lib/coll/patterns/dbt.h"
#include "lib/coll/reduce/reduce.h"

namespace ucc::coll {

namespace {

// Segment pairs (one per tree) whose transfers may be in flight at once.
constexpr uint64_t kWindow = 4;

// Where rank `v`'s segments of tree t come from, and the scratch they need:
// `bufs` segment buffers per slot (the children's partials and the rank's
// own, or for the root one per tree), for `slots` slots.
struct Layout {
    uint64_t slots = 0;
    uint64_t bufs = 0;
    size_t seg_bytes = 0;
    size_t bytes() const { return slots * bufs * seg_bytes; }
};

Layout layout_of(const Args &a, uint32_t v, uint32_t n) {
    Layout l;
    const patterns::Segments seg(a.count, a.esize, a.segment_bytes);
    if (n == 1 || seg.n == 0) {
        return l;
    }
    l.slots = std::min(kWindow, (seg.n + 1) / 2);
    l.seg_bytes = seg.elems * a.esize;
    for (uint32_t t = 0; t < 2 && t < seg.n; ++t) {
        const uint32_t children = patterns::dbt_rank_links(t, v, n).children();
        l.bufs += v == 0 ? 1 : (children == 0 ? 0 : children + 1);
    }
    return l;
}

}  // namespace

void reduce_dbt_scratch(const Args &a, uint32_t rank, uint32_t n, ScratchPlan &plan) {
    const Layout l = layout_of(a, patterns::to_vrank(rank, a.root, n), n);
    if (l.bytes() != 0) {
        plan.add(l.bytes());
    }
}

Task reduce_dbt(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const size_t es = a.esize;
    const patterns::Segments seg(a.count, es, a.segment_bytes);
    const auto *own = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (n == 1 && !a.inplace) {
        c.copy(dst, own, seg.count * es);
    }
    if (n == 1 || seg.n == 0) {
        c.finalize_result(dst, seg.count);
        co_return UCC_OK;
    }
    const patterns::BtreeLinks links[2] = {patterns::dbt_rank_links(0, v, n),
                                           patterns::dbt_rank_links(1, v, n)};
    const Layout l = layout_of(a, v, n);
    uint8_t *scratch = l.bytes() != 0 ? c.scratch(l.bytes()) : nullptr;
    // Tree t's buffers in a slot: its children's partials, then the rank's own.
    auto buf = [&](uint64_t slot, uint32_t t, uint32_t j) {
        const uint64_t first = t == 1 && v == 0 ? 1 : 0;
        return scratch + ((slot * l.bufs) + first + j) * l.seg_bytes;
    };
    auto peer = [&](int64_t vrank) {
        return patterns::from_vrank(static_cast<uint32_t>(vrank), a.root, n);
    };
    // Step k reduces segment 2k + t up tree t; its transfers use slot k % kWindow.
    const uint64_t steps = (seg.n + 1) / 2;
    Req recvs[kWindow][2][2];
    Req sends[kWindow][2];
    auto post_recvs = [&](uint64_t k) {
        for (uint32_t t = 0; t < 2; ++t) {
            const uint64_t s = 2 * k + t;
            const int64_t from[2] = {links[t].left, links[t].right};
            for (uint32_t j = 0; j < 2 && s < seg.n; ++j) {
                if (from[j] >= 0) {
                    recvs[k % kWindow][t][j] =
                        c.recv(peer(from[j]), t, buf(k % kWindow, t, j), seg.len(s) * es);
                }
            }
        }
    };
    for (uint64_t k = 0; k < std::min(kWindow, steps); ++k) {
        post_recvs(k);
    }
    for (uint64_t k = 0; k < steps; ++k) {
        const uint64_t slot = k % kWindow;
        for (uint32_t t = 0; t < 2; ++t) {
            const uint64_t s = 2 * k + t;
            if (s >= seg.n) {
                break;
            }
            const uint64_t len = seg.len(s);
            const uint8_t *mine = own + seg.offset(s) * es;
            Req *in = recvs[slot][t];
            // The children's partials in, and this slot's send of step k - kWindow out.
            UCC_CO_TRY(co_await c.wait(in[0], in[1], sends[slot][t]));
            if (v == 0) {
                UCC_CO_TRY(c.reduce(dst + seg.offset(s) * es, mine, buf(slot, t, 0), len));
                continue;
            }
            const uint8_t *partial = mine;
            if (links[t].left >= 0) {
                uint8_t *acc = buf(slot, t, links[t].children());
                UCC_CO_TRY(c.reduce(acc, buf(slot, t, 0), mine, len));
                if (links[t].right >= 0) {
                    UCC_CO_TRY(c.reduce(acc, acc, buf(slot, t, 1), len));
                }
                partial = acc;
            }
            sends[slot][t] = c.send(peer(links[t].parent), t, partial, len * es);
        }
        if (k + kWindow < steps) {
            post_recvs(k + kWindow);
        }
    }
    for (uint64_t slot = 0; slot < kWindow; ++slot) {
        UCC_CO_TRY(co_await c.wait(sends[slot][0], sends[slot][1]));
    }
    if (v == 0) {
        c.finalize_result(dst, seg.count);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
