// Scatter algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task scatter_knomial(Coll &c);
Task scatter_linear(Coll &c);

}  // namespace ucc::coll
