// The LogGP lower bound of a collective: what no algorithm in the cost
// formulas' terms (cost.h) can beat, the yardstick of the selection sweep
// (bench/select_sweep.py).
//
// Latency: every rank must learn something that starts at one rank (the
// root's data, or for the all-to-all collectives any one rank's), and in
// LogP the fastest way to tell n ranks is the greedy broadcast tree
// (Karp, Sahay, Santos and Schauser, 1993): every rank that knows sends to
// a new one as often as its CPU and port allow (max(o_send, gap)), each
// message arriving o_send + L + o_recv after its send. No hop is faster
// than the faster link, so that tree over all n ranks on it bounds any
// team; a team over several nodes also has to reach every node, over the
// link between nodes: the greedy tree over the nodes, where a node's ranks
// all know as soon as one does and send together (ppn messages per
// max(o_send, gap), no faster than its NIC's message rate) bounds that part
// (on a flat network, a rank per node, it is the rank tree on that link).
// Bandwidth: the bytes some rank must receive (and reduce) whatever the
// algorithm, on the team's ring link (the share of hops between nodes a
// rank-order schedule needs): allreduce 2 (n-1)/n b, reduce and reduce
// scatter (n-1)/n of the whole vector with as much reduced, bcast b, and
// (n-1) blocks for allgather, alltoall, gather and scatter; moving and
// reducing may overlap (a pipelined ring), so the larger of the two counts;
// a byte costs the wire and the cheaper of the protocols' copies (per_byte).
// The bound is the larger of latency and bandwidth, the bandwidth term after
// one message's latency; for a bcast, reduce or allreduce whose bytes pass
// the root's port, also that port's time for the vector before the last
// byte's broadcast (below).
#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

#include "lib/coll/coll_types.h"
#include "lib/cost/cost.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

// The greedy LogP broadcast to n members, each message taking `hop` from
// its send to its receiver knowing, a member that knows sending a new one
// every `every`: when the last one knows.
double logp_broadcast(double hop, double every, uint64_t n) {
    if (n <= 1) {
        return 0;
    }
    // Earliest time each rank that knows can send next.
    std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
    free_at.push(0);
    double last = 0;
    for (uint64_t told = 1; told < n; ++told) {
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
    // The links the team's pairs have: within a node (not on a network of a
    // rank per node), between nodes (once the team spans them).
    const bool spans = p.ppn != 0 && n > p.ppn;
    const bool within = p.ppn != 1;
    const Link &fast = !spans ? p.intra : !within || p.inter.L < p.intra.L ? p.inter : p.intra;
    const double every = std::max(p.o_send, p.gap);
    double latency = logp_broadcast(p.o_send + fast.L + p.o_recv, every, n);
    if (spans) {
        const uint64_t nodes = (n + p.ppn - 1) / p.ppn;
        latency = std::max(latency, logp_broadcast(p.o_send + p.inter.L + p.o_recv,
                                                   std::max(every / p.ppn, p.nic_msg), nodes));
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
    double bound = std::max(latency, bw > 0 ? first + bw : 0.0);
    const bool through_port = !(within && p.intra_msgs.pulled(b));
    if (through_port && (a.type == UCC_COLL_TYPE_BCAST || a.type == UCC_COLL_TYPE_REDUCE ||
                         a.type == UCC_COLL_TYPE_ALLREDUCE)) {
        // The root's port moves the vector's bytes once at least, the last
        // of them no sooner than b of the faster link's byte time, and that
        // last byte then still has n ranks to reach (a reduce is the
        // broadcast in reverse; an allreduce is a reduce to every rank).
        // Not where the ranks of a node pull each other's bytes: those
        // pulls bypass the port and run at once.
        const double own = !within  ? per_byte(p, p.inter)
                           : !spans ? per_byte(p, p.intra)
                                    : std::min(per_byte(p, p.intra), per_byte(p, p.inter));
        bound = std::max(bound, b * own + latency);
    }
    return p.o_call + bound;
}

}  // namespace ucc::cost
