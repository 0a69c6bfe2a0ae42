// Cost formulas of the pipelined algorithms, those that read a segment
// (Args::segment_bytes): bcast and reduce dbt, the allreduce ring.
//
// The trees: the buffer goes in segments of S bytes down (or up) two binary trees over
// the n-1 ranks other than the root, depth d = floor(log2(n-1)) + 1, even
// segments in one tree and odd ones in the other. A segment's trip is the
// pipeline's fill: one hop from the root to its tree's root, then d - 1
// levels, each a message and, where the node on the deepest path has two
// children (floor(log2 n) - 1 of them), one more send's time to reach the
// second (a reduce: one more receive and combine). After it the pipeline delivers a segment every
// period, set by the busiest rank: an inner node of one tree, a leaf of the
// other, which per two segments receives two (one in each tree) and sends
// two (to its children; a reduce also combines two partials and sends one
// on, its leaf segment the other).
// On teams up to kWalkRanks the fill, both trees' first segments, is walked
// over the two trees as the algorithm builds them (virtual rank v on node
// v / ppn, the root's at 0), each hop on its pair's link; beyond, fill_hops
// estimates one segment's deepest path and its crossings.
// The ring: each step's block in chunks of S bytes, each passed on as soon
// as it is reduced (allreduce_ring below).
// With the segment left to the selection (coll::kSegmentAuto) a formula
// takes the cheapest of segment_candidates().
#include <algorithm>
#include <cmath>

#include "lib/coll/patterns/dbt.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/pieces.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

using coll::Args;
namespace pat = coll::patterns;

struct Pipe {
    double seg = 0;     // bytes of a full segment
    uint64_t segs = 0;  // segments
    uint32_t depth = 0;
    uint32_t forks = 0;  // nodes with two children on the deepest path
    // The most children of a rank in its inner tree: 2 from n = 4 on (one
    // on 3 ranks, none on 2).
    uint32_t children = 0;
};

// The fill's hops, from the root's down to a leaf's: in-order binary trees
// link ranks 2^(d-1), ..., 2, 1 apart. Across nodes, the slowest path
// crosses on every hop as long as a node's ranks and on one of the shorter
// hops; the others stay within a node. The deepest path's forks (a node
// with two children, whose second send the path waits for) are on the hops
// below the first. hop(link, fork) is one hop's time.
template <class Hop>
double fill_hops(const Params &p, uint32_t n, const Pipe &s, Hop hop) {
    const bool one_node = p.ppn == 0 || n <= p.ppn;
    bool one_more = !one_node;
    double t = 0;
    for (uint32_t i = s.depth; i-- > 0;) {
        bool crosses = !one_node && (uint64_t{1} << i) >= p.ppn;
        if (!crosses && one_more) {
            crosses = true;
            one_more = false;
        }
        const bool fork = i + 1 < s.depth && s.depth - 1 - i <= s.forks;
        t += hop(crosses ? p.inter : p.intra, fork);
    }
    return t;
}

// Teams up to this many ranks walk their trees (O(n) per tree).
constexpr uint32_t kWalkRanks = 4096;

// Whether the fill is walked: a team of at most kWalkRanks.
bool walked(uint32_t n) {
    return n <= kWalkRanks;
}

