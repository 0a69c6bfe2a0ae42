// Scatterv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task scatterv_linear(Coll &c);

}  // namespace ucc::coll
