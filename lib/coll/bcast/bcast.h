// Bcast algorithms.
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

Task bcast_knomial(Coll &c);
Task bcast_onesided(Coll &c);
Task bcast_2step(Coll &c);
Task bcast_dbt(Coll &c);
Task bcast_sag_knomial(Coll &c);
bool bcast_onesided_supports(const Args &a, uint32_t size);

}  // namespace ucc::coll
