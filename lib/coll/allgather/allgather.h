// Allgather algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allgather_ring(Coll &c);
Task allgather_bruck(Coll &c);
Task allgather_onesided(Coll &c);
Task allgather_gab(Coll &c);
void allgather_gab_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
bool allgather_onesided_supports(const Args &a, uint32_t size);
Task allgather_neighbor(Coll &c);
Task allgather_knomial(Coll &c);
void allgather_knomial_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);
void allgather_bruck_scratch(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan);

}  // namespace ucc::coll
