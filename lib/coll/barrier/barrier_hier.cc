// Barrier: hier, two levels (fan-in in each node, barrier among the node
// leaders, fan-out in each node).
//
// Each node's lowest rank collects the arrival of its node's ranks, the
// leaders run a barrier among themselves, and each leader releases its
// node. No rank leaves before every rank has entered: a rank leaves after
// its leader's barrier, which ends after every leader's fan-in. The network
// sees one rank per node. Each level runs the flat algorithm the context
// selects for its size (lib/coll/subgroup.h).
// Cost (p ranks on the largest node, N nodes):
//   T = T_fanin(p)_intra + T_barrier(N)_inter + T_fanout(p)_intra.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier).
#include "lib/coll/barrier/barrier.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

Task barrier_hier(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const Group local = Group::node(t, t.node_of(me));
    Args f = level_args(a, UCC_COLL_TYPE_FANIN);
    f.root = 0;
    UCC_CO_TRY(co_await run_on(c, local, f));
    if (t.local_index(me) == 0) {
        UCC_CO_TRY(co_await run_on(c, Group::leaders(t, 0), level_args(a, UCC_COLL_TYPE_BARRIER)));
    }
    f.type = UCC_COLL_TYPE_FANOUT;
    co_return co_await run_on(c, local, f);
}

}  // namespace ucc::coll
