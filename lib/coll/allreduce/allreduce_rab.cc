// Allreduce: rab, two levels (reduce in the node, allreduce among the node
// leaders, bcast in the node).
//
// Each node's leader (its lowest rank) reduces the vectors of its node into
// its dst; the leaders, one per node, allreduce their partial results in
// place; each leader broadcasts the result to the ranks of its node. Only
// one rank per node talks across nodes, with the whole vector: the network
// sees `nodes` ranks instead of n, the node's ranks meet in shared memory.
// Every level runs the flat algorithm the context selects for its size
// (lib/coll/subgroup.h); nodes may hold different numbers of ranks. AVG
// reduces with SUM on every level and the leaders divide once.
// Cost (p ranks on the largest node, N nodes, m bytes):
//   T = T_reduce(p, m)_intra + T_allreduce(N, m)_inter + T_bcast(p, m)_intra.
// Every rank gets the leaders' bits: all ranks end identical.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

Task allreduce_rab(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const bool leader = t.local_index(me) == 0;
    const Group local = Group::node(t, node);

    Args r = level_args(a, UCC_COLL_TYPE_REDUCE);
    r.root = 0;
    r.count = a.count;
    r.src = a.src;
    r.dst = a.dst;
    r.inplace = a.inplace;
    UCC_CO_TRY(co_await run_on(c, local, r));
    if (leader) {
        Args ar = level_args(a, UCC_COLL_TYPE_ALLREDUCE);
        ar.count = a.count;
        ar.src = a.dst;
        ar.dst = a.dst;
        ar.inplace = true;
        UCC_CO_TRY(co_await run_on(c, Group::leaders(t, 0), ar));
        c.finalize_result(a.dst, a.count);
    }
    Args b = level_args(a, UCC_COLL_TYPE_BCAST);
    b.root = 0;
    b.count = a.count;
    b.src = a.dst;
    b.dst = a.dst;
    co_return co_await run_on(c, local, b);
}

}  // namespace ucc::coll
