// sim_workload: what one simulated collective costs at scale, with payload and
// timing-only, through the whole public-API lifecycle on every rank (ucc_init,
// context, team, one collective, teardown). One JSON line per run:
//   {"bench":"sim_workload","ranks":1024,"workload":"allreduce_8B","mode":"timing-only",
//    "ranks_run_as":"fibers","huge_pages":true,"virtual_s":...,"coll_us":...,"wall_s":...,"events":...,
//    "events_per_s":...,"peak_rss_mb":...,"rss_per_rank_kb":...,"resumes":...,"status":"ok",
//    "trace_hash":"0x..."}
// virtual_s is the whole run (setup included), coll_us the collective alone on
// rank 0, peak_rss_mb the peak resident memory of the run, touch_s (payload
// runs) the time this process takes, just before the run, to allocate and
// first-touch every rank's own buffers as the program does (all of them at
// once, as in the run; then freed): the page-fault floor of the run, and
// wall_over_touch the run's wall time over it; resumes the
// switches to a rank's stack (ucc_sim_last_resumes; --no-drain: the engine
// that resumes a rank for every packet, for comparison).
//
// Runs: 1,024 ranks x {barrier, allreduce 8 B, allreduce 64 KiB, alltoall 1 KiB
// per peer} x {timing-only, payload}; 65,536 ranks barrier and allreduce 8 B
// timing-only; 1,048,576 ranks barrier timing-only. --quick: 64 ranks x the
// four x both modes, 1,024 ranks barrier + allreduce 8 B and 4,096 ranks
// barrier, timing-only (a CI smoke test).
//
// The barrier is the classic dissemination barrier (radix 2: one message
// each way a round), the workload these figures have measured since
// 2026-11, unless UCC_BARRIER_DISSEMINATION_RADIX says otherwise: the
// library's own choice by cost (k - 1 messages a round, up to 7) models a
// faster barrier but costs the simulator k - 1 messages in flight per rank
// (a million ranks: 147 s and 9.4 GB instead of about 50 s and 5.2 GB).
//
// Each run is a forked child, so its peak RSS is its own; the parent watches
// the child's resident memory and stops it (status "over_memory_limit") before
// it exceeds --mem-limit-gb (default: 80% of MemAvailable), and after
// --time-limit-s seconds (status "over_time_limit").
//
// --replay runs every case twice in its child and compares the summaries
// (virtual time, collective time, events, trace hash, status): "replay":
// "identical" or "differs" (then status "replay_differs" and exit status 1) --
// determinism at full scale. Wall time and RSS are the first run's.
//
// --fiberless runs every rank in completion-callback style without a fiber
// (UCC_SIM_FLAG_FIBERLESS; bench/sim_rank.h SimRankCallbacks): the same
// calls, the collective posted from a hook once the team is made, torn down
// from its callback's hook; resumes is then 0 and rss_per_rank_kb shows what
// a rank costs without a stack. The run (trace hash) is that of the same
// setup with fibers. --team-oob makes the context without an OOB and the
// team over the simulator's OOB (with fibers or, with --fiberless, without):
// half the events, as the team's members need not agree on its id.
//
// Usage: sim_workload [--quick] [--replay] [--seed S] [--network SPEC] [--only RANKS]
//                     [--workload NAME] [--no-drain] [--fiberless] [--team-oob]
//                     [--mem-limit-gb G]
//                     [--time-limit-s T]
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/sim_rank.h"
#include "tools/perf/huge_pages.h"
#include "tools/perf/memory.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Workload {
    const char *name;
    ucc_coll_type_t type;
    size_t bytes;  // allreduce: vector bytes; alltoall: bytes per peer
};

constexpr Workload kBarrier{"barrier", UCC_COLL_TYPE_BARRIER, 0};
constexpr Workload kAllreduce8{"allreduce_8B", UCC_COLL_TYPE_ALLREDUCE, 8};
constexpr Workload kAllreduce64K{"allreduce_64KiB", UCC_COLL_TYPE_ALLREDUCE, 64 * 1024};
constexpr Workload kAlltoall1K{"alltoall_1KiB_per_peer", UCC_COLL_TYPE_ALLTOALL, 1024};

struct Run {
    uint32_t ranks;
    Workload w;
    bool timing_only;
};

// A rank without a fiber (--fiberless): its lifecycle's state and buffers.
struct FiberlessRank {
    ucc::bench::SimRankCallbacks c;
    std::vector<float> src;
    std::vector<float> dst;
};

