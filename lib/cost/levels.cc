// Cost formulas of the hierarchical algorithms: the sum of their levels,
// each the cheapest flat algorithm's prediction on its own link (what the
// level's selection picks; the v levels have one algorithm each): a node's
// p ranks within one node, the N = ceil(n / p) leaders or rails one rank per
// node. p is the team's ranks per node (Params::ppn, the largest node); a
// team within one node, or of one rank per node, has no levels (-1).
// alltoall(v) node_split runs its parts at once: the longest of them.
// Nodes of fewer ranks are taken as full ones: on split_rail, where such a
// node's ranks own several blocks each, that is optimistic.
#include <algorithm>

#include "lib/coll/algorithms.h"
#include "lib/coll/subgroup.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

using coll::Args;

// The cheapest flat, two-sided prediction of `type` over `count` elements
// on n ranks of link `l` alone; negative when none has a formula. A level
// the network reduces (`net_reduce`: Args::net_reduce_levels allows it)
// takes tl/sharp's algorithm where it runs, as the level's selection does.
double best_flat(const Args &parent, ucc_coll_type_t type, uint64_t count, uint32_t n,
                 const Params &p, bool inter, bool net_reduce = false) {
    Args a = coll::level_args(parent, type);
    a.count = count;
    a.net_reduce = net_reduce;
    Params lp = p;
    lp.ppn = inter ? 1 : 0;
    lp.o_call = 0;  // the levels run inside one call
    for (const coll::Algorithm &alg : coll::algorithms(type)) {
        if (alg.score != 0 && !alg.hierarchical && alg.supports(a, n)) {
            const double s = predict(alg, a, n, lp);
            if (s >= 0) {
                return s;
            }
        }
    }
    double best = -1;
    for (const coll::Algorithm &alg : coll::algorithms(type)) {
        if (alg.hierarchical || alg.onesided || alg.score != 0 || !alg.supports(a, n)) {
            continue;
        }
        const double s = predict(alg, a, n, lp);
        if (s >= 0 && (best < 0 || s < best)) {
            best = s;
        }
    }
    return best;
}

struct Shape {
    uint32_t p = 0;      // ranks on the largest node
    uint32_t nodes = 0;  // N
    bool ok = false;
};

Shape shape(uint32_t n, const Params &p) {
    Shape s;
    s.p = std::min(p.ppn, n);
    s.nodes = s.p == 0 ? 0 : (n + s.p - 1) / s.p;
    s.ok = s.p > 1 && s.nodes > 1;
    return s;
}

// The sum of levels, or -1 when one has no prediction.
double sum(std::initializer_list<double> levels) {
    double t = 0;
    for (double l : levels) {
        if (l < 0) {
            return -1;
        }
        t += l;
    }
    return t;
}

double allreduce_rab(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    return sum({best_flat(a, UCC_COLL_TYPE_REDUCE, a.count, s.p, p, false),
                best_flat(a, UCC_COLL_TYPE_ALLREDUCE, a.count, s.nodes, p, true,
                          (a.net_reduce_levels & Args::kNetReduceLeaders) != 0),
                best_flat(a, UCC_COLL_TYPE_BCAST, a.count, s.p, p, false)});
}

double allreduce_split_rail(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    const uint64_t block = (a.count + s.p - 1) / s.p;
    return sum({best_flat(a, UCC_COLL_TYPE_REDUCE_SCATTERV, block, s.p, p, false),
                best_flat(a, UCC_COLL_TYPE_ALLREDUCE, block, s.nodes, p, true,
                          (a.net_reduce_levels & Args::kNetReduceRails) != 0),
                best_flat(a, UCC_COLL_TYPE_ALLGATHERV, block, s.p, p, false)});
}

double bcast_2step(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    return sum({best_flat(a, UCC_COLL_TYPE_BCAST, a.count, s.nodes, p, true),
                best_flat(a, UCC_COLL_TYPE_BCAST, a.count, s.p, p, false)});
}

double reduce_2step(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    return sum({best_flat(a, UCC_COLL_TYPE_REDUCE, a.count, s.p, p, false),
                best_flat(a, UCC_COLL_TYPE_REDUCE, a.count, s.nodes, p, true)});
}

double barrier_hier(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    return sum({best_flat(a, UCC_COLL_TYPE_FANIN, 0, s.p, p, false),
                best_flat(a, UCC_COLL_TYPE_BARRIER, 0, s.nodes, p, true),
                best_flat(a, UCC_COLL_TYPE_FANOUT, 0, s.p, p, false)});
}

// Gather in the node, allgather of the nodes' blocks among the leaders,
// bcast of the whole result in the node.
double allgather_gab(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    return sum({best_flat(a, UCC_COLL_TYPE_GATHERV, a.count, s.p, p, false),
                best_flat(a, UCC_COLL_TYPE_ALLGATHERV, a.count * s.p, s.nodes, p, true),
                best_flat(a, UCC_COLL_TYPE_BCAST, a.count * n, s.p, p, false)});
}

// Node split (patterns/node_split.cc): every block for another node posted
// at once while the node's ranks run an alltoallv among themselves. The
// blocks across leave one per the port's time, behind or among the node
// part's (or the node's NIC, which its p ranks share, carries all p (n - p)
// of them), and the rank's CPU pays every send and receive of both parts;
// the longest of the three. The order of the blocks across (node by node,
// each rank from its local index on) keeps a receiver from taking in a
// node's blocks at once.
double alltoall_node_split(const Args &a, uint32_t n, const Params &p) {
    const Shape s = shape(n, p);
    if (!s.ok) {
        return -1;
    }
    const double b = bytes_of(a);
    const uint32_t remote = n - s.p;
    const double node = best_flat(a, UCC_COLL_TYPE_ALLTOALLV, a.count, s.p, p, false);
    if (node < 0) {
        return -1;
    }
    const Link l = p.crossing(s.p);
    // The rank's port also sends the node part's blocks.
    const double net = fan_out(p, l, b, remote) + (s.p - 1) * port(p, p.intra, b);
    const double nic = p.nic_G == 0 && p.nic_msg == 0
                           ? 0
                           : msg(p, p.inter, b) + s.p * remote * (p.nic_msg + b * p.nic_G);
    // The remote blocks' receives, posted first: some are matched in the
    // node part's s.p - 1 waits (on the simulator about one in two waits).
    const double cpu = remote * (send_cpu(p, l, b) + recv_cpu(p, l, b)) + node -
                       std::min(remote, s.p - 1) * recv_cpu(p, l, b) / 2;
    const double staging = a.inplace ? remote * b * p.copy : 0;
    return staging + std::max({net, nic, cpu});
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_ALLTOALL, "node_split", alltoall_node_split},
    {UCC_COLL_TYPE_ALLTOALLV, "node_split", alltoall_node_split},
    {UCC_COLL_TYPE_ALLREDUCE, "rab", allreduce_rab},
    {UCC_COLL_TYPE_ALLREDUCE, "split_rail", allreduce_split_rail},
    {UCC_COLL_TYPE_BCAST, "2step", bcast_2step},
    {UCC_COLL_TYPE_REDUCE, "2step", reduce_2step},
    {UCC_COLL_TYPE_BARRIER, "hier", barrier_hier},
    {UCC_COLL_TYPE_ALLGATHER, "gab", allgather_gab},
};

}  // namespace

std::span<const Formula> level_formulas() {
    return kFormulas;
}

}  // namespace ucc::cost
