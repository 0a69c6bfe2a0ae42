// gpu_reduce_bw: the CUDA component's reduction kernel against the device's own
// copy, measured in the same run on the same buffers (scripts/gpu_check.sh).
// For each size, one JSON line:
//   {"bench":"gpu_reduce_bw","dt":"float32","bytes":B,"copy_GBps":C,"reduce_GBps":R,
//    "fraction":R/C}
// copy_GBps: a device-to-device cudaMemcpyAsync of B bytes, counted as 2 B moved
// (read and written); reduce_GBps: dst = a + b over B bytes each, 3 B moved. A
// fraction near 1 says the kernel runs at the device's memory bandwidth. Times are
// the host's clock around a stream synchronisation, the mean of --iters runs after
// a warm-up. Exit 77 when no device is usable (the reason on stderr).
//
//   gpu_reduce_bw [--min-bytes 1M] [--max-bytes 256M] [--iters 20] [--dt float32]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/coll_bench.h"
#include "lib/core/cuda_loader.h"
#include "lib/core/log.h"
#include "lib/dt/dt.h"

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

int main(int argc, char **argv) {
    uint64_t min_bytes = uint64_t{1} << 20;
    uint64_t max_bytes = uint64_t{256} << 20;
    int iters = 20;
    std::string dt_name = "float32";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        bool ok = true;
        if (a == "--min-bytes" && i + 1 < argc) {
            ok = ucc::bench::parse_bytes(argv[++i], &min_bytes);
        } else if (a == "--max-bytes" && i + 1 < argc) {
            ok = ucc::bench::parse_bytes(argv[++i], &max_bytes);
        } else if (a == "--iters" && i + 1 < argc) {
            iters = std::atoi(argv[++i]);
            ok = iters > 0;
        } else if (a == "--dt" && i + 1 < argc) {
            dt_name = argv[++i];
        } else {
            ok = false;
        }
        if (!ok) {
            std::fprintf(stderr,
                         "usage: gpu_reduce_bw [--min-bytes B] [--max-bytes B] [--iters N] "
                         "[--dt float32|float16|bfloat16|float64|int32]\n");
            return 2;
        }
    }
    ucc_datatype_t dt = UCC_DT_FLOAT32;
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        if (dt_name == ucc::dt::name(UCC_PREDEFINED_DT(id))) {
            dt = UCC_PREDEFINED_DT(id);
        }
    }
    ucc::core::Logger log;
    ucc::core::CudaComponent cuda;
    if (const char *dir = std::getenv("UCC_COMPONENT_PATH")) {
        cuda.set_search_path(dir);
    }
    if (!cuda.usable(log)) {
        std::fprintf(stderr, "gpu_reduce_bw: %s\n", cuda.why(log).c_str());
        return 77;
    }
    const ucc_cuda_component_t *ops = cuda.ops(log);
    void *a = nullptr, *b = nullptr, *dst = nullptr, *stream = nullptr;
    auto check = [&](int rc, const char *what) {
        if (rc != 0) {
            std::fprintf(stderr, "gpu_reduce_bw: %s: %s\n", what, ops->error_string(rc));
            std::exit(1);
        }
    };
    check(ops->alloc(UCC_CUDA_ALLOC_DEVICE, max_bytes, &a), "cudaMalloc");
    check(ops->alloc(UCC_CUDA_ALLOC_DEVICE, max_bytes, &b), "cudaMalloc");
    check(ops->alloc(UCC_CUDA_ALLOC_DEVICE, max_bytes, &dst), "cudaMalloc");
    check(ops->stream_create(&stream), "cudaStreamCreate");
    const size_t es = ucc::dt::size_of(dt);
    for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
        const size_t count = bytes / es;
        auto time = [&](bool reduce) {
            auto once = [&] {
                check(reduce ? ops->reduce_async(dt, UCC_OP_SUM, dst, a, b, count, stream)
                             : ops->copy_async(dst, a, count * es, stream),
                      reduce ? "reduce" : "copy");
            };
            once();
            check(ops->stream_sync(stream), "sync");
            const double t0 = now_s();
            for (int i = 0; i < iters; ++i) {
                once();
            }
            check(ops->stream_sync(stream), "sync");
            return (now_s() - t0) / iters;
        };
        const double copy_s = time(false);
        const double reduce_s = time(true);
        const double copy_gbps = 2.0 * count * es / copy_s / 1e9;
        const double reduce_gbps = 3.0 * count * es / reduce_s / 1e9;
        std::printf(
            "{\"bench\":\"gpu_reduce_bw\",\"dt\":\"%s\",\"bytes\":%llu,\"iters\":%d,"
            "\"copy_us\":%.2f,\"reduce_us\":%.2f,\"copy_GBps\":%.1f,\"reduce_GBps\":%.1f,"
            "\"fraction\":%.3f}\n",
            ucc::dt::name(dt), static_cast<unsigned long long>(count * es), iters, copy_s * 1e6,
            reduce_s * 1e6, copy_gbps, reduce_gbps, reduce_gbps / copy_gbps);
        std::fflush(stdout);
    }
    ops->stream_destroy(stream);
    for (void *p : {a, b, dst}) {
        ops->free(UCC_CUDA_ALLOC_DEVICE, p);
    }
    return 0;
}