struct RankArgs {
    Workload w;
    bool timing_only = false;
    bool team_oob = false;  // --team-oob
    uint64_t failures = 0;
    double coll_s = 0;  // rank 0's collective, virtual seconds
    // --fiberless: the collective every rank posts, and each rank's state.
    ucc_coll_args_t proto{};
    std::vector<FiberlessRank> fiberless;
};

// Elements of each of a rank's two buffers (src and dst), as rank_main sizes them.
size_t buffer_elems(const Workload &w, uint32_t ranks) {
    const size_t count = w.bytes / 4;
    return w.type == UCC_COLL_TYPE_ALLTOALL ? count * ranks : count;
}

// Allocates and first-touches every rank's src and dst as rank_main does, all
// alive at once, then frees them: seconds.
double touch_floor_s(const Workload &w, uint32_t ranks) {
    const size_t n = buffer_elems(w, ranks);
    const auto t0 = Clock::now();
    {
        std::vector<std::vector<float>> bufs(2 * static_cast<size_t>(ranks));
        for (size_t i = 0; i < bufs.size(); ++i) {
            bufs[i].assign(n, i % 2 == 0 ? 1.0f : 0.0f);
        }
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void rank_main(void *arg) {
    auto *ra = static_cast<RankArgs *>(arg);
    ucc::bench::SimRank r;
    if (!ucc::bench::sim_rank_open(&r, ra->team_oob)) {
        ra->failures++;
        ucc::bench::sim_rank_close(&r);
        return;
    }
    // Buffers exist only with payload; timing-only runs pass NULL.
    const Workload &w = ra->w;
    const size_t n_elems = buffer_elems(w, ucc_sim_size());
    std::vector<float> src;
    std::vector<float> dst;
    if (!ra->timing_only) {
        src.assign(n_elems, 1.0f);
        dst.assign(n_elems, 0.0f);
    }
    ucc_coll_args_t a{};
    a.coll_type = w.type;
    a.op = UCC_OP_SUM;
    a.src.info = {src.empty() ? nullptr : src.data(), n_elems, UCC_DT_FLOAT32,
                  UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.empty() ? nullptr : dst.data(), n_elems, UCC_DT_FLOAT32,
                  UCC_MEMORY_TYPE_HOST};
    double coll_s = 0;
    if (ucc::bench::sim_rank_collective(&r, &a, &coll_s) != UCC_OK) {
        ra->failures++;
    }
    if (ucc_sim_rank() == 0) {
        ra->coll_s = coll_s;
    }
    ucc::bench::sim_rank_close(&r);
}

// The same lifecycle in completion-callback style: its start, here; the
// rest in bench/sim_rank.h's callbacks and hooks.
void rank_start(void *arg) {
    auto *ra = static_cast<RankArgs *>(arg);
    FiberlessRank &f = ra->fiberless[ucc_sim_rank()];
    if (!ra->timing_only) {
        const size_t n_elems = buffer_elems(ra->w, ucc_sim_size());
        f.src.assign(n_elems, 1.0f);
        f.dst.assign(n_elems, 0.0f);
        f.c.src = f.src.data();
        f.c.dst = f.dst.data();
    }
    f.c.proto = &ra->proto;
    f.c.team_oob = ra->team_oob;
    ucc::bench::sim_rank_start(&f.c);
}

// The outcome of the fiberless ranks, once the run is over.
void collect_fiberless(RankArgs *ra) {
    for (size_t r = 0; r < ra->fiberless.size(); ++r) {
        const ucc::bench::SimRankCallbacks &c = ra->fiberless[r].c;
        if (c.status != UCC_OK) {
            ra->failures++;
        }
        if (r == 0) {
            ra->coll_s = c.coll_s;
        }
    }
    ra->fiberless.clear();
    ra->fiberless.shrink_to_fit();
}

const char *mode_name(bool timing_only) {
    return timing_only ? "timing-only" : "payload";
}

// What must be identical when a run is repeated with the same seed.
struct Summary {
    double virtual_s = 0;
    double coll_s = 0;
    uint64_t events = 0;
    uint64_t trace_hash = 0;
    uint64_t resumes = 0;
    ucc_status_t status = UCC_OK;
    uint64_t failures = 0;
    bool operator==(const Summary &) const = default;
};

// The child: runs one simulation (twice with `replay`, comparing the two) and
// prints its line.
int child_run(const Run &run, uint64_t seed, const char *network, bool replay, uint64_t flags,
              bool team_oob) {
    RankArgs ra;
    ra.team_oob = team_oob;
    ra.w = run.w;
    ra.timing_only = run.timing_only;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS |
             UCC_SIM_PARAM_FIELD_TIMING_ONLY;
    p.n_ranks = run.ranks;
    p.seed = seed;
    p.flags = UCC_SIM_FLAG_QUIET | flags;
    p.timing_only = run.timing_only ? 1 : 0;
    if (network != nullptr) {
        p.mask |= UCC_SIM_PARAM_FIELD_NETWORK;
        p.network = network;
    }
    const bool fiberless = (flags & UCC_SIM_FLAG_FIBERLESS) != 0;
    ra.proto.coll_type = run.w.type;
    ra.proto.op = UCC_OP_SUM;
    const size_t n_elems = buffer_elems(run.w, run.ranks);
    ra.proto.src.info = {nullptr, n_elems, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    ra.proto.dst.info = {nullptr, n_elems, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    auto simulate = [&](double *wall) {
        ra.failures = 0;
        ra.coll_s = 0;
        const auto t0 = Clock::now();
        Summary s;
        if (fiberless) {
            ra.fiberless.resize(run.ranks);
            s.status = ucc_sim_run(&p, rank_start, &ra);
            collect_fiberless(&ra);
        } else {
            s.status = ucc_sim_run(&p, rank_main, &ra);
        }
        *wall = std::chrono::duration<double>(Clock::now() - t0).count();
        s.virtual_s = ucc_sim_last_time();
        s.coll_s = ra.coll_s;
        s.events = ucc_sim_last_events();
        s.trace_hash = ucc_sim_trace_hash();
        s.resumes = ucc_sim_last_resumes();
        s.failures = ra.failures;
        return s;
    };
    const double touch_s = run.timing_only ? 0 : touch_floor_s(run.w, run.ranks);
    double wall = 0;
    const Summary s = simulate(&wall);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
    bool ok = s.status == UCC_OK && s.failures == 0;
    std::string replayed;
    if (replay) {
        double wall2 = 0;
        const bool same = simulate(&wall2) == s;
        replayed = std::string(",\"replay\":\"") + (same ? "identical" : "differs") + "\"";
        ok = ok && same;
    }
    std::string floor;
    if (!run.timing_only) {
        char buf[96];
        std::snprintf(buf, sizeof(buf), ",\"touch_s\":%.3f,\"wall_over_touch\":%.2f", touch_s,
                      touch_s > 0 ? wall / touch_s : 0.0);
        floor = buf;
    }
    std::printf(
        "{\"bench\":\"sim_workload\",\"ranks\":%u,\"workload\":\"%s\",\"mode\":\"%s\","
        "\"ranks_run_as\":\"%s\",\"huge_pages\":%s,\"virtual_s\":%.9g,\"coll_us\":%.3f,\"wall_s\":%"
        ".3f,\"events\":"
        "%" PRIu64
        ",\"events_per_s\":%.0f,\"peak_rss_mb\":%.1f,\"rss_per_rank_kb\":%.2f,"
        "\"resumes\":%" PRIu64 "%s,\"status\":\"%s\",\"trace_hash\":\"0x%016" PRIx64 "\"%s}\n",
        run.ranks, run.w.name, mode_name(run.timing_only), fiberless ? "callbacks" : "fibers",
        ucc::perf::heap_on_huge_pages() ? "true" : "false", s.virtual_s, s.coll_s * 1e6, wall,
        s.events, wall > 0 ? static_cast<double>(s.events) / wall : 0.0, rss_mb,
        rss_mb * 1024.0 / run.ranks, s.resumes, floor.c_str(),
        s.status == UCC_OK && s.failures == 0
            ? (ok ? "ok" : "replay_differs")
            : (s.status != UCC_OK ? ucc_status_string(s.status) : "api_failure"),
        s.trace_hash, replayed.c_str());
    std::fflush(stdout);
    return ok ? 0 : 1;
}

// Resident set of a process, in MiB (0 if unknown).
double rss_mb_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/statm");
    uint64_t size = 0;
    uint64_t resident = 0;
    if (!(f >> size >> resident)) {
        return 0;
    }
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
           (1024.0 * 1024.0);
}

double mem_available_gb() {
    const uint64_t bytes = ucc::perf::available_memory_bytes();
    return bytes == 0 ? 8.0 : static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
}

// Forks a child for the run and watches it. Returns false if it failed.
bool supervised_run(const Run &run, uint64_t seed, const char *network, double mem_limit_gb,
                    double time_limit_s, bool replay, uint64_t flags, bool team_oob) {
    std::fflush(stdout);
    const auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        std::perror("fork");
        return false;
    }
    if (pid == 0) {
        std::_Exit(child_run(run, seed, network, replay, flags, team_oob));
    }
    double peak_seen_mb = 0;
    const char *stopped = nullptr;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            break;
        }
        const double rss = rss_mb_of(pid);
        peak_seen_mb = std::max(peak_seen_mb, rss);
        const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        if (stopped == nullptr && rss > mem_limit_gb * 1024.0) {
            stopped = "over_memory_limit";
        } else if (stopped == nullptr && elapsed > time_limit_s) {
            stopped = "over_time_limit";
        }
        if (stopped != nullptr) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (stopped == nullptr && WIFEXITED(status)) {
        return WEXITSTATUS(status) == 0;  // the child printed its line
    }
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    std::string why = stopped != nullptr ? stopped : "crashed";
    if (stopped == nullptr && WIFSIGNALED(status)) {
        why += std::string(" (signal ") + std::to_string(WTERMSIG(status)) + ")";
    }
    std::printf(
        "{\"bench\":\"sim_workload\",\"ranks\":%u,\"workload\":\"%s\",\"mode\":\"%s\","
        "\"wall_s\":%.3f,\"peak_rss_mb\":%.1f,\"rss_per_rank_kb\":%.2f,\"status\":\"%s\","
        "\"mem_limit_gb\":%.1f,\"time_limit_s\":%.0f}\n",
        run.ranks, run.w.name, mode_name(run.timing_only), wall, peak_seen_mb,
        peak_seen_mb * 1024.0 / run.ranks, why.c_str(), mem_limit_gb, time_limit_s);
    std::fflush(stdout);
    return false;
}

}  // namespace

