// Scatter algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task scatter_knomial(Coll &c);
void scatter_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task scatter_linear(Coll &c);

}  // namespace ucc::coll
