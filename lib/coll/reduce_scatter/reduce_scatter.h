// Reduce-scatter and reduce-scatterv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task reduce_scatter_ring(Coll &c);
Task reduce_scatterv_ring(Coll &c);
Task reduce_scatter_knomial(Coll &c);
void reduce_scatter_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void reduce_scatter_ring_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void reduce_scatterv_ring_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
