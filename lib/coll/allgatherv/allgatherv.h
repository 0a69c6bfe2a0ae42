// Allgatherv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allgatherv_ring(Coll &c);
Task allgatherv_gab(Coll &c);
void allgatherv_gab_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
