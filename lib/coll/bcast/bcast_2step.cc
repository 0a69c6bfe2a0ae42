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
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier).
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

Task bcast_2step(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const Group leaders = Group::leaders(t, a.root);
    const Group local = Group::node(t, node);
    // This node's leader: the root on the root's node, else local index 0.
    const uint32_t lead = node == t.node_of(a.root) ? a.root : t.member(node, 0);
    Args b = level_args(a, UCC_COLL_TYPE_BCAST);
    b.count = a.count;
    b.src = a.src;
    b.dst = a.src;
    if (me == lead) {
        b.root = t.node_of(a.root);
        UCC_CO_TRY(co_await run_on(c, leaders, b));
    }
    b.root = t.local_index(lead);
    co_return co_await run_on(c, local, b);
}

}  // namespace ucc::coll
