// Allgatherv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allgatherv_ring(Coll &c);

}  // namespace ucc::coll
