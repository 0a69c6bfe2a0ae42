// Reduce algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task reduce_knomial(Coll &c);
void reduce_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task reduce_2step(Coll &c);
void reduce_2step_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task reduce_dbt(Coll &c);
void reduce_dbt_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task reduce_srg(Coll &c);
void reduce_srg_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
