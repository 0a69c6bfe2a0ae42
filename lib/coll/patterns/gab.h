// Gather, allgather among leaders, bcast: the two-level allgather(v) both
// hierarchical allgathers share (allgather gab, allgatherv gab).
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll::patterns {

// Runs c's allgather (v: allgatherv) over its topology (Args::topo).
Task gather_allgather_bcast(Coll &c, bool v);
// Its scratch: a copy of every block, unless the levels run in dst.
void gather_allgather_bcast_scratch(const Args &a, uint32_t size, bool v, ScratchPlan &plan);

}  // namespace ucc::coll::patterns
