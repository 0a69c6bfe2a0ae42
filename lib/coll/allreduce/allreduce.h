// Allreduce algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allreduce_recursive_doubling(Coll &c);
Task allreduce_ring(Coll &c);
Task allreduce_rabenseifner(Coll &c);
Task allreduce_knomial(Coll &c);
void allreduce_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task allreduce_rab(Coll &c);
Task allreduce_split_rail(Coll &c);
Task allreduce_sra_knomial(Coll &c);
void allreduce_sra_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task allreduce_sharp(Coll &c);
bool allreduce_sharp_supports(const Args &a, uint32_t size);
void allreduce_recursive_doubling_scratch(const Args &a, uint32_t rank, uint32_t size,
                                          ScratchPlan &plan);
void allreduce_ring_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void allreduce_rabenseifner_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