int main(int argc, char **argv) {
    ucc::perf::reexec_on_huge_pages(argv);
    setenv("UCC_BARRIER_DISSEMINATION_RADIX", "2", 0);  // the classic barrier (above)
    bool quick = false;
    bool replay = false;
    uint64_t seed = 1;
    const char *network = nullptr;
    double mem_limit_gb = 0.8 * mem_available_gb();
    double time_limit_s = 1800;
    uint32_t only = 0;
    const char *workload = nullptr;
    uint64_t flags = 0;
    bool team_oob = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (std::strcmp(argv[i], "--replay") == 0) {
            replay = true;
        } else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::strcmp(argv[i], "--network") == 0 && i + 1 < argc) {
            network = argv[++i];
        } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
        } else if (std::strcmp(argv[i], "--workload") == 0 && i + 1 < argc) {
            workload = argv[++i];
        } else if (std::strcmp(argv[i], "--no-drain") == 0) {
            flags |= UCC_SIM_FLAG_NO_DRAIN;
        } else if (std::strcmp(argv[i], "--fiberless") == 0) {
            flags |= UCC_SIM_FLAG_FIBERLESS;
        } else if (std::strcmp(argv[i], "--team-oob") == 0) {
            team_oob = true;
        } else if (std::strcmp(argv[i], "--mem-limit-gb") == 0 && i + 1 < argc) {
            mem_limit_gb = std::strtod(argv[++i], nullptr);
        } else if (std::strcmp(argv[i], "--time-limit-s") == 0 && i + 1 < argc) {
            time_limit_s = std::strtod(argv[++i], nullptr);
        } else {
            std::fprintf(stderr,
                         "usage: %s [--quick] [--replay] [--seed S] [--network SPEC] "
                         "[--only RANKS] [--workload NAME] [--no-drain] [--fiberless] [--team-oob] "
                         "[--mem-limit-gb G] "
                         "[--time-limit-s T]\n",
                         argv[0]);
            return 2;
        }
    }
    const uint32_t small = quick ? 64 : 1024;
    const uint32_t medium = quick ? 1024 : 65536;
    const uint32_t large = quick ? 4096 : 1048576;
    std::vector<Run> runs;
    for (const Workload &w : {kBarrier, kAllreduce8, kAllreduce64K, kAlltoall1K}) {
        runs.push_back({small, w, true});
        runs.push_back({small, w, false});
    }
    runs.push_back({medium, kBarrier, true});
    runs.push_back({medium, kAllreduce8, true});
    runs.push_back({large, kBarrier, true});
    int failed = 0;
    for (const Run &run : runs) {
        if ((only != 0 && run.ranks != only) ||
            (workload != nullptr && std::strcmp(run.w.name, workload) != 0)) {
            continue;
        }
        if (!supervised_run(run, seed, network, mem_limit_gb, time_limit_s, replay, flags,
                            team_oob)) {
            failed = 1;
        }
    }
    return failed;
}