// The pair (a, b) of virtual ranks' link.
const Link &link_of(const Params &p, int64_t a, int64_t b) {
    return p.link(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
}

// Down tree t from virtual rank v, its segment in at `at`: the latest
// arrival in its subtree. A parent sends to its left child, then its right.
template <class Msg, class Gap>
double walk_down(const Params &p, uint32_t t, int64_t v, uint32_t n, double at, Msg msg_on,
                 Gap gap_on) {
    const pat::BtreeLinks l = pat::dbt_rank_links(t, static_cast<uint32_t>(v), n);
    double last = at;
    double leave = at;
    for (int64_t child : {l.left, l.right}) {
        if (child < 0) {
            continue;
        }
        const Link &h = link_of(p, v, child);
        last = std::max(last, walk_down(p, t, child, n, leave + msg_on(h), msg_on, gap_on));
        leave += gap_on(h);
    }
    return last;
}

// Up tree t to virtual rank v: when its partial is ready to leave (a leaf:
// at once); each child's partial arrives after its message and is combined,
// the second also received after the first.
template <class Msg, class Combine>
double walk_up(const Params &p, uint32_t t, int64_t v, uint32_t n, Msg msg_on, Combine combine_on) {
    const pat::BtreeLinks l = pat::dbt_rank_links(t, static_cast<uint32_t>(v), n);
    double ready = 0;
    bool second = false;
    for (int64_t child : {l.left, l.right}) {
        if (child < 0) {
            continue;
        }
        const Link &h = link_of(p, child, v);
        const double in = walk_up(p, t, child, n, msg_on, combine_on) + msg_on(h);
        ready = std::max(ready, in) + combine_on(h, second);
        second = true;
    }
    return ready;
}

Pipe pipe(const Args &a, uint32_t n) {
    const pat::Segments s(a.count, a.esize, a.segment_bytes);
    Pipe p;
    p.seg = static_cast<double>(s.elems) * static_cast<double>(a.esize);
    p.segs = s.n;
    p.depth = n > 2 ? pat::log2_ceil(n) : 1;  // floor(log2(n - 1)) + 1
    p.forks = n > 1 ? pat::log2_ceil(pat::pow2_floor(n)) - 1 : 0;
    p.children = std::min<uint32_t>(n > 2 ? n - 2 : 0, 2);
    return p;
}

// Largest first: of equal predictions the one of fewer segments.
constexpr uint64_t kSegmentCandidates[] = {0,        1u << 20, 1u << 19, 1u << 18,
                                           1u << 17, 1u << 16, 1u << 15, 1u << 14,
                                           1u << 13, 1u << 12, 1u << 11, 1u << 10};

// `fn` at a's segment, or at the cheapest candidate where that is auto.
double at_segment(double (*fn)(const Args &, uint32_t, const Params &), const Args &a, uint32_t n,
                  const Params &p) {
    if (a.segment_bytes != coll::kSegmentAuto) {
        return fn(a, n, p);
    }
    Args b = a;
    double best = -1;
    for (uint64_t s : kSegmentCandidates) {
        b.segment_bytes = s;
        const double t = fn(b, n, p);
        best = best < 0 || t < best ? t : best;
    }
    return best;
}

double bcast_dbt(const Args &a, uint32_t n, const Params &p) {
    const Pipe s = pipe(a, n);
    if (n == 1 || s.segs == 0) {
        return 0;
    }
    const Link &l = p.team(n);
    double fill = 0;
    // The segments the fill covers: a walk both trees' first, which travel
    // apart from 4 ranks on (on 2 and 3 they share ranks and links).
    const uint64_t after = walked(n) && s.children == 2 ? std::min<uint64_t>(2, s.segs) : 1;
    if (walked(n)) {
        // Tree 1's first segment leaves the root one send after tree 0's.
        auto msg_on = [&](const Link &h) { return msg(p, h, s.seg); };
        auto gap_on = [&](const Link &h) { return spacing(p, h, s.seg); };
        double leave = 0;
        for (uint32_t t = 0; t < std::min<uint64_t>(2, s.segs); ++t) {
            fill = std::max(fill, walk_down(p, t, 0, n, leave, msg_on, gap_on));
            leave += gap_on(link_of(p, 0, pat::dbt_rank_links(t, 0, n).left));
        }
    } else {
        fill = fill_hops(p, n, s, [&](const Link &h, bool fork) {
            return msg(p, h, s.seg) + (fork ? spacing(p, h, s.seg) : 0);
        });
    }
    // Per two segments the busiest rank receives two and sends one per
    // child (two from 4 ranks on); its CPU and its port work side by side,
    // and the root sends every segment (feeding both trees in turn).
    const double send = send_cpu(p, l, s.seg);
    const double period =
        std::max({recv_cpu(p, l, s.seg) + s.children * send / 2, send, port(p, l, s.seg)});
    return fill + static_cast<double>(s.segs - after) * period + ack(p, l, s.seg);
}

double reduce_dbt(const Args &a, uint32_t n, const Params &p) {
    const Pipe s = pipe(a, n);
    const double m = bytes_of(a);
    if (n == 1 || s.segs == 0) {
        return a.inplace ? 0 : copy(p, m);
    }
    const Link &l = p.team(n);
    const double combine = reduce(p, s.seg);
    const double recv = recv_cpu(p, l, s.seg);
    double fill = 0;
    // The segments the fill covers: a walk both trees' first, which travel
    // apart from 4 ranks on (on 2 and 3 they share ranks and links).
    const uint64_t after = walked(n) && s.children == 2 ? std::min<uint64_t>(2, s.segs) : 1;
    if (walked(n)) {
        // Each tree up to the root (virtual rank 0), which combines the
        // tree root's partial with its own segment.
        auto msg_on = [&](const Link &h) { return msg(p, h, s.seg); };
        auto combine_on = [&](const Link &h, bool second) {
            return combine + (second ? recv_cpu(p, h, s.seg) : 0);
        };
        for (uint32_t t = 0; t < std::min<uint64_t>(2, s.segs); ++t) {
            const int64_t top = pat::dbt_rank_links(t, 0, n).left;
            fill = std::max(fill, walk_up(p, t, top, n, msg_on, combine_on) +
                                      msg_on(link_of(p, top, 0)) + combine);
        }
    } else {
        fill = fill_hops(p, n, s, [&](const Link &h, bool fork) {
            return msg(p, h, s.seg) + combine + (fork ? recv_cpu(p, h, s.seg) + combine : 0);
        });
    }
    // Per two segments the busiest rank's CPU receives, combines and sends
    // two; of its port's two sends, one runs beside the next combine and
    // the other holds the pipeline but for the next receive's CPU (the
    // simulator's period, within 2 % for segments of 4 to 64 KiB), unless
    // the port alone is slower. On 2 and 3 ranks no rank has two children:
    // the root, which receives and combines every segment, sets the pace.
    const double port_time = port(p, l, s.seg);
    const double send = send_cpu(p, l, s.seg);
    const double period =
        s.children == 2
            ? std::max(recv + combine + send + std::max(0.0, port_time - recv) / 2, port_time)
            : std::max({recv + combine, (s.children * (recv + combine) + 2 * send) / 2, port_time});
    return fill + static_cast<double>(s.segs - after) * period;
}

// The ring's 2(n-1) steps of a block each, in chunks (Args::segment_bytes)
// that a rank passes on as soon as it has reduced (or received) them: a
// step takes its chunks' CPU time (receive, reduce, the next step's send),
// its port's time, or, with few chunks, one chunk's trip from the left
// and its CPU time, whichever is longest; step 0's sends all leave first.
double allreduce_ring(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    if (n == 1) {
        return copy(p, m);
    }
    const Link l = p.ring(n);
    // Every link of the ring carries a chunk a period: the slowest port sets
    // it (across nodes, the one between them); a chunk's trip around the
    // ring crosses nodes at one hop in ppn (the ring link).
    const Link slow = l.across > 0 ? Link{p.inter.L, p.inter.G, 1} : l;
    uint64_t off;
    uint64_t len;
    pat::block_range(a.count, n, 0, &off, &len);  // block 0 is a largest
    const double es = static_cast<double>(std::max<size_t>(a.esize, 1));
    const pat::Pieces pieces(
        len, a.segment_bytes == 0 ? 0 : std::max<uint64_t>(1, a.segment_bytes / a.esize));
    const double chunks = static_cast<double>(pieces.n);
    const double c = static_cast<double>(pieces.size(0)) * es;
    const double last = static_cast<double>(pieces.size(pieces.n - 1)) * es;
    auto period = [&](bool reduces, bool sends, bool trip) {
        auto cpu = [&](double x) {
            return recv_cpu(p, l, x) + (reduces ? reduce(p, x) : 0) +
                   (sends ? send_cpu(p, l, x) : 0);
        };
        const double work = (chunks - 1) * cpu(c) + cpu(last);
        const double ports = sends ? (chunks - 1) * port(p, slow, c) + port(p, slow, last) : 0;
        return std::max({work, ports, trip ? cpu(c) + flight(p, l, c) : 0.0});
    };
    // Step 0's sends are posted together, and its first chunk comes in.
    const double start = std::max((chunks - 1) * send_cpu(p, l, c) + send_cpu(p, l, last),
                                  send_cpu(p, l, c) + flight(p, l, c));
    return start + period(true, true, false) + (n - 2) * period(true, true, true) +
           (n - 2) * period(false, true, true) + period(false, false, true) + ack(p, l, c);
}

double bcast_dbt_auto(const Args &a, uint32_t n, const Params &p) {
    return at_segment(bcast_dbt, a, n, p);
}

double reduce_dbt_auto(const Args &a, uint32_t n, const Params &p) {
    return at_segment(reduce_dbt, a, n, p);
}

double allreduce_ring_auto(const Args &a, uint32_t n, const Params &p) {
    return at_segment(allreduce_ring, a, n, p);
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_BCAST, "dbt", bcast_dbt_auto},
    {UCC_COLL_TYPE_REDUCE, "dbt", reduce_dbt_auto},
    {UCC_COLL_TYPE_ALLREDUCE, "ring", allreduce_ring_auto},
};

}  // namespace

std::span<const Formula> pipeline_formulas() {
    return kFormulas;
}

std::span<const uint64_t> segment_candidates() {
    return kSegmentCandidates;
}

}  // namespace ucc::cost
