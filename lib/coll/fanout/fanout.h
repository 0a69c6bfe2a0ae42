// Fan-out algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task fanout_knomial(Coll &c);

}  // namespace ucc::coll
