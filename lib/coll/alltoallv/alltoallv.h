// Alltoallv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task alltoallv_pairwise(Coll &c);

}  // namespace ucc::coll
