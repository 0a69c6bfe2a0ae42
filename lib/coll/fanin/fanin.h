// Fan-in algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task fanin_knomial(Coll &c);
Task fanin_linear(Coll &c);

}  // namespace ucc::coll
