// What the collective latency benchmarks share (ucx_latency over UCC,
// mpi_latency over plain MPI), so that both measure the same thing the same
// way: the collectives, the buffer shapes and byte counts nccl-tests uses, the
// size sweep, how many iterations, the timing loop and the JSON line.
// Header-only; it knows neither UCC nor MPI.
//
// Methodology of one point (a collective at one size):
//   1. a barrier, then 2 probe iterations; the slowest rank's average sizes
//      the warm-up (about --warmup-time seconds, at least --warmup-min);
//   2. a barrier, the warm-up; the slowest rank's average sizes the timed run
//      (about --time seconds, within [--iters-min, --iters-max]);
//   3. a barrier, then the timed run: back-to-back iterations, each rank
//      timing its own loop; the reported average is the slowest rank's.
// Every rank derives the counts from the same maxima, so they agree.
//
// Bytes, algorithm and bus bandwidth as nccl-tests defines them (its
// doc/PERFORMANCE.md): `bytes` is the largest per-rank buffer — the vector
// (allreduce, bcast), the gathered result (allgather), the input
// (reduce_scatter), the send buffer (alltoall); algbw = bytes / time;
// busbw = algbw * 2(n-1)/n (allreduce), (n-1)/n (allgather, reduce_scatter,
// alltoall), 1 (bcast). Elements are float32; reductions are SUM.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ucc::bench {

enum class CollKind { kAllreduce, kBcast, kAllgather, kAlltoall, kReduceScatter, kBarrier };

struct CollInfo {
    CollKind kind;
    const char *name;
};

inline constexpr CollInfo kColls[] = {
    {CollKind::kAllreduce, "allreduce"},          {CollKind::kBcast, "bcast"},
    {CollKind::kAllgather, "allgather"},          {CollKind::kAlltoall, "alltoall"},
    {CollKind::kReduceScatter, "reduce_scatter"}, {CollKind::kBarrier, "barrier"},
};

inline const char *coll_name(CollKind k) {
    for (const CollInfo &c : kColls) {
        if (c.kind == k) {
            return c.name;
        }
    }
    return "?";
}

// nccl-tests' factor from algorithm to bus bandwidth in a team of n.
inline double busbw_factor(CollKind k, uint32_t n) {
    switch (k) {
        case CollKind::kAllreduce:
            return 2.0 * (n - 1) / n;
        case CollKind::kAllgather:
        case CollKind::kAlltoall:
        case CollKind::kReduceScatter:
            return static_cast<double>(n - 1) / n;
        case CollKind::kBcast:
            return 1.0;
        case CollKind::kBarrier:
            return 0.0;
    }
    return 0.0;
}

inline constexpr uint64_t kElemBytes = 4;  // float32

// One rank's buffers in elements. `block` is the per-rank block of the blocked
// collectives (the whole vector for allreduce and bcast).
struct Shape {
    uint64_t bytes = 0;  // nccl-tests' size (see the header)
    uint64_t block = 0;
    uint64_t src_count = 0;
    uint64_t dst_count = 0;
};

// The shape closest to `bytes_wanted` from below (at least one element per
// block, so small sizes round up at larger n).
inline Shape shape_of(CollKind k, uint64_t bytes_wanted, uint32_t n) {
    Shape s;
    const uint64_t elems = std::max<uint64_t>(1, bytes_wanted / kElemBytes);
    switch (k) {
        case CollKind::kAllreduce:
        case CollKind::kBcast:
            s.block = s.src_count = s.dst_count = elems;
            s.bytes = elems * kElemBytes;
            break;
        case CollKind::kAllgather:
            s.block = std::max<uint64_t>(1, elems / n);
            s.src_count = s.block;
            s.dst_count = s.block * n;
            s.bytes = s.dst_count * kElemBytes;
            break;
        case CollKind::kReduceScatter:
            s.block = std::max<uint64_t>(1, elems / n);
            s.src_count = s.block * n;
            s.dst_count = s.block;
            s.bytes = s.src_count * kElemBytes;
            break;
        case CollKind::kAlltoall:
            s.block = std::max<uint64_t>(1, elems / n);
            s.src_count = s.dst_count = s.block * n;
            s.bytes = s.src_count * kElemBytes;
            break;
        case CollKind::kBarrier:
            break;
    }
    return s;
}

