// The LogGP lower bound of a collective: what no algorithm in the cost
// formulas' terms (cost.h) can beat, the yardstick of the selection sweep
// (bench/select_sweep.py).
//
// Latency: every rank must learn something that starts at one rank (the
// root's data, or for the all-to-all collectives any one rank's), and in
// LogP the fastest way to tell n ranks is the greedy broadcast tree
// (Karp, Sahay, Santos and Schauser, 1993): every rank that knows sends to
// a new one as often as its CPU and port allow (max(o_send, gap)), each
// message arriving o_send + L + o_recv after its send, on the faster link;
// a team over several nodes needs one message between nodes at least.
// Bandwidth: the bytes some rank must receive (and reduce) whatever the
// algorithm, on the team's ring link (the share of hops between nodes a
// rank-order schedule needs): allreduce 2 (n-1)/n b, reduce and reduce
// scatter (n-1)/n of the whole vector with as much reduced, bcast b, and
// (n-1) blocks for allgather, alltoall, gather and scatter; moving and
// reducing may overlap (a pipelined ring), so the larger of the two counts;
// a byte costs the wire and the cheaper of the protocols' copies (per_byte).
// The bound is the larger of latency and bandwidth, the bandwidth term after
// one message's latency.
#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

#include "lib/coll/coll_types.h"
#include "lib/cost/cost.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

// The greedy LogP broadcast to n ranks on link l: when the last one knows.
double logp_broadcast(const Params &p, const Link &l, uint32_t n) {
    if (n <= 1) {
        return 0;
    }
    const double hop = p.o_send + l.L + p.o_recv;
    const double every = std::max(p.o_send, p.gap);
    // Earliest time each rank that knows can send next.
    std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
    free_at.push(0);
    double last = 0;
    for (uint32_t told = 1; told < n; ++told) {
        const double t = free_at.top();
        free_at.pop();
        last = t + hop;
        free_at.push(t + every);
        free_at.push(last);
    }
    return last;
}

}  // namespace

double lower_bound(const coll::Args &a, uint32_t n, const Params &net) {
    const Params p = net.for_team(n, working_set(a, n));
    if (n <= 1) {
        return p.o_call;
    }
    const Link &fast = p.intra.L <= p.inter.L ? p.intra : p.inter;
    double latency = logp_broadcast(p, fast, n);
    const bool spans = p.ppn != 0 && n > p.ppn;
    if (spans) {
        latency = std::max(latency, p.o_send + p.inter.L + p.o_recv);
    }
    const double g = per_byte(p, p.ring(n));
    const double b = bytes_of(a);
    const double share = static_cast<double>(n - 1) / n;
    double bw = 0;
    switch (a.type) {
        case UCC_COLL_TYPE_ALLREDUCE:
            bw = std::max(2 * share * b * g, share * b * p.reduce);
            break;
        case UCC_COLL_TYPE_REDUCE:
            bw = share * b * std::max(g, p.reduce);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            bw = (n - 1) * b * std::max(g, p.reduce);
            break;
        case UCC_COLL_TYPE_BCAST:
            bw = b * g;
            break;
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            bw = (n - 1) * b * g;
            break;
        default:
            break;
    }
    const double first = p.o_send + (spans ? p.inter.L : fast.L) + p.o_recv;
    return p.o_call + std::max(latency, bw > 0 ? first + bw : 0.0);
}

}  // namespace ucc::cost
