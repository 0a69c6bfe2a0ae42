// Internals shared by the files of the simulated cluster (cluster.cc and
// cluster_report.cc) that are no part of cluster.h.
#pragma once

#include <cstdint>
#include <string>

namespace ucc::sim {

// A virtual time (picoseconds) in seconds, for reports: "1.5e-06 s".
std::string seconds(int64_t ps);

}  // namespace ucc::sim
