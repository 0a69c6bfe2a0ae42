// Allgather algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allgather_ring(Coll &c);
Task allgather_bruck(Coll &c);

}  // namespace ucc::coll