struct Options {
    std::vector<CollKind> colls;
    uint64_t min_bytes = 8;
    uint64_t max_bytes = uint64_t{64} << 20;
    double time_s = 0.2;          // timed part of one point
    double warmup_s = 0.05;       // warm-up of one point
    uint64_t warmup_min = 5;      // warm-up iterations at least
    uint64_t iters_min = 5;       // timed iterations at least
    uint64_t iters_max = 200000;  // timed (and warm-up) iterations at most
    bool quick = false;
    std::string mode = "both";  // ucx_latency: persistent, init or both
    bool check = true;          // check a few result elements after each point
    std::string label;          // copied into every line as "label" (a configuration's name)
};

// "8", "64K", "4M", "1G" (binary multiples).
inline bool parse_bytes(const char *s, uint64_t *out) {
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (end == s) {
        return false;
    }
    uint64_t mult = 1;
    if (*end == 'K' || *end == 'k') {
        mult = uint64_t{1} << 10;
        ++end;
    } else if (*end == 'M' || *end == 'm') {
        mult = uint64_t{1} << 20;
        ++end;
    } else if (*end == 'G' || *end == 'g') {
        mult = uint64_t{1} << 30;
        ++end;
    }
    if (*end == 'B') {
        ++end;
    }
    if (*end != '\0') {
        return false;
    }
    *out = v * mult;
    return true;
}

inline const char *kUsage =
    "  --colls LIST        allreduce,bcast,allgather,alltoall,reduce_scatter,barrier (all)\n"
    "  --min-bytes N       smallest size, K/M/G suffixes (8)\n"
    "  --max-bytes N       largest size; sizes double from the smallest (64M)\n"
    "  --time S            seconds of timed iterations per point (0.2)\n"
    "  --warmup-time S     seconds of warm-up per point (0.05)\n"
    "  --warmup-min N      warm-up iterations at least (5)\n"
    "  --iters-min N       timed iterations at least (5)\n"
    "  --iters-max N       timed or warm-up iterations at most (200000)\n"
    "  --no-check          skip the check of a few result elements\n"
    "  --label NAME        add \"label\":\"NAME\" to every line (letters, digits, _ - . =)\n"
    "  --quick             a smoke run: 8 B .. 4 KiB, a few iterations\n";

// Parses the shared options; `extra` is called on anything else (returns the
// number of arguments it consumed, 0 for unknown). `--oob X` is skipped.
template <class Extra>
bool parse_options(int argc, char **argv, Options *o, std::string *err, Extra extra) {
    bool colls_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has_value = i + 1 < argc;
        auto value = [&]() { return argv[++i]; };
        if (a == "--oob" && has_value) {
            ++i;
        } else if (a == "--colls" && has_value) {
            colls_given = true;
            o->colls.clear();
            std::string list = value();
            size_t pos = 0;
            while (pos <= list.size()) {
                const size_t comma = std::min(list.find(',', pos), list.size());
                const std::string name = list.substr(pos, comma - pos);
                bool found = false;
                for (const CollInfo &c : kColls) {
                    if (name == c.name) {
                        o->colls.push_back(c.kind);
                        found = true;
                    }
                }
                if (!found) {
                    *err = "--colls: unknown collective '" + name + "'";
                    return false;
                }
                pos = comma + 1;
            }
        } else if (a == "--min-bytes" && has_value) {
            if (!parse_bytes(value(), &o->min_bytes)) {
                *err = "--min-bytes: not a size";
                return false;
            }
        } else if (a == "--max-bytes" && has_value) {
            if (!parse_bytes(value(), &o->max_bytes)) {
                *err = "--max-bytes: not a size";
                return false;
            }
        } else if (a == "--time" && has_value) {
            o->time_s = std::atof(value());
        } else if (a == "--warmup-time" && has_value) {
            o->warmup_s = std::atof(value());
        } else if (a == "--warmup-min" && has_value) {
            o->warmup_min = std::strtoull(value(), nullptr, 10);
        } else if (a == "--iters-min" && has_value) {
            o->iters_min = std::strtoull(value(), nullptr, 10);
        } else if (a == "--iters-max" && has_value) {
            o->iters_max = std::strtoull(value(), nullptr, 10);
        } else if (a == "--label" && has_value) {
            o->label = value();
            for (char ch : o->label) {
                if (!std::isalnum(static_cast<unsigned char>(ch)) &&
                    std::strchr("_-.=", ch) == nullptr) {
                    *err = "--label: only letters, digits and _ - . =";
                    return false;
                }
            }
        } else if (a == "--no-check") {
            o->check = false;
        } else if (a == "--quick") {
            o->quick = true;
        } else {
            const int used = extra(argc - i, argv + i);
            if (used <= 0) {
                *err = "unknown argument '" + a + "'";
                return false;
            }
            i += used - 1;
        }
    }
    if (o->quick) {
        o->max_bytes = std::min<uint64_t>(o->max_bytes, 4096);
        o->min_bytes = std::min(o->min_bytes, o->max_bytes);
        o->time_s = std::min(o->time_s, 0.005);
        o->warmup_s = std::min(o->warmup_s, 0.001);
        o->warmup_min = std::min<uint64_t>(o->warmup_min, 2);
        o->iters_min = std::min<uint64_t>(o->iters_min, 2);
        o->iters_max = std::min<uint64_t>(o->iters_max, 50);
    }
    if (!colls_given) {
        for (const CollInfo &c : kColls) {
            o->colls.push_back(c.kind);
        }
    }
    if (o->min_bytes == 0 || o->min_bytes > o->max_bytes || !(o->time_s > 0) || o->warmup_s < 0 ||
        o->iters_min == 0 || o->iters_max < o->iters_min) {
        *err = "inconsistent sizes, times or iteration bounds";
        return false;
    }
    return true;
}

