// Reduce algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task reduce_knomial(Coll &c);

}  // namespace ucc::coll
