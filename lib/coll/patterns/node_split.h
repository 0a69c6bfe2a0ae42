// Node split: an alltoall(v) as two concurrent parts, the exchanges within
// the node and those across nodes (alltoall node_split, alltoallv
// node_split).
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll::patterns {

// Runs c's alltoall (v: alltoallv) over its topology (Args::topo).
Task node_split(Coll &c, bool v);
// Its scratch: in place, the outgoing blocks for other nodes.
void node_split_scratch(const Args &a, uint32_t rank, uint32_t size, bool v, ScratchPlan &plan);

}  // namespace ucc::coll::patterns
