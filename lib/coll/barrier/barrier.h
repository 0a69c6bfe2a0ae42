// Barrier algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task barrier_dissemination(Coll &c);
Task barrier_knomial(Coll &c);
Task barrier_hier(Coll &c);

}  // namespace ucc::coll
