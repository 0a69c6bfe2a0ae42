// Reduce-scatter and reduce-scatterv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task reduce_scatter_ring(Coll &c);
Task reduce_scatterv_ring(Coll &c);

}  // namespace ucc::coll
