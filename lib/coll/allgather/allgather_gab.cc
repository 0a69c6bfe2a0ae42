// Allgather: gab, two levels (gather in the node, allgather among the node
// leaders, bcast in the node; lib/coll/patterns/gab.cc).
//
// The network carries each node's blocks once per other node, from one rank
// per node; the node's ranks meet over shared memory. Each level runs the
// flat algorithm the context selects for its size; nodes may hold different
// numbers of ranks, and ranks of one node need not be consecutive (the
// levels then work in a scratch copy that every rank unpacks).
// Cost (p ranks on the largest node, N nodes, n ranks, B bytes per block):
//   T = T_gatherv(p, pB)_intra + T_allgatherv(N, nB)_inter + T_bcast(p, nB)_intra.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier). In-place: the own block is in dst.
#include "lib/coll/allgather/allgather.h"
#include "lib/coll/patterns/gab.h"

namespace ucc::coll {

void allgather_gab_scratch(const Args &a, uint32_t, uint32_t size, ScratchPlan &plan) {
    patterns::gather_allgather_bcast_scratch(a, size, false, plan);
}

Task allgather_gab(Coll &c) {
    return patterns::gather_allgather_bcast(c, false);
}

}  // namespace ucc::coll
