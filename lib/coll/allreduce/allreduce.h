// Allreduce algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task allreduce_recursive_doubling(Coll &c);
Task allreduce_ring(Coll &c);
Task allreduce_rabenseifner(Coll &c);

}  // namespace ucc::coll
