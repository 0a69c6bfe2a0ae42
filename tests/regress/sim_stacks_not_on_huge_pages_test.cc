// Found reviewing the simulator's memory on huge pages: the fiber stacks'
// slabs (64 MiB mappings, each rank touching a page or two at the top of its
// 256 KiB stack) were left to the kernel's transparent-huge-page policy.
// Where that policy is "always" (the default of several distributions), one
// touch commits a whole 2 MiB page, eight stacks at once: 256 KiB per rank
// instead of 4-8 KiB, a quarter of a terabyte for a million ranks. The slabs
// now say MADV_NOHUGEPAGE (StackPool::take), which /proc/self/smaps shows as
// the "nh" VmFlag whatever the machine's policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "transports/sim/stack_pool.h"

namespace {

// The VmFlags line of the mapping that holds `addr` ("" when not found).
std::string vm_flags_of(const void *addr) {
    const auto a = reinterpret_cast<uintptr_t>(addr);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        // A mapping's first line starts "lo-hi " in hex; its fields "Name:".
        const std::string range = line.substr(0, line.find(' '));
        const size_t dash = range.find('-');
        if (dash != std::string::npos &&
            range.find_first_not_of("0123456789abcdef-") == std::string::npos) {
            const uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
            const uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line;
        }
    }
    return "";
}

TEST(Regress, SimFiberStacksAreNeverOnHugePages) {
    auto *pool = new ucc::sim::StackPool(256 * 1024, false);
    void *top = pool->take();
    ASSERT_NE(top, nullptr);
    const void *inside = static_cast<const char *>(top) - 64;
    const std::string flags = vm_flags_of(inside);
    ASSERT_NE(flags, "") << "no mapping holds the stack";
    EXPECT_NE((flags + " ").find(" nh "), std::string::npos) << flags;
    pool->give(top);
    pool->unref();
}

}  // namespace
