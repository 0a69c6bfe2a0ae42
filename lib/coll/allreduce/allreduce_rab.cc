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
// Pipelined (CL_HIER_ALLREDUCE_RAB_PIPELINE; lib/coll/patterns/pipeline.h):
// the leaders allreduce one fragment while their nodes reduce the next and
// broadcast the one before.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier).
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/subgroup.h"

namespace ucc::coll {

namespace {

// The leaders' allreduce in place, then AVG's division.
Task among_leaders(Coll &c, Group leaders, Args ar) {
    UCC_CO_TRY(co_await run_on(c, leaders, ar));
    c.finalize_result(ar.dst, ar.count);
    co_return UCC_OK;
}

}  // namespace

Task allreduce_rab(Coll &c) {
    const Args &a = c.args();
    const Topology &t = *a.topo;
    const uint32_t me = c.rank();
    const uint32_t node = t.node_of(me);
    const bool leader = t.local_index(me) == 0;
    const Group local = Group::node(t, node);
    uint32_t depth = 1;
    const uint32_t frags = pipeline_fragments(a, &Pipelines::rab, &depth);
    auto slice = [&](uint32_t f, const Args &x) { return fragment(x, a.count, frags, f); };
    auto reduce = [&](uint32_t f) {
        Args r = level_args(a, UCC_COLL_TYPE_REDUCE);
        r.root = 0;
        r.src = a.src;
        r.dst = a.dst;
        r.inplace = a.inplace;
        return run_on(c, local, slice(f, r));
    };
    auto allreduce = [&](uint32_t f) {
        if (!leader) {
            return Task();
        }
        Args ar = level_args(a, UCC_COLL_TYPE_ALLREDUCE);
        ar.src = a.dst;
        ar.dst = a.dst;
        ar.inplace = true;
        return among_leaders(c, Group::leaders(t, 0), slice(f, ar));
    };
    auto bcast = [&](uint32_t f) {
        Args b = level_args(a, UCC_COLL_TYPE_BCAST);
        b.root = 0;
        b.src = a.dst;
        b.dst = a.dst;
        return run_on(c, local, slice(f, b));
    };
    if (frags > 1) {
        co_return co_await run_pipeline(c, frags, depth, reduce, allreduce, bcast);
    }
    UCC_CO_TRY(co_await reduce(0));
    if (leader) {
        UCC_CO_TRY(co_await allreduce(0));
    }
    co_return co_await bcast(0);
}

}  // namespace ucc::coll
