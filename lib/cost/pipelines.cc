// Cost formulas of the pipelined trees: bcast and reduce dbt.
//
// The buffer goes in segments of S bytes down (or up) two binary trees over
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
#include <algorithm>

#include "lib/coll/patterns/dbt.h"
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

Pipe pipe(const Args &a, uint32_t n) {
    const pat::Segments s(a.count, a.esize, a.segment_bytes);
    Pipe p;
    p.seg = static_cast<double>(s.elems) * static_cast<double>(a.esize);
    p.segs = s.n;
    p.depth = n > 2 ? pat::log2_ceil(n) : 1;  // floor(log2(n - 1)) + 1
    p.forks = n > 1 ? pat::log2_ceil(pat::pow2_floor(n)) - 1 : 0;
    return p;
}

double bcast_dbt(const Args &a, uint32_t n, const Params &p) {
    const Pipe s = pipe(a, n);
    if (n == 1 || s.segs == 0) {
        return 0;
    }
    const Link &l = p.team(n);
    const double fill = fill_hops(p, n, s, [&](const Link &h, bool fork) {
        return msg(p, h, s.seg) + (fork ? spacing(p, h, s.seg) : 0);
    });
    // Per two segments the busiest rank receives two and sends two; its CPU
    // and its port work side by side (the root feeds both trees in turn).
    const double period =
        std::max(recv_cpu(p, l, s.seg) + send_cpu(p, l, s.seg), port(p, l, s.seg));
    return fill + (s.segs - 1) * period + ack(p, l, s.seg);
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
    const double fill = fill_hops(p, n, s, [&](const Link &h, bool fork) {
        return msg(p, h, s.seg) + combine + (fork ? recv_cpu(p, h, s.seg) + combine : 0);
    });
    // Per two segments the busiest rank's CPU receives, combines and sends
    // two; of its port's two sends, one runs beside the next combine and
    // the other holds the pipeline (the simulator's period, within 2 % for
    // ports of 0 to 1.6 times the combine), unless the port alone is slower.
    const double port_time = port(p, l, s.seg);
    const double period =
        std::max(recv + combine + send_cpu(p, l, s.seg) + port_time / 2, port_time);
    return fill + (s.segs - 1) * period;
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_BCAST, "dbt", bcast_dbt},
    {UCC_COLL_TYPE_REDUCE, "dbt", reduce_dbt},
};

}  // namespace

std::span<const Formula> pipeline_formulas() {
    return kFormulas;
}

}  // namespace ucc::cost
