// Gather algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task gather_knomial(Coll &c);
void gather_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task gather_linear(Coll &c);

}  // namespace ucc::coll
