// memcpy_bw: single-threaded memcpy bandwidth on this host, part of the floor
// scripts/ucx_latency.sh measures beside the collectives. One JSON line per
// size: {"bench":"memcpy","bytes":...,"iters":...,"avg_us":...,"GBps":...},
// GBps = bytes copied / time / 1e9 (each byte is read once and written once).
// --reduce times a float32 sum into the destination instead (dst = dst + src
// by the library's own kernel, what a reduction step does; "bench":"reduce",
// GBps = bytes of dst / time), for the simulator's `reduce` cost
// (scripts/fit_network.sh).
// Buffers are page-aligned and touched beforehand; a warm-up pass precedes each
// size.
//
//   memcpy_bw [--min-bytes 4M] [--max-bytes 64M] [--time 0.2] [--reduce] [--quick]
#include <cstdio>
#include <cstring>
#include <string>

#include "bench/coll_bench.h"
#include "lib/dt/dt.h"

int main(int argc, char **argv) {
    uint64_t min_bytes = uint64_t{4} << 20;
    uint64_t max_bytes = uint64_t{64} << 20;
    double time_s = 0.2;
    bool reduce = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        bool ok = true;
        if (a == "--min-bytes" && i + 1 < argc) {
            ok = ucc::bench::parse_bytes(argv[++i], &min_bytes);
        } else if (a == "--max-bytes" && i + 1 < argc) {
            ok = ucc::bench::parse_bytes(argv[++i], &max_bytes);
        } else if (a == "--time" && i + 1 < argc) {
            time_s = std::atof(argv[++i]);
        } else if (a == "--reduce") {
            reduce = true;
        } else if (a == "--quick") {
            min_bytes = 4096;
            max_bytes = 65536;
            time_s = 0.005;
        } else {
            ok = false;
        }
        if (!ok || min_bytes == 0 || min_bytes > max_bytes || !(time_s > 0)) {
            std::fprintf(stderr,
                         "usage: memcpy_bw [--min-bytes N] [--max-bytes N] [--time S] "
                         "[--reduce] [--quick]\n");
            return 2;
        }
    }
    const uint64_t elems = (max_bytes + ucc::bench::kElemBytes - 1) / ucc::bench::kElemBytes;
    ucc::bench::Buffer src(elems);
    ucc::bench::Buffer dst(elems);
    src.fill(1.0f);
    dst.fill(0.0f);
    const ucc::dt::ReduceFn kernel = ucc::dt::reduce_fn(UCC_DT_FLOAT32, UCC_OP_SUM);
    auto pass = [&](uint64_t b) {
        if (!reduce) {
            std::memcpy(dst.data(), src.data(), b);
        } else {
            kernel(dst.data(), dst.data(), src.data(), b / sizeof(float));
        }
        // Keep the passes from being merged or dropped.
        asm volatile("" : : "r"(dst.data()) : "memory");
    };
    // Bounded: at most 64 doublings, each about time_s (and 100,000 passes).
    int sizes = 0;
    for (uint64_t b = min_bytes; b <= max_bytes && sizes < 64; b *= 2, ++sizes) {
        double t0 = ucc::bench::now_s();
        pass(b);
        const double once = ucc::bench::now_s() - t0;
        const uint64_t iters = ucc::bench::plan_iters(time_s, once, 3, 100000);
        t0 = ucc::bench::now_s();
        for (uint64_t i = 0; i < iters; ++i) {
            pass(b);
        }
        const double avg = (ucc::bench::now_s() - t0) / static_cast<double>(iters);
        std::printf(
            "{\"bench\":\"%s\",\"bytes\":%llu,\"iters\":%llu,\"avg_us\":%.3f,"
            "\"GBps\":%.4f}\n",
            reduce ? "reduce" : "memcpy", static_cast<unsigned long long>(b),
            static_cast<unsigned long long>(iters), avg * 1e6, static_cast<double>(b) / avg / 1e9);
        std::fflush(stdout);
    }
    return 0;
}
