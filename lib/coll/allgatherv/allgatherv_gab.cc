// Allgatherv: gab, two levels (gather in the node, allgather among the node
// leaders, bcast in the node; lib/coll/patterns/gab.cc).
//
// The network carries each node's blocks once per other node, from one rank
// per node; the node's ranks meet over shared memory. Each level runs the
// flat algorithm the context selects for its size; nodes may hold different
// numbers of ranks, and ranks of one node need not be consecutive (the
// levels then work in a scratch copy that every rank unpacks).
// Cost (p ranks on the largest node, N nodes, n ranks, B bytes per block on average):
//   T = T_gatherv(p, pB)_intra + T_allgatherv(N, nB)_inter + T_bcast(p, nB)_intra.
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier). In-place: the own block is at its displacement.
#include "lib/coll/allgatherv/allgatherv.h"
#include "lib/coll/patterns/gab.h"

namespace ucc::coll {

void allgatherv_gab_scratch(const Args &a, uint32_t, uint32_t size, ScratchPlan &plan) {
    patterns::gather_allgather_bcast_scratch(a, size, true, plan);
}

Task allgatherv_gab(Coll &c) {
    return patterns::gather_allgather_bcast(c, true);
}

}  // namespace ucc::coll
