// Bcast: 2step, two levels (among the node leaders, then in each node).
//
// The root leads its own node; every other node is led by its lowest rank.
// The root broadcasts to the other leaders, then every leader broadcasts to
// the ranks of its node. The network carries the buffer once per node; the
// node's ranks get it over shared memory. Each level runs the flat
// algorithm the context selects for its size (lib/coll/subgroup.h); nodes
// may hold different numbers of ranks.
// Cost (p ranks on the largest node, N nodes, m bytes):
//   T = T_bcast(N, m)_inter + T_bcast(p, m)_intra.
// Pipelined (CL_HIER_BCAST_2STEP_PIPELINE; lib/coll/patterns/pipeline.h):
// the leaders broadcast one fragment while their nodes broadcast the one
// before.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier).
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

Task bcast_2step(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    // This node's leader: the root on the root's node, else local index 0.
    const uint32_t lead = node == t.node_of(a.root) ? a.root : t.member(node, 0);
    uint32_t depth = 1;
    const uint32_t frags = pipeline_fragments(a, &Pipelines::bcast_2step, &depth);
    Args b = level_args(a, UCC_COLL_TYPE_BCAST);
    b.src = a.src;
    b.dst = a.src;
    auto among_leaders = [&](uint32_t f) {
        if (me != lead) {
            return Task();
        }
        Args x = b;
        x.root = t.node_of(a.root);
        return run_on(c, Group::leaders(t, a.root), fragment(x, a.count, frags, f));
    };
    auto in_node = [&](uint32_t f) {
        Args x = b;
        x.root = t.local_index(lead);
        return run_on(c, Group::node(t, node), fragment(x, a.count, frags, f));
    };
    if (frags > 1) {
        co_return co_await run_pipeline(c, frags, depth, Stage(), among_leaders, in_node);
    }
    if (me == lead) {
        UCC_CO_TRY(co_await among_leaders(0));
    }
    co_return co_await in_node(0);
}

}  // namespace ucc::coll