// The sweep of one collective: doubling sizes, each shape once (small sizes
// round up to one element per block); a barrier has one point.
inline std::vector<Shape> sweep(const Options &o, CollKind k, uint32_t n) {
    std::vector<Shape> shapes;
    if (k == CollKind::kBarrier) {
        shapes.push_back(Shape{});
        return shapes;
    }
    // Bounded: at most 64 doublings.
    for (uint64_t b = o.min_bytes; b <= o.max_bytes && shapes.size() < 64; b *= 2) {
        const Shape s = shape_of(k, b, n);
        if (shapes.empty() || s.bytes != shapes.back().bytes) {
            shapes.push_back(s);
        }
    }
    return shapes;
}

inline double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Iterations that take about `seconds` at `per_iter_s` each, within [lo, hi].
inline uint64_t plan_iters(double seconds, double per_iter_s, uint64_t lo, uint64_t hi) {
    const double want = per_iter_s > 0 ? std::ceil(seconds / per_iter_s) : static_cast<double>(hi);
    return std::clamp(static_cast<uint64_t>(std::min(want, 1e18)), lo, std::max(lo, hi));
}

struct Measured {
    uint64_t iters = 0;
    double avg_s = 0;      // the slowest rank's average
    double avg_min_s = 0;  // the fastest rank's average
};

// Times one point (see the header). `Point` provides iterate() (one collective,
// to completion), barrier() and max_over_ranks(double) (collective).
template <class Point>
Measured measure(Point &p, const Options &o) {
    p.barrier();
    double t0 = now_s();
    p.iterate();
    p.iterate();
    const double probe = p.max_over_ranks((now_s() - t0) / 2);
    const uint64_t warm = plan_iters(o.warmup_s, probe, o.warmup_min, o.iters_max);
    p.barrier();
    t0 = now_s();
    for (uint64_t i = 0; i < warm; ++i) {
        p.iterate();
    }
    const double warm_avg = p.max_over_ranks((now_s() - t0) / static_cast<double>(warm));
    Measured m;
    m.iters = plan_iters(o.time_s, warm_avg, o.iters_min, o.iters_max);
    p.barrier();
    t0 = now_s();
    for (uint64_t i = 0; i < m.iters; ++i) {
        p.iterate();
    }
    const double avg = (now_s() - t0) / static_cast<double>(m.iters);
    m.avg_s = p.max_over_ranks(avg);
    m.avg_min_s = -p.max_over_ranks(-avg);
    return m;
}

// One JSON line (no newline): {"bench","np","collective","bytes","iters",
// "avg_us","algbw_GBps","busbw_GBps","dtype","min_rank_avg_us", the label if
// any, then `extra` fields}. Barrier: bytes 0 and null bandwidths.
inline std::string json_line(const char *bench, uint32_t np, CollKind k, const Shape &s,
                             const Measured &m, const Options &o, const std::string &extra) {
    char buf[512];
    const double avg_us = m.avg_s * 1e6;
    std::string bw = "null";
    std::string busbw = "null";
    if (k != CollKind::kBarrier && m.avg_s > 0) {
        const double algbw = static_cast<double>(s.bytes) / m.avg_s / 1e9;
        char b[64];
        std::snprintf(b, sizeof b, "%.4f", algbw);
        bw = b;
        std::snprintf(b, sizeof b, "%.4f", algbw * busbw_factor(k, np));
        busbw = b;
    }
    std::snprintf(buf, sizeof buf,
                  "{\"bench\":\"%s\",\"np\":%u,\"collective\":\"%s\",\"bytes\":%llu,"
                  "\"iters\":%llu,\"avg_us\":%.3f,\"algbw_GBps\":%s,\"busbw_GBps\":%s,"
                  "\"dtype\":\"float32\",\"min_rank_avg_us\":%.3f",
                  bench, np, coll_name(k), static_cast<unsigned long long>(s.bytes),
                  static_cast<unsigned long long>(m.iters), avg_us, bw.c_str(), busbw.c_str(),
                  m.avg_min_s * 1e6);
    const std::string label = o.label.empty() ? "" : ",\"label\":\"" + o.label + "\"";
    return std::string(buf) + label + extra + "}";
}

