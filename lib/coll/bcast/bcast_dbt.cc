// Bcast: double binary tree, pipelined.
//
// The ranks other than the root form two binary trees (patterns/dbt.h) in
// which every rank is an inner node of at most one. The buffer is cut into
// segments (BCAST_SEGMENT bytes); even segments go down tree 0, odd ones down
// tree 1, and the root feeds the segments in order, each to its tree's root,
// so that both trees fill at the same pace. A rank forwards
// a segment to its children (at most two) as soon as it has it, while the
// receives of the next ones are already posted: the trees work as pipelines,
// each run by its own task (when_all), so that a rank deep in one tree never
// holds up its forwarding in the other.
// An inner node of one tree is a leaf of the other, so every rank receives m
// bytes and sends at most m (two copies of its tree's half): the bandwidth
// term of one binary tree's pipeline, 2 m G, is halved.
// Cost: depth d = floor(log2(n-1)) + 1, S = segment bytes, m/S segments:
//   T ~ 2 d (L + 2(o + S G)) + (m/S) max(2o, S G):
//   per segment the busiest rank receives one and sends one, its CPU and
//   its port side by side.
// Constraints: none (any n, root and count); IN_PLACE is meaningless for
// bcast and ignored. At most kWindow segments per tree in flight per rank
// (the root: 2 kWindow in all).
// Tag steps: t (tree t's segments), relying on per-(peer, tag) in-order
// matching: a pair of ranks linked in both trees uses both tags.
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/dbt.h"

namespace ucc::coll {

namespace {

// Segments of one tree whose transfers may be in flight at once.
constexpr uint64_t kWindow = 8;

// Tree t's segments (2k + t) at virtual rank v: each received from the
// parent (the root has them) and sent on to the children; segment k's
// transfers use slot k % kWindow.
Task bcast_tree(Coll &c, uint32_t t, uint32_t v) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t es = a.esize;
    const patterns::Segments seg(a.count, es, a.segment_bytes);
    const patterns::BtreeLinks l = patterns::dbt_rank_links(t, v, n);
    auto *buf = static_cast<uint8_t *>(a.src);
    auto peer = [&](int64_t vrank) {
        return patterns::from_vrank(static_cast<uint32_t>(vrank), a.root, n);
    };
    auto at = [&](uint64_t k) { return buf + seg.offset(2 * k + t) * es; };
    auto bytes = [&](uint64_t k) { return seg.len(2 * k + t) * es; };
    const uint64_t segs = (seg.n + 1 - t) / 2;
    Req recvs[kWindow];
    Req sends[kWindow][2];
    for (uint64_t k = 0; k < std::min(kWindow, segs) && l.parent >= 0; ++k) {
        recvs[k] = c.recv(peer(l.parent), t, at(k), bytes(k));
    }
    const int64_t to[2] = {l.left, l.right};
    for (uint64_t k = 0; k < segs; ++k) {
        const uint64_t slot = k % kWindow;
        // Segment k in, and the slot's sends of segment k - kWindow out.
        UCC_CO_TRY(co_await c.wait(recvs[slot], sends[slot][0], sends[slot][1]));
        for (uint32_t j = 0; j < 2; ++j) {
            sends[slot][j] = to[j] < 0 ? Req() : c.send(peer(to[j]), t, at(k), bytes(k));
        }
        if (k + kWindow < segs && l.parent >= 0) {
            recvs[slot] = c.recv(peer(l.parent), t, at(k + kWindow), bytes(k + kWindow));
        }
    }
    for (uint64_t slot = 0; slot < kWindow; ++slot) {
        UCC_CO_TRY(co_await c.wait(sends[slot][0], sends[slot][1]));
    }
    co_return UCC_OK;
}

// The root: every segment in order, each to its tree's root, so that the
// two trees fill at the same pace (one task per tree would queue all of
// tree 0's segments on the root's port before tree 1's first whenever its
// sends complete at once, as eager ones do: tree 1 would start half the
// message late).
Task bcast_root(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t es = a.esize;
    const patterns::Segments seg(a.count, es, a.segment_bytes);
    auto *buf = static_cast<uint8_t *>(a.src);
    uint32_t to[2];
    for (uint32_t t = 0; t < 2; ++t) {
        to[t] = patterns::from_vrank(static_cast<uint32_t>(patterns::dbt_rank_links(t, 0, n).left),
                                     a.root, n);
    }
    constexpr uint64_t kSlots = 2 * kWindow;
    Req sends[kSlots];
    for (uint64_t s = 0; s < seg.n; ++s) {
        const uint64_t slot = s % kSlots;
        UCC_CO_TRY(co_await c.wait(sends[slot]));
        const uint32_t t = s % 2;
        sends[slot] = c.send(to[t], t, buf + seg.offset(s) * es, seg.len(s) * es);
    }
    co_return co_await c.wait_all(sends);
}

}  // namespace

Task bcast_dbt(Coll &c) {
    const uint32_t n = c.size();
    if (n == 1 || c.args().count == 0) {
        co_return UCC_OK;
    }
    const uint32_t v = patterns::to_vrank(c.rank(), c.args().root, n);
    if (v == 0) {
        co_return co_await bcast_root(c);
    }
    co_return co_await when_all(c, bcast_tree(c, 0, v), bcast_tree(c, 1, v));
}

}  // namespace ucc::coll
