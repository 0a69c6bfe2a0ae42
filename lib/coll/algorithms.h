// The algorithm tables of every collective type.
#pragma once

#include <span>

#include "lib/coll/coll.h"

namespace ucc::coll {

std::span<const Algorithm> allreduce_algorithms();
std::span<const Algorithm> bcast_algorithms();
std::span<const Algorithm> reduce_algorithms();
std::span<const Algorithm> barrier_algorithms();
std::span<const Algorithm> allgather_algorithms();
std::span<const Algorithm> alltoall_algorithms();

}  // namespace ucc::coll
