// Alltoallv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task alltoallv_pairwise(Coll &c);
Task alltoallv_onesided(Coll &c);
Task alltoallv_node_split(Coll &c);
void alltoallv_node_split_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
bool alltoallv_onesided_supports(const Args &a, uint32_t size);
void alltoallv_pairwise_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
