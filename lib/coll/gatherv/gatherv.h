// Gatherv algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task gatherv_linear(Coll &c);

}  // namespace ucc::coll
