// Alltoall algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task alltoall_pairwise(Coll &c);
Task alltoall_linear(Coll &c);
Task alltoall_bruck(Coll &c);

}  // namespace ucc::coll
