// ucc_perftest: the reference's collective benchmark, over UCX between real
// processes (started by ucc_run, mpirun, srun or any launcher of the
// environment contract) or on the simulator (--sim N): the same binary, the
// same table, so that a real run and its simulation compare side by side.
//
//   ucc_perftest [-c coll] [-b min count] [-e max count] [-d dtype] [-o op]
//                [-m memtype] [-n iters] [-w warmup] [-f factor] [-N buffers]
//                [-r root] [-S root shift] [-M none|local|global] [-i] [-p] [-F]
//                [--json FILE] [--no-check] [--sim N [--network SPEC] [--seed S]
//                [--timeline FILE]]
//
// Counts are in elements (-b/-e take 1k, 1m). Every rank checks every
// result of the last iteration of each count against a pattern; a wrong
// result makes the exit code 1. Time per iteration is each rank's average;
// the table shows the average, minimum and maximum of those across ranks,
// and with -F the bus bandwidth by nccl-tests' factors. This file holds the
// options and the two ways to run; the sweep, the table and the JSON rows are
// tools/perf's (sweep.h, report.h), shared with ucc_sim.
#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/core.h"
#include "lib/core/cuda_loader.h"
#include "tools/perf/coll_call.h"
#include "tools/perf/colls.h"
#include "tools/perf/lifecycle.h"
#include "tools/perf/network.h"
#include "tools/perf/report.h"
#include "tools/perf/sweep.h"
#include "ucc/api/ucc.h"
#include "ucc/boot/ucc_boot.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::perf::CollSpec;

struct Options {
    CollSpec spec;
    uint64_t min_count = 128;
    uint64_t max_count = 128;
    uint64_t factor = 2;
    uint32_t iters_small = 1000;
    uint32_t iters_large = 200;
    uint32_t warmup_small = 100;
    uint32_t warmup_large = 20;
    uint32_t n_bufs = 1;
    uint32_t root_shift = 0;
    bool full = false;
    bool check = true;
    std::string json;
    bool progress = true;
    uint32_t sim_ranks = 0;  // 0: real processes
    ucc::perf::NetworkArg network;
    uint64_t seed = 1;
    std::string timeline;  // --timeline: the simulator's timeline file ("": none)
};

constexpr uint64_t kLargeCount = 65536;  // from here on: the "large" iteration counts

[[noreturn]] void die(const std::string &what) {
    std::fprintf(stderr, "ucc_perftest: %s\n", what.c_str());
    std::exit(2);
}

void usage(FILE *f) {
    std::fprintf(f,
                 "Usage: ucc_perftest [options]\n"
                 "  -c <coll>      %s (default allreduce)\n"
                 "  -b <count>     minimal count in elements (default 128)\n"
                 "  -e <count>     maximal count in elements (default 128)\n"
                 "  -d <dtype>     %s (default float32)\n"
                 "  -o <op>        %s (default sum)\n"
                 "  -m <memtype>   host (default), cuda, cuda-mng (CUDA component and a GPU;\n"
                 "                 on the simulator a label); rocm is not built here\n"
                 "  -n <number>    iterations (default 1000 small, 200 large)\n"
                 "  -w <number>    warmup iterations (default 100 small, 20 large)\n"
                 "  -f <factor>    multiplication factor between counts (default 2)\n"
                 "  -N <number>    rotate among this many buffer sets (default 1)\n"
                 "  -r <root>      root of rooted collectives (default 0)\n"
                 "  -S <shift>     root shift per iteration (default 0)\n"
                 "  -M <type>      memory map: none (default), local, global\n"
                 "  -i             in place\n"
                 "  -p             persistent collectives\n"
                 "  -T             triggered collectives: each on a CUDA stream through a\n"
                 "                 UCC_EE_CUDA_STREAM engine (-m cuda, as the reference)\n"
                 "  -F             full print: bus bandwidth columns\n"
                 "  -h             this help\n"
                 "Beyond the reference:\n"
                 "  --json FILE    one JSON line per count, also written to FILE\n"
                 "  --no-check     do not check results\n"
                 "  --no-progress  no progress bar (drawn on a terminal, for runs over 2 s)\n"
                 "  --sim N        run on N simulated ranks in this process (virtual time)\n"
                 "  --network NET  the simulator's network: preset, spec or file (default hdr;\n"
                 "                 see ucc_sim)\n"
                 "  --seed S       the simulator's seed (default 1)\n"
                 "  --timeline F   the simulated run's timeline, Chrome trace JSON (see ucc_sim)\n",
                 ucc::perf::coll_names().c_str(), ucc::perf::dtype_names().c_str(),
                 ucc::perf::op_names().c_str());
}

