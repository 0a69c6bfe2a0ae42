// How much memory the machine can still give a run: MemAvailable
// (/proc/meminfo). The simulator's tools refuse up front a payload run whose
// buffers alone would not fit (ucc_sim) or stop a run that outgrows it
// (bench/sim_workload): beyond it the kernel's out-of-memory killer, not a
// status, would end the process.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>

namespace ucc::perf {

// Bytes; 0 when /proc/meminfo cannot be read.
inline uint64_t available_memory_bytes() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    std::string unit;
    uint64_t kb = 0;
    while (f >> key >> kb) {
        if (key == "MemAvailable:") {
            return kb * 1024;
        }
        std::getline(f, unit);  // " kB", or nothing
    }
    return 0;
}

}  // namespace ucc::perf
