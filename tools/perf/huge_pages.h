// The heap of a big simulation on transparent huge pages. A million simulated
// ranks keep about 5 GB of small library objects, and every event reaches
// some rank's at random: on 4 KiB pages nearly each of those accesses also
// misses the TLB, and the page tables themselves (10 MB) no longer fit in the
// cache. glibc puts its heap on huge pages only when told at process start
// (GLIBC_TUNABLES glibc.malloc.hugetlb=1, where the kernel gives them on
// request: "madvise"), and only its main arena (glibc.malloc.arena_max=1
// keeps the simulation's thread there). The simulator's programs (ucc_sim,
// bench/sim_workload, bench/sim_scale) call reexec_on_huge_pages first in
// main(): the program starts once more with those tunables added, unless
// UCC_SIM_HUGE_PAGES=0, the kernel has them always or never, or the user set
// glibc.malloc.hugetlb already. Nothing a run does depends on it (the
// simulator never reads addresses); measured, the million-rank barrier takes
// 15 % less time.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace ucc::perf {

// What GLIBC_TUNABLES becomes so that the heap is on huge pages, from its
// value now (null: unset), the kernel's setting (the text of
// /sys/kernel/mm/transparent_hugepage/enabled: "always [madvise] never"; ""
// unknown) and whether the user opted out. "": leave the process as it is.
inline std::string huge_page_tunables(const char *tunables, const std::string &thp_enabled,
                                      bool opt_out) {
    const std::string now = tunables != nullptr ? tunables : "";
    if (opt_out || thp_enabled.find("[madvise]") == std::string::npos ||
        now.find("glibc.malloc.hugetlb") != std::string::npos) {
        return "";
    }
    std::string out = now;
    auto add = [&out](const char *tunable) {
        out += out.empty() ? "" : ":";
        out += tunable;
    };
    add("glibc.malloc.hugetlb=1");
    if (now.find("glibc.malloc.arena_max") == std::string::npos) {
        add("glibc.malloc.arena_max=1");
    }
    return out;
}

inline std::string thp_enabled_setting() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(in, line);
    return line;
}

// Whether this process's heap is on huge pages (for reports).
inline bool heap_on_huge_pages() {
    const std::string thp = thp_enabled_setting();
    const char *t = std::getenv("GLIBC_TUNABLES");
    return thp.find("[always]") != std::string::npos ||
           (thp.find("[madvise]") != std::string::npos && t != nullptr &&
            std::string(t).find("glibc.malloc.hugetlb=1") != std::string::npos);
}

// Starts the program again (argv as main got it) with the tunables of
// huge_page_tunables; returns when there is nothing to add or the exec failed
// (the program then runs as it is).
inline void reexec_on_huge_pages(char **argv) {
    const char *opt = std::getenv("UCC_SIM_HUGE_PAGES");
    const char *old = std::getenv("GLIBC_TUNABLES");
    const std::string was = old != nullptr ? old : "";
    const std::string tunables =
        huge_page_tunables(old, thp_enabled_setting(), opt != nullptr && std::string(opt) == "0");
    if (tunables.empty() || setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) {
        return;
    }
    execv("/proc/self/exe", argv);
    if (old != nullptr) {
        setenv("GLIBC_TUNABLES", was.c_str(), 1);
    } else {
        unsetenv("GLIBC_TUNABLES");
    }
}

}  // namespace ucc::perf
