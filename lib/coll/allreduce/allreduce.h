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
// Recursive multiplying's extra ranks (allreduce_extras.cc): an extra's
// round trip to its proxy, and a proxy folding its extras in (into `acc`,
// receiving into `tmp`) and sending them the result.
Task allreduce_extra(Coll &c, uint8_t *acc, uint32_t p);
Task allreduce_fold_in_extras(Coll &c, uint8_t *acc, uint8_t *tmp, uint32_t p);
Task allreduce_fold_out_extras(Coll &c, const uint8_t *acc, uint32_t p);
void allreduce_sra_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
Task allreduce_sharp(Coll &c);
bool allreduce_sharp_supports(const Args &a, uint32_t size);
void allreduce_recursive_doubling_scratch(const Args &a, uint32_t rank, uint32_t size,
                                          ScratchPlan &plan);
void allreduce_ring_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void allreduce_rabenseifner_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
