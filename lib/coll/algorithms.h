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
std::span<const Algorithm> allgatherv_algorithms();
std::span<const Algorithm> alltoallv_algorithms();
std::span<const Algorithm> fanin_algorithms();
std::span<const Algorithm> fanout_algorithms();
std::span<const Algorithm> gather_algorithms();
std::span<const Algorithm> gatherv_algorithms();
std::span<const Algorithm> reduce_scatter_algorithms();
std::span<const Algorithm> reduce_scatterv_algorithms();
std::span<const Algorithm> scatter_algorithms();
std::span<const Algorithm> scatterv_algorithms();

}  // namespace ucc::coll
