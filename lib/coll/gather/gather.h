// Gather algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task gather_knomial(Coll &c);
Task gather_linear(Coll &c);

}  // namespace ucc::coll
