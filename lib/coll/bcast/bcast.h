// Bcast algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task bcast_knomial(Coll &c);

}  // namespace ucc::coll