// Pins the calling process to the local_rank-th CPU it may run on, when there
// are at least local_size of them (busy-polling processes sharing a CPU wait
// for the scheduler's tick, not for each other). Returns the CPU, or -1 when
// the process stays unbound.
inline int bind_to_cpu(uint32_t local_rank, uint32_t local_size) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        static_cast<uint32_t>(CPU_COUNT(&allowed)) < local_size) {
        return -1;
    }
    uint32_t seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &allowed) && seen++ == local_rank) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
        }
    }
    return -1;
}

// Page-aligned, pre-touched float buffer (first touches stay out of timing).
class Buffer {
  public:
    Buffer() = default;
    explicit Buffer(uint64_t count) : count_(count) {
        const size_t bytes = this->bytes();
        p_ = static_cast<float *>(std::aligned_alloc(4096, bytes));
        if (p_ == nullptr) {
            std::fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
            std::exit(2);
        }
        std::memset(p_, 0, bytes);
    }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    Buffer(Buffer &&o) noexcept : p_(o.p_), count_(o.count_) { o.p_ = nullptr; }
    Buffer &operator=(Buffer &&o) noexcept {
        std::swap(p_, o.p_);
        std::swap(count_, o.count_);
        return *this;
    }
    ~Buffer() { std::free(p_); }
    float *data() const { return p_; }
    uint64_t count() const { return count_; }
    // What was allocated (whole pages).
    size_t bytes() const {
        return ((std::max<uint64_t>(count_, 1) * kElemBytes + 4095) / 4096) * 4096;
    }
    void fill(float v) { std::fill(p_, p_ + count_, v); }

  private:
    float *p_ = nullptr;
    uint64_t count_ = 0;
};

// Inputs every rank fills before a point: rank r contributes r + 1 everywhere
// (the bcast root's vector is 1). `expect_ok` checks the first and last element
// of each block of the result after the last iteration.
inline void fill_inputs(CollKind k, uint32_t rank, Buffer &src, Buffer &dst) {
    src.fill(k == CollKind::kBcast ? (rank == 0 ? 1.0f : 0.0f) : static_cast<float>(rank + 1));
    dst.fill(-1.0f);
}

inline bool expect_ok(CollKind k, uint32_t rank, uint32_t n, const Shape &s, const Buffer &src,
                      const Buffer &dst, std::string *why) {
    const float sum = static_cast<float>(n) * static_cast<float>(n + 1) / 2;
    auto check = [&](const float *p, uint64_t i, float want) {
        if (p[i] != want) {
            char b[160];
            std::snprintf(b, sizeof b, "%s: rank %u element %llu is %g, expected %g", coll_name(k),
                          rank, static_cast<unsigned long long>(i), static_cast<double>(p[i]),
                          static_cast<double>(want));
            *why = b;
            return false;
        }
        return true;
    };
    switch (k) {
        case CollKind::kAllreduce:
            return check(dst.data(), 0, sum) && check(dst.data(), s.dst_count - 1, sum);
        case CollKind::kReduceScatter:
            return check(dst.data(), 0, sum) && check(dst.data(), s.dst_count - 1, sum);
        case CollKind::kBcast:
            return check(src.data(), 0, 1.0f) && check(src.data(), s.src_count - 1, 1.0f);
        case CollKind::kAllgather:
        case CollKind::kAlltoall:
            for (uint32_t i = 0; i < n; ++i) {
                const float want = static_cast<float>(i + 1);
                if (!check(dst.data(), i * s.block, want) ||
                    !check(dst.data(), (i + 1) * s.block - 1, want)) {
                    return false;
                }
            }
            return true;
        case CollKind::kBarrier:
            return true;
    }
    return true;
}

}  // namespace ucc::bench
