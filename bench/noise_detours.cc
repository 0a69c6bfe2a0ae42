// noise_detours: how often, and for how long, the operating system takes
// this host's CPU from a busy process: the simulator's `noise_hz` and `noise`
// (lib/net/network_model.h). A "selfish detour" loop reads the clock as fast
// as it can; a gap between two readings well above the loop's own step (the
// median of the first readings) is a detour: a timer tick, an interrupt, a
// kernel thread, or here, a hypervisor. Runs for --seconds (default 2),
// bounded, and prints one JSON line:
//   {"bench":"noise_detours","seconds":...,"step_ns":...,"threshold_ns":...,
//    "detours":...,"per_s":...,"median_ns":...,"p90_ns":...,"max_ns":...,
//    "lost_fraction":...}
// lost_fraction is the share of the run spent in detours. Pin the process to
// one CPU (taskset) to see one core's noise.
//
//   noise_detours [--seconds 2] [--threshold-ns N]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int64_t ns_since(Clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

double percentile(std::vector<int64_t> v, double p) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
    return static_cast<double>(v[i]);
}

}  // namespace

int main(int argc, char **argv) {
    double seconds = 2;
    int64_t threshold = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = std::atof(argv[++i]);
        } else if (std::strcmp(argv[i], "--threshold-ns") == 0 && i + 1 < argc) {
            threshold = std::atoll(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: noise_detours [--seconds S] [--threshold-ns N]\n");
            return 2;
        }
    }
    if (!(seconds > 0 && seconds <= 600)) {
        std::fprintf(stderr, "noise_detours: --seconds must be in (0, 600]\n");
        return 2;
    }
    // The loop's own step: the median gap of the first 100,000 readings.
    const Clock::time_point t0 = Clock::now();
    std::vector<int64_t> steps;
    steps.reserve(100000);
    int64_t last = ns_since(t0);
    for (int i = 0; i < 100000; ++i) {
        const int64_t now = ns_since(t0);
        steps.push_back(now - last);
        last = now;
    }
    const double step = percentile(steps, 0.5);
    if (threshold <= 0) {
        threshold = std::max<int64_t>(200, static_cast<int64_t>(10 * step));
    }
    // The run: every gap above the threshold is a detour.
    const auto limit = static_cast<int64_t>(seconds * 1e9);
    std::vector<int64_t> detours;
    detours.reserve(1 << 20);
    const Clock::time_point start = Clock::now();
    last = 0;
    int64_t now = 0;
    while (now < limit) {
        now = ns_since(start);
        if (now - last > threshold && detours.size() < detours.capacity()) {
            detours.push_back(now - last);
        }
        last = now;
    }
    int64_t lost = 0;
    for (int64_t d : detours) {
        lost += d;
    }
    const double run_s = static_cast<double>(now) / 1e9;
    std::printf(
        "{\"bench\":\"noise_detours\",\"seconds\":%.3f,\"step_ns\":%.1f,\"threshold_ns\":%lld,"
        "\"detours\":%zu,\"per_s\":%.1f,\"median_ns\":%.0f,\"p90_ns\":%.0f,\"max_ns\":%.0f,"
        "\"lost_fraction\":%.6f}\n",
        run_s, step, static_cast<long long>(threshold), detours.size(),
        static_cast<double>(detours.size()) / run_s, percentile(detours, 0.5),
        percentile(detours, 0.9), percentile(detours, 1.0),
        static_cast<double>(lost) / static_cast<double>(now));
    return 0;
}
