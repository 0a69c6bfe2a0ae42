// sim_scale: how the simulator scales with team size, running the real
// public-API lifecycle (ucc_init, context, team, collective, teardown) on
// every simulated rank. One JSON line per (ranks, collective):
//   {"bench":"sim_scale","ranks":1024,"collective":"allreduce","dt":"float32",
//    "bytes":65536,"virtual_s":...,"wall_s":...,"events":...,"peak_rss_mb":...,
//    "trace_hash":"0x..."}
// peak_rss_mb is the process peak so far (runs go from small to large).
// Usage: sim_scale [--ranks 64,256,1024] [--quick] [--seed S] [--network SPEC]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/sim_rank.h"
#include "tools/perf/huge_pages.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Work {
    const char *name;
    ucc_coll_type_t type;
    size_t bytes;  // per rank message size (alltoall: per peer)
};

struct RankArgs {
    Work w;
    int failures = 0;
};

void rank_main(void *arg) {
    auto *ra = static_cast<RankArgs *>(arg);
    const uint32_t n = ucc_sim_size();
    ucc::bench::SimRank r;
    if (!ucc::bench::sim_rank_open(&r)) {
        ra->failures++;
        ucc::bench::sim_rank_close(&r);
        return;
    }
    const Work &w = ra->w;
    size_t count = w.bytes / 4;
    size_t src_n = count;
    size_t dst_n = count;
    if (w.type == UCC_COLL_TYPE_ALLTOALL) {
        src_n = dst_n = count * n;
    } else if (w.type == UCC_COLL_TYPE_ALLGATHER) {
        dst_n = count * n;
    }
    std::vector<float> src(src_n, 1.0f);
    std::vector<float> dst(dst_n, 0.0f);
    ucc_coll_args_t a{};
    a.coll_type = w.type;
    a.op = UCC_OP_SUM;
    a.root = 0;
    a.src.info = {src.data(), src_n, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), dst_n, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    double coll_s = 0;
    if (ucc::bench::sim_rank_collective(&r, &a, &coll_s) != UCC_OK) {
        ra->failures++;
    }
    ucc::bench::sim_rank_close(&r);
}

double peak_rss_mb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char **argv) {
    ucc::perf::reexec_on_huge_pages(argv);
    std::vector<uint32_t> ranks = {64, 128, 256, 512, 1024};
    uint64_t seed = 1;
    const char *network = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            ranks = {64, 128};
        } else if (std::strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            ranks.clear();
            for (char *p = argv[++i]; *p != '\0';) {
                ranks.push_back(static_cast<uint32_t>(std::strtoul(p, &p, 10)));
                if (*p == ',') {
                    ++p;
                }
            }
        } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::strcmp(argv[i], "--network") == 0 && i + 1 < argc) {
            network = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: %s [--ranks 64,256,1024] [--quick] [--seed S] [--network SPEC]\n",
                         argv[0]);
            return 2;
        }
    }
    const Work works[] = {
        {"barrier", UCC_COLL_TYPE_BARRIER, 0},         {"allreduce", UCC_COLL_TYPE_ALLREDUCE, 8},
        {"allreduce", UCC_COLL_TYPE_ALLREDUCE, 65536}, {"bcast", UCC_COLL_TYPE_BCAST, 65536},
        {"allgather", UCC_COLL_TYPE_ALLGATHER, 64},    {"alltoall", UCC_COLL_TYPE_ALLTOALL, 64},
    };
    int failed = 0;
    for (uint32_t n : ranks) {
        for (const Work &w : works) {
            RankArgs ra{w};
            ucc_sim_params_t p{};
            p.mask =
                UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS;
            p.n_ranks = n;
            p.seed = seed;
            p.flags = UCC_SIM_FLAG_QUIET;
            if (network != nullptr) {
                p.mask |= UCC_SIM_PARAM_FIELD_NETWORK;
                p.network = network;
            }
            auto t0 = std::chrono::steady_clock::now();
            ucc_status_t st = ucc_sim_run(&p, rank_main, &ra);
            double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (st != UCC_OK || ra.failures != 0) {
                failed = 1;
            }
            std::printf(
                "{\"bench\":\"sim_scale\",\"ranks\":%u,\"collective\":\"%s\",\"dt\":\"float32\","
                "\"bytes\":%zu,\"virtual_s\":%.9g,\"wall_s\":%.4f,\"peak_rss_mb\":%.1f,"
                "\"status\":\"%s\",\"trace_hash\":\"0x%016llx\"}\n",
                n, w.name, w.bytes, ucc_sim_last_time(), wall, peak_rss_mb(),
                st == UCC_OK && ra.failures == 0 ? "ok" : "failed",
                static_cast<unsigned long long>(ucc_sim_trace_hash()));
            std::fflush(stdout);
        }
    }
    return failed;
}
