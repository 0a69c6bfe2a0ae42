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
// Pipelined (CL_HIER_REDUCE_2STEP_PIPELINE; lib/coll/patterns/pipeline.h):
// the leaders reduce one fragment while their nodes reduce the next.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier). In-place at the root: dst holds its input.
#include "lib/coll/patterns/pipeline.h"
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
    uint32_t depth = 1;
    const uint32_t frags = pipeline_fragments(a, &Pipelines::reduce_2step, &depth);
    auto in_node = [&](uint32_t f) {
        Args r = level_args(a, UCC_COLL_TYPE_REDUCE);
        r.root = t.local_index(lead);
        r.src = a.src;
        r.dst = me == a.root ? a.dst : partial;
        // In place only at the root; elsewhere src holds the rank's input.
        r.inplace = me == a.root && a.inplace;
        return run_on(c, Group::node(t, node), fragment(r, a.count, frags, f));
    };
    auto among_leaders = [&](uint32_t f) {
        if (me != lead) {
            return Task();
        }
        Args r = level_args(a, UCC_COLL_TYPE_REDUCE);
        r.root = t.node_of(a.root);
        r.src = me == a.root ? a.dst : partial;
        r.dst = me == a.root ? a.dst : nullptr;
        r.inplace = me == a.root;
        return run_on(c, Group::leaders(t, a.root), fragment(r, a.count, frags, f));
    };
    if (frags > 1) {
        UCC_CO_TRY(co_await run_pipeline(c, frags, depth, in_node, among_leaders, Stage()));
    } else {
        UCC_CO_TRY(co_await in_node(0));
        if (me == lead) {
            UCC_CO_TRY(co_await among_leaders(0));
        }
    }
    if (me == a.root) {
        c.finalize_result(a.dst, a.count);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
