// Reduce: 2step, two levels (in each node, then among the node leaders).
//
// The root leads its own node; every other node is led by its lowest rank.
// Each node reduces into its leader (the root: into dst; another leader:
// into scratch), then the leaders reduce their partial results into the
// root. The network carries one vector per node. Each level runs the flat
// algorithm the context selects for its size (lib/coll/subgroup.h); nodes
// may hold different numbers of ranks. AVG reduces with SUM on both levels
// and the root divides once.
// Cost (p ranks on the largest node, N nodes, m bytes):
//   T = T_reduce(p, m)_intra + T_reduce(N, m)_inter.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier). In-place at the root: dst holds its input.
#include "lib/coll/reduce/reduce.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

// A leader other than the root: its node's partial result.
void reduce_2step_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan) {
    if (!hierarchical_supports(a, size)) {
        return;
    }
    const Topology &t = *a.topo;
    const uint32_t node = t.node_of(rank);
    if (rank != a.root && node != t.node_of(a.root) && t.local_index(rank) == 0) {
        plan.add(a.count * a.esize);
    }
}

Task reduce_2step(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const bool root_node = node == t.node_of(a.root);
    const uint32_t lead = root_node ? a.root : t.member(node, 0);
    uint8_t *partial = me == lead && me != a.root ? c.scratch(a.count * a.esize) : nullptr;

    Args r = level_args(a, UCC_COLL_TYPE_REDUCE);
    r.count = a.count;
    r.root = t.local_index(lead);
    r.src = a.src;
    r.dst = me == a.root ? a.dst : partial;
    // In place only at the root; elsewhere src holds the rank's input.
    r.inplace = me == a.root && a.inplace;
    UCC_CO_TRY(co_await run_on(c, Group::node(t, node), r));
    if (me != lead) {
        co_return UCC_OK;
    }
    r.root = t.node_of(a.root);
    if (me == a.root) {
        r.src = a.dst;
        r.dst = a.dst;
        r.inplace = true;
    } else {
        r.src = partial;
        r.dst = nullptr;
        r.inplace = false;
    }
    UCC_CO_TRY(co_await run_on(c, Group::leaders(t, a.root), r));
    if (me == a.root) {
        c.finalize_result(a.dst, a.count);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
