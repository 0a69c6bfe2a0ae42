// Alltoall: node_split, the exchanges within the node and across nodes at
// the same time (lib/coll/patterns/node_split.cc).
//
// Blocks for ranks of other nodes are posted at once (one send and one
// receive per peer); meanwhile the node's ranks run the flat alltoallv the
// context selects for the node's size over the blocks they exchange among
// themselves. Intra-node traffic never waits behind the network's.
// Cost (p ranks per node, n ranks, B bytes per block):
//   T = max(T_alltoallv(p, B)_intra, (n - p)(o + B G) + L).
// Constraints: a topology of several nodes, one of several ranks
// (Args::topo: UCC_CLS with hier). In place: the blocks for other nodes are
// staged in scratch first.
#include "lib/coll/alltoall/alltoall.h"
#include "lib/coll/patterns/node_split.h"

namespace ucc::coll {

void alltoall_node_split_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan) {
    patterns::node_split_scratch(a, rank, size, false, plan);
}

Task alltoall_node_split(Coll &c) {
    return patterns::node_split(c, false);
}

}  // namespace ucc::coll
