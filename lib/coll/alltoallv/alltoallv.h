// Alltoallv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task alltoallv_pairwise(Coll &c);
void alltoallv_pairwise_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
