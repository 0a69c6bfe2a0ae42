// Bcast: double binary tree, pipelined.
//
// The ranks other than the root form two binary trees (patterns/dbt.h) in
// which every rank is an inner node of at most one. The buffer is cut into
// segments (BCAST_SEGMENT bytes); even segments go down tree 0, odd ones down
// tree 1, and the root feeds each segment to its tree's root. A rank forwards
// a segment to its children (at most two) as soon as it has it, while the
// receives of the next ones are already posted: the trees work as pipelines.
// An inner node of one tree is a leaf of the other, so every rank receives m
// bytes and sends at most m (two copies of its tree's half): the bandwidth
// term of one binary tree's pipeline, 2 m G, is halved.
// Cost: depth d = floor(log2(n-1)) + 1, S = segment bytes, m/S segments:
//   T ~ 2 d (L + 2(o + S G)) + m G + 2 (m/S) o.
// Constraints: none (any n, root and count); IN_PLACE is meaningless for
// bcast and ignored. At most kWindow segment pairs in flight per rank.
// Tag steps: t (tree t's segments), relying on per-(peer, tag) in-order
// matching: a pair of ranks linked in both trees uses both tags.
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/dbt.h"

namespace ucc::coll {

namespace {

// Segment pairs (one per tree) whose transfers may be in flight at once.
constexpr uint64_t kWindow = 4;

}  // namespace

Task bcast_dbt(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const patterns::Segments seg(a.count, a.esize, a.segment_bytes);
    if (n == 1 || seg.n == 0) {
        co_return UCC_OK;
    }
    const uint32_t v = patterns::to_vrank(c.rank(), a.root, n);
    const patterns::BtreeLinks links[2] = {patterns::dbt_rank_links(0, v, n),
                                           patterns::dbt_rank_links(1, v, n)};
    auto *buf = static_cast<uint8_t *>(a.src);
    const size_t es = a.esize;
    auto peer = [&](int64_t vrank) {
        return patterns::from_vrank(static_cast<uint32_t>(vrank), a.root, n);
    };
    // Step k moves segment 2k + t down tree t; its transfers use slot k % kWindow.
    const uint64_t steps = (seg.n + 1) / 2;
    Req recvs[kWindow][2];
    Req sends[kWindow][2][2];
    auto post_recvs = [&](uint64_t k) {
        for (uint32_t t = 0; t < 2; ++t) {
            const uint64_t s = 2 * k + t;
            if (s < seg.n && links[t].parent >= 0) {
                recvs[k % kWindow][t] =
                    c.recv(peer(links[t].parent), t, buf + seg.offset(s) * es, seg.len(s) * es);
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
            // This segment in, and the sends of step k - kWindow from this slot out.
            Req *out = sends[slot][t];
            UCC_CO_TRY(co_await c.wait(recvs[slot][t], out[0], out[1]));
            const int64_t to[2] = {links[t].left, links[t].right};
            for (uint32_t j = 0; j < 2; ++j) {
                out[j] = to[j] < 0
                             ? Req()
                             : c.send(peer(to[j]), t, buf + seg.offset(s) * es, seg.len(s) * es);
            }
        }
        if (k + kWindow < steps) {
            post_recvs(k + kWindow);
        }
    }
    for (uint64_t slot = 0; slot < kWindow; ++slot) {
        for (uint32_t t = 0; t < 2; ++t) {
            UCC_CO_TRY(co_await c.wait(sends[slot][t][0], sends[slot][t][1]));
        }
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
