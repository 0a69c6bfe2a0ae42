// Alltoall algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task alltoall_pairwise(Coll &c);
Task alltoall_linear(Coll &c);
Task alltoall_bruck(Coll &c);
Task alltoall_onesided(Coll &c);
Task alltoall_node_split(Coll &c);
void alltoall_node_split_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
bool alltoall_onesided_supports(const Args &a, uint32_t size);
void alltoall_inplace_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void alltoall_bruck_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