uint64_t number(const char *opt, const char *v, uint64_t max) {
    uint64_t x = 0;
    if (!ucc::perf::parse_units(v, &x) || x > max) {
        die(std::string("invalid value of ") + opt + ": " + v);
    }
    return x;
}

Options parse(int argc, char **argv) {
    Options o;
    o.spec.coll = ucc::perf::find_coll("allreduce");
    o.spec.dtype = ucc::perf::find_dtype("float32");
    o.spec.op = ucc::perf::find_op("sum");
    static const option kLong[] = {{"json", required_argument, nullptr, 'J'},
                                   {"no-check", no_argument, nullptr, 'K'},
                                   {"no-progress", no_argument, nullptr, 'P'},
                                   {"sim", required_argument, nullptr, 'Z'},
                                   {"network", required_argument, nullptr, 'W'},
                                   {"seed", required_argument, nullptr, 'E'},
                                   {"timeline", required_argument, nullptr, 'L'},
                                   {"help", no_argument, nullptr, 'h'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:b:e:d:f:m:n:w:o:N:r:S:M:iphFT", kLong, nullptr)) != -1) {
        switch (c) {
            case 'c':
                o.spec.coll = ucc::perf::find_coll(optarg);
                if (o.spec.coll == nullptr) {
                    die(std::string("invalid operation: ") + optarg);
                }
                break;
            case 'b':
                o.min_count = number("-b", optarg, uint64_t{1} << 40);
                break;
            case 'e':
                o.max_count = number("-e", optarg, uint64_t{1} << 40);
                break;
            case 'd':
                o.spec.dtype = ucc::perf::find_dtype(optarg);
                if (o.spec.dtype == nullptr) {
                    die(std::string("invalid datatype: ") + optarg);
                }
                break;
            case 'o':
                o.spec.op = ucc::perf::find_op(optarg);
                if (o.spec.op == nullptr) {
                    die(std::string("invalid reduction operation: ") + optarg);
                }
                break;
            case 'm': {
                ucc_memory_type_t m;
                if (!ucc::perf::parse_memtype(optarg, &m)) {
                    die(std::string("invalid memory type: ") + optarg);
                }
                if (m != UCC_MEMORY_TYPE_HOST && m != UCC_MEMORY_TYPE_CUDA &&
                    m != UCC_MEMORY_TYPE_CUDA_MANAGED) {
                    die(std::string("memory type ") + optarg + " is not supported by this build");
                }
                o.spec.mem = m;
                break;
            }
            case 'n':
                o.iters_small = o.iters_large = number("-n", optarg, 1u << 30);
                break;
            case 'w':
                o.warmup_small = o.warmup_large = number("-w", optarg, 1u << 30);
                break;
            case 'f':
                o.factor = number("-f", optarg, 1u << 20);
                break;
            case 'N':
                o.n_bufs = std::max<uint32_t>(1, number("-N", optarg, 64));
                break;
            case 'r':
                o.spec.root = static_cast<uint32_t>(number("-r", optarg, 1u << 30));
                break;
            case 'S':
                o.root_shift = static_cast<uint32_t>(number("-S", optarg, 1u << 30));
                break;
            case 'M':
                if (std::strcmp(optarg, "none") != 0 && std::strcmp(optarg, "local") != 0 &&
                    std::strcmp(optarg, "global") != 0) {
                    die(std::string("invalid map type: ") + optarg);
                }
                break;
            case 'i':
                o.spec.inplace = true;
                break;
            case 'p':
                o.spec.persistent = true;
                break;
            case 'F':
                o.full = true;
                break;
            case 'T':
                o.spec.triggered = true;
                break;
            case 'J':
                o.json = optarg;
                break;
            case 'K':
                o.check = false;
                break;
            case 'Z':
                o.sim_ranks = static_cast<uint32_t>(number("--sim", optarg, 1u << 20));
                break;
            case 'W': {
                std::string why;
                if (!ucc::perf::resolve_network(optarg, &o.network, &why)) {
                    die("--network " + why);
                }
                break;
            }
            case 'P':
                o.progress = false;
                break;
            case 'E':
                o.seed = number("--seed", optarg, UINT64_MAX >> 2);
                break;
            case 'L':
                o.timeline = optarg;
                break;
            case 'h':
                usage(stdout);
                std::exit(0);
            default:
                usage(stderr);
                std::exit(2);
        }
    }
    if (!o.timeline.empty() && o.sim_ranks == 0) {
        die("--timeline needs --sim (a timeline is of a simulated run)");
    }
    if (o.min_count > o.max_count) {
        die("-b is larger than -e");
    }
    if (o.factor < 2) {
        die("-f must be at least 2");
    }
    if (o.spec.triggered && o.spec.mem != UCC_MEMORY_TYPE_CUDA) {
        // As the reference: its execution engine for -T is a CUDA stream's
        // (on the simulator, a simulated stream).
        die("-T: execution engine is not supported for the given memory type (-m cuda)");
    }
    if (o.network.slots > 0 && o.sim_ranks > o.network.slots) {
        die("--sim " + std::to_string(o.sim_ranks) + " does not fit the network file's " +
            std::to_string(o.network.slots) + " rank slots (nodes x ppn)");
    }
    return o;
}

// Where a rank runs: the simulator (all ranks in this process) or a process.
struct Run {
    const Options *o = nullptr;
    ucc::perf::SweepPlan plan;
    std::unique_ptr<ucc::perf::Results> results;
    ucc::perf::Failures failures;
    uint64_t work = 0;  // iterations of one rank, for the progress bar
    std::unique_ptr<ucc::perf::Progress> progress;
};

double wall_now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double sim_now() {
    return ucc_sim_now();
}

// The benchmark body of one rank: the same for a process and a simulated rank.
std::string rank_body(Run *run, const ucc_oob_coll_t &oob, const ucc::perf::SweepWorld &w) {
    ucc::perf::RankSetup setup;
    setup.oob = oob;
    setup.rank = w.rank;
    setup.size = w.size;
    ucc::perf::Lifecycle lc;
    std::string err = lc.setup(setup);
    if (err.empty()) {
        err = ucc::perf::run_sweep(run->plan, w, lc.team, lc.ctx, run->results.get(),
                                   w.rank == 0 || w.shared ? run->progress.get() : nullptr);
    }
    const std::string down = lc.teardown();
    return err.empty() ? down : err;
}

void sim_rank(void *arg) {
    auto *run = static_cast<Run *>(arg);
    ucc::perf::SweepWorld w;
    w.rank = ucc_sim_rank();
    w.size = ucc_sim_size();
    w.now = sim_now;
    w.algorithm = ucc::core::request_algorithm;
    w.shared = true;
    ucc_oob_coll_t oob{};
    if (ucc_sim_oob(&oob) != UCC_OK) {
        run->failures.note(w.rank, "ucc_sim_oob");
        return;
    }
    const std::string err = rank_body(run, oob, w);
    if (!err.empty()) {
        run->failures.note(w.rank, err);
    }
}

ucc::perf::SweepPlan plan_of(const Options &o) {
    ucc::perf::SweepPlan p;
    p.spec = o.spec;
    if (o.spec.coll->shape == ucc::perf::Shape::kNone) {
        p.counts = {0};
    } else {
        p.counts = ucc::perf::geometric_counts(o.min_count, o.max_count, o.factor);
    }
    p.warmup_small = o.warmup_small;
    p.warmup_large = o.warmup_large;
    p.iters_small = o.iters_small;
    p.iters_large = o.iters_large;
    p.large_from = kLargeCount;
    p.n_bufs = o.n_bufs;
    p.root_shift = o.root_shift;
    p.per_iteration = true;
    p.check = o.check;
    return p;
}

}  // namespace

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
    Run run;
    run.o = &o;
    run.plan = plan_of(o);
    // GPU buffers between processes: through the library's CUDA component.
    ucc::core::CudaComponent cuda;
    ucc::core::Logger cuda_log;
    if (o.sim_ranks == 0 && o.spec.mem != UCC_MEMORY_TYPE_HOST) {
        if (const char *dir = std::getenv("UCC_COMPONENT_PATH"); dir != nullptr && dir[0] != '\0') {
            cuda.set_search_path(dir);
        }
        if (!cuda.usable(cuda_log)) {
            die("-m cuda: " + cuda.why(cuda_log));
        }
        run.plan.spec.cuda = cuda.ops(cuda_log);
    }
    for (uint64_t c : run.plan.counts) {
        run.work += run.plan.warmup(c) + run.plan.iterations(c);
    }
    const bool sim = o.sim_ranks > 0;
    ucc::perf::RunInfo info;
    info.tool = "ucc_perftest";
    info.simulated = sim;
    uint32_t rank = 0;
    ucc_boot_h boot = nullptr;
    if (sim) {
        info.ranks = o.sim_ranks;
        info.seed = o.seed;
        info.network = o.network.described;
        run.results = std::make_unique<ucc::perf::Results>(run.plan, info.ranks);
        run.progress = std::make_unique<ucc::perf::Progress>(o.progress, run.work * info.ranks,
                                                             o.spec.coll->name);
        ucc_sim_params_t p{};
        p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED |
                 UCC_SIM_PARAM_FIELD_NETWORK | UCC_SIM_PARAM_FIELD_FLAGS;
        p.n_ranks = info.ranks;
        p.seed = o.seed;
        p.network = o.network.spec.c_str();
        p.flags = UCC_SIM_FLAG_QUIET;
        if (!o.timeline.empty()) {
            p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE;
            p.timeline = o.timeline.c_str();
        }
        const ucc_status_t st = ucc_sim_run(&p, sim_rank, &run);
        run.progress->clear();
        if (st != UCC_OK) {
            std::fprintf(stderr, "ucc_perftest: the simulation failed: %s\n",
                         ucc_status_string(st));
            return 1;
        }
    } else {
        ucc_status_t st = ucc_boot_init(nullptr, &boot);
        if (st != UCC_OK) {
            std::fprintf(stderr, "ucc_perftest: ucc_boot_init: %s\n", ucc_status_string(st));
            return 1;
        }
        ucc::perf::SweepWorld w;
        w.rank = rank = ucc_boot_rank(boot);
        w.size = info.ranks = ucc_boot_size(boot);
        w.now = wall_now;
        w.algorithm = ucc::core::request_algorithm;
        ucc_oob_coll_t oob{};
        if ((st = ucc_boot_oob(boot, &oob)) != UCC_OK) {
            std::fprintf(stderr, "ucc_perftest: ucc_boot_oob: %s\n", ucc_status_string(st));
            ucc_boot_finalize(boot);
            return 1;
        }
        run.results = std::make_unique<ucc::perf::Results>(run.plan, info.ranks);
        run.progress = std::make_unique<ucc::perf::Progress>(o.progress && rank == 0, run.work,
                                                             o.spec.coll->name);
        const std::string err = rank_body(&run, oob, w);
        run.progress->clear();
        if (!err.empty()) {
            run.failures.note(rank, err);
            std::fprintf(stderr, "ucc_perftest: rank %u: %s\n", rank, err.c_str());
        }
    }
    int rc = run.failures.ranks > 0 ? 1 : 0;
    // Wrong results: each process tells its own ranks' stories.
    for (size_t k = 0; k < run.results->size(); ++k) {
        const ucc::perf::CountResult &r = run.results->at(k);
        if (!r.first_wrong.empty()) {
            std::fprintf(stderr, "ucc_perftest: wrong result at count %" PRIu64 ": %s\n",
                         run.plan.counts[k], r.first_wrong.c_str());
        }
        rc = r.wrong_ranks > 0 || !r.first_wrong.empty() ? 1 : rc;
    }
    if (rank == 0) {
        const std::vector<ucc::perf::Row> rows = ucc::perf::rows_of(run.plan, *run.results, info);
        ucc::perf::print_reference_table(stdout, info, run.plan, rows, o.full);
        if (!o.json.empty()) {
            FILE *json = std::fopen(o.json.c_str(), "w");
            if (json == nullptr) {
                std::fprintf(stderr, "ucc_perftest: cannot write %s\n", o.json.c_str());
                rc = 1;
            } else {
                ucc::perf::print_json(json, info, run.plan, rows);
                std::fclose(json);
            }
        }
        if (run.failures.ranks > 0) {
            std::fprintf(stderr, "ucc_perftest: FAILED: %s\n", run.failures.first.c_str());
        }
    }
    if (boot != nullptr) {
        ucc_boot_finalize(boot);
    }
    return rc;
}
