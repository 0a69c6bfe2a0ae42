// ucc_perftest: the reference's collective benchmark, over UCX between real
// processes (started by ucc_run, mpirun, srun or any launcher of the
// environment contract) or on the simulator (--sim N): the same binary, the
// same table, so that a real run and its simulation compare side by side.
//
//   ucc_perftest [-c coll] [-b min count] [-e max count] [-d dtype] [-o op]
//                [-m memtype] [-n iters] [-w warmup] [-f factor] [-N buffers]
//                [-r root] [-S root shift] [-M none|local|global] [-i] [-p] [-F]
//                [--json FILE] [--no-check] [--sim N [--network SPEC] [--seed S]]
//
// Counts are in elements (-b/-e take 1k, 1m). Every rank checks every
// result of the last iteration of each count against a pattern; a wrong
// result makes the exit code 1. Time per iteration is each rank's average;
// the table shows the average, minimum and maximum of those across ranks,
// and with -F the bus bandwidth by nccl-tests' factors.
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
#include "tools/perf/coll_call.h"
#include "tools/perf/colls.h"
#include "ucc/api/ucc.h"
#include "ucc/boot/ucc_boot.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::perf::CollCall;
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
    uint32_t sim_ranks = 0;  // 0: real processes
    std::string network = "hdr";
    uint64_t seed = 1;
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
                 "  -m <memtype>   host (default; cuda, rocm and cuda-mng are not built here)\n"
                 "  -n <number>    iterations (default 1000 small, 200 large)\n"
                 "  -w <number>    warmup iterations (default 100 small, 20 large)\n"
                 "  -f <factor>    multiplication factor between counts (default 2)\n"
                 "  -N <number>    rotate among this many buffer sets (default 1)\n"
                 "  -r <root>      root of rooted collectives (default 0)\n"
                 "  -S <shift>     root shift per iteration (default 0)\n"
                 "  -M <type>      memory map: none (default), local, global\n"
                 "  -i             in place\n"
                 "  -p             persistent collectives\n"
                 "  -T             triggered collectives (not supported: no execution engines)\n"
                 "  -F             full print: bus bandwidth columns\n"
                 "  -h             this help\n"
                 "Beyond the reference:\n"
                 "  --json FILE    one JSON line per count, also written to FILE\n"
                 "  --no-check     do not check results\n"
                 "  --sim N        run on N simulated ranks in this process (virtual time)\n"
                 "  --network SPEC the simulator's network model (default hdr; see ucc_sim)\n"
                 "  --seed S       the simulator's seed (default 1)\n",
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
                                   {"sim", required_argument, nullptr, 'Z'},
                                   {"network", required_argument, nullptr, 'W'},
                                   {"seed", required_argument, nullptr, 'E'},
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
                if (m != UCC_MEMORY_TYPE_HOST) {
                    die(std::string("memory type ") + optarg + " is not supported by this build");
                }
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
                die("-T: triggered collectives need an execution engine (not supported)");
            case 'J':
                o.json = optarg;
                break;
            case 'K':
                o.check = false;
                break;
            case 'Z':
                o.sim_ranks = static_cast<uint32_t>(number("--sim", optarg, 1u << 20));
                break;
            case 'W':
                o.network = optarg;
                break;
            case 'E':
                o.seed = number("--seed", optarg, UINT64_MAX >> 2);
                break;
            case 'h':
                usage(stdout);
                std::exit(0);
            default:
                usage(stderr);
                std::exit(2);
        }
    }
    if (o.min_count > o.max_count) {
        die("-b is larger than -e");
    }
    if (o.factor < 2) {
        die("-f must be at least 2");
    }
    return o;
}

// One count's numbers, from every rank.
struct Row {
    uint64_t count = 0;
    double avg_us = 0, min_us = 0, max_us = 0;
    std::string alg;
    uint64_t wrong_ranks = 0;
    std::string first_wrong;
    std::string unchecked;
};

// Where a rank runs: its place, the OOB and a clock (wall or virtual).
struct World {
    uint32_t rank = 0;
    uint32_t size = 1;
    ucc_oob_coll_t oob{};
    double (*now)() = nullptr;
};

double wall_now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double sim_now() {
    return ucc_sim_now();
}

struct Shared {
    const Options *o = nullptr;
    std::vector<uint64_t> counts;
    std::vector<Row> rows;  // written by rank 0
    uint64_t failed_ranks = 0;
    std::string first_failure;
    bool progress = false;
};

std::vector<uint64_t> counts_of(const Options &o) {
    std::vector<uint64_t> v;
    if (o.spec.coll->shape == ucc::perf::Shape::kNone) {
        v.push_back(0);
        return v;
    }
    for (uint64_t c = o.min_count; c <= o.max_count; c *= o.factor) {
        v.push_back(c);
        if (c == 0) {
            c = 1;  // 0, 1, f, f^2...
            v.push_back(c);
            if (c > o.max_count) {
                v.pop_back();
            }
        }
        if (c > UINT64_MAX / o.factor) {
            break;
        }
    }
    return v;
}

ucc_status_t wait_req(ucc_coll_req_h req, ucc_context_h ctx) {
    ucc_status_t st;
    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_status_t run_args(ucc_coll_args_t *a, ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_req_h req;
    ucc_status_t st = ucc_collective_init(a, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        st = wait_req(req, ctx);
    }
    ucc_collective_finalize(req);
    return st;
}

ucc_status_t barrier(ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    return run_args(&a, team, ctx);
}

// min, max and sum of one double over the team.
ucc_status_t reduce3(double v, double out[3], uint32_t n, ucc_team_h team, ucc_context_h ctx) {
    const ucc_reduction_op_t ops[3] = {UCC_OP_MIN, UCC_OP_MAX, UCC_OP_SUM};
    for (int k = 0; k < 3; ++k) {
        double in = v;
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = ops[k];
        a.src.info = {&in, 1, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {&out[k], 1, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        if (const ucc_status_t st = run_args(&a, team, ctx); st != UCC_OK) {
            return st;
        }
    }
    (void)n;
    return UCC_OK;
}

std::string failure(const char *call, ucc_status_t st) {
    return std::string(call) + ": " + ucc_status_string(st);
}

// The benchmark body of one rank: the same for a process and a simulated rank.
std::string rank_body(Shared *sh, const World &w) {
    const Options &o = *sh->o;
    const uint32_t n = w.size;
    ucc_lib_config_h lib_config;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lib_config);
    if (st != UCC_OK) {
        return failure("ucc_lib_config_read", st);
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_h lib;
    st = ucc_init(&lp, lib_config, &lib);
    ucc_lib_config_release(lib_config);
    if (st != UCC_OK) {
        return failure("ucc_init", st);
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = w.oob;
    ucc_context_h ctx;
    if ((st = ucc_context_create(lib, &cp, nullptr, &ctx)) != UCC_OK) {
        return failure("ucc_context_create", st);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.oob = w.oob;
    tp.ep = w.rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_team_h team;
    if ((st = ucc_team_create_post(&ctx, 1, &tp, &team)) != UCC_OK) {
        return failure("ucc_team_create_post", st);
    }
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    if (st != UCC_OK) {
        return failure("ucc_team_create_test", st);
    }
    std::string err;
    for (size_t k = 0; k < sh->counts.size() && err.empty(); ++k) {
        const uint64_t count = sh->counts[k];
        if (sh->progress && w.rank == 0) {
            std::fprintf(stderr, "\rucc_perftest: count %" PRIu64 " (%zu of %zu)  ", count, k + 1,
                         sh->counts.size());
        }
        const bool large = count >= kLargeCount;
        const uint32_t iters = std::max<uint32_t>(1, large ? o.iters_large : o.iters_small);
        const uint32_t warmup = large ? o.warmup_large : o.warmup_small;
        ucc::perf::VArrays va;
        va.build(count, n);
        CollSpec spec = o.spec;
        spec.root = o.spec.root % n;
        std::vector<CollCall> calls(o.n_bufs);
        std::vector<ucc_coll_req_h> persistent(o.n_bufs, nullptr);
        double total = 0;
        std::string alg;
        for (uint32_t it = 0; it < warmup + iters && err.empty(); ++it) {
            // A root shift moves the root every iteration (fresh arguments).
            CollSpec s = spec;
            s.root = (spec.root + it * o.root_shift) % n;
            const uint32_t b = it % o.n_bufs;
            if (it < o.n_bufs || (o.root_shift != 0 && s.root != calls[b].args.root)) {
                if (persistent[b] != nullptr) {
                    ucc_collective_finalize(persistent[b]);
                    persistent[b] = nullptr;
                }
                ucc::perf::build_call(s, count, n, w.rank, &va, &calls[b]);
            }
            const bool last = it + 1 == warmup + iters;
            if (last && o.check) {
                ucc::perf::fill_pattern(s, count, n, w.rank, &calls[b]);
            }
            if ((st = barrier(team, ctx)) != UCC_OK) {
                err = failure("barrier", st);
                break;
            }
            ucc_coll_req_h req = persistent[b];
            if (req == nullptr &&
                (st = ucc_collective_init(&calls[b].args, &req, team)) != UCC_OK) {
                err = failure("ucc_collective_init", st);
                break;
            }
            const double t0 = w.now();
            st = ucc_collective_post(req);
            if (st == UCC_OK) {
                st = wait_req(req, ctx);
            }
            const double t1 = w.now();
            alg = ucc::core::request_algorithm(req);
            if (o.spec.persistent) {
                persistent[b] = req;
            } else {
                ucc_collective_finalize(req);
            }
            if (st != UCC_OK) {
                err = failure("collective", st);
                break;
            }
            if (it >= warmup) {
                total += t1 - t0;
            }
            if (last && o.check) {
                std::string why;
                if (!ucc::perf::check_result(s, count, n, w.rank, calls[b], &why)) {
                    err = "wrong result at count " + std::to_string(count) + ": " + why;
                } else if (!why.empty() && w.rank == 0) {
                    sh->rows.resize(std::max<size_t>(sh->rows.size(), k + 1));
                    sh->rows[k].unchecked = why;
                }
            }
        }
        for (ucc_coll_req_h r : persistent) {
            if (r != nullptr) {
                ucc_collective_finalize(r);
            }
        }
        // Everyone's average, and whether everyone's result was right (the
        // failing rank still takes part, so no rank waits for it).
        double stats[3] = {0, 0, 0};
        const double mine = err.empty() ? total / iters : -1;
        if ((st = reduce3(mine, stats, n, team, ctx)) != UCC_OK) {
            return failure("allreduce of the timings", st);
        }
        if (w.rank == 0) {
            sh->rows.resize(std::max<size_t>(sh->rows.size(), k + 1));
            Row &row = sh->rows[k];
            row.count = count;
            row.min_us = stats[0] * 1e6;
            row.max_us = stats[1] * 1e6;
            row.avg_us = stats[2] / n * 1e6;
            row.alg = alg;
            if (stats[0] < 0) {
                row.wrong_ranks = 1;
            }
        }
        if (stats[0] < 0 && err.empty()) {
            err = "another rank failed at count " + std::to_string(count);
        }
    }
    if (sh->progress && w.rank == 0) {
        std::fprintf(stderr, "\r%60s\r", "");
    }
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
    return err;
}

void note_failure(Shared *sh, uint32_t rank, const std::string &what) {
    if (sh->failed_ranks++ == 0) {
        sh->first_failure = "rank " + std::to_string(rank) + ": " + what;
    }
}

void sim_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    World w;
    w.rank = ucc_sim_rank();
    w.size = ucc_sim_size();
    w.now = sim_now;
    if (ucc_sim_oob(&w.oob) != UCC_OK) {
        note_failure(sh, w.rank, "ucc_sim_oob");
        return;
    }
    const std::string err = rank_body(sh, w);
    if (!err.empty()) {
        note_failure(sh, w.rank, err);
    }
}

const char *coll_title(const char *name) {
    static std::string s;
    s = name;
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return s.c_str();
}

void print_header(const Options &o, uint32_t n, bool sim) {
    const CollSpec &s = o.spec;
    std::printf("%-24s%s\n", "Collective:", coll_title(s.coll->name));
    std::printf("%-24s%s\n", "Memory type:", "host");
    std::printf("%-24s%s\n", "Datatype:", s.dtype->name);
    std::printf("%-24s%s\n", "Reduction:", s.coll->reduction ? s.op->name : "N/A");
    std::printf("%-24s%s\n", "Inplace:",
                s.coll->shape == ucc::perf::Shape::kNone ? "N/A" : (s.inplace ? "1" : "0"));
    std::printf("%-24s%s\n", "Persistent:", s.persistent ? "1" : "0");
    std::printf("%-24s%u%s\n", "Ranks:", n, sim ? " (simulated)" : "");
    if (sim) {
        std::printf("%-24s%s\n", "Network:", o.network.c_str());
    }
    std::printf("Warmup:\n%-24s%u\n%-24s%u\n", "  small", o.warmup_small, "  large",
                o.warmup_large);
    std::printf("Iterations:\n%-24s%u\n%-24s%u\n\n", "  small", o.iters_small, "  large",
                o.iters_large);
    std::printf("%12s%12s%24s", "Count", "Size", "Time, us");
    if (o.full) {
        std::printf("%42s", "Bus Bandwidth, GB/s");
    }
    std::printf("   %s\n", "Algorithm");
    std::printf("%36s%12s%12s", "avg", "min", "max");
    if (o.full) {
        std::printf("%12s%12s%12s", "avg", "max", "min");
    }
    std::printf("\n");
}

void print_rows(const Options &o, const Shared &sh, uint32_t n, bool sim, FILE *json) {
    const ucc::perf::CollDesc &c = *o.spec.coll;
    const double factor = ucc::perf::busbw_factor(c, n);
    for (const Row &r : sh.rows) {
        const uint64_t bytes = r.count * o.spec.dtype->size;
        const double size = ucc::perf::nccl_size(c, bytes, n);
        // GB/s = bytes / us / 1000
        auto bw = [&](double us) { return us > 0 ? size / us / 1000.0 * factor : 0.0; };
        char sizebuf[32];
        if (c.shape == ucc::perf::Shape::kNone) {
            std::snprintf(sizebuf, sizeof sizebuf, "N/A");
        } else {
            std::snprintf(sizebuf, sizeof sizebuf, "%" PRIu64, bytes);
        }
        std::printf("%12" PRIu64 "%12s%12.2f%12.2f%12.2f", r.count, sizebuf, r.avg_us, r.min_us,
                    r.max_us);
        if (o.full) {
            if (factor > 0) {
                std::printf("%12.2f%12.2f%12.2f", bw(r.avg_us), bw(r.min_us), bw(r.max_us));
            } else {
                std::printf("%12s%12s%12s", "N/A", "N/A", "N/A");
            }
        }
        std::printf("   %s%s\n", r.alg.c_str(), r.unchecked.empty() ? "" : " (unchecked)");
        if (json != nullptr) {
            std::fprintf(json,
                         "{\"coll\":\"%s\",\"ranks\":%u,\"simulated\":%s,\"count\":%" PRIu64
                         ",\"bytes\":%" PRIu64
                         ",\"dtype\":\"%s\",\"op\":\"%s\",\"inplace\":%s,\"persistent\":%s,"
                         "\"time_avg_us\":%.4f,\"time_min_us\":%.4f,\"time_max_us\":%.4f,"
                         "\"busbw_avg_gbps\":%.4f,\"algorithm\":\"%s\",\"checked\":%s}\n",
                         c.name, n, sim ? "true" : "false", r.count, bytes, o.spec.dtype->name,
                         c.reduction ? o.spec.op->name : "", o.spec.inplace ? "true" : "false",
                         o.spec.persistent ? "true" : "false", r.avg_us, r.min_us, r.max_us,
                         bw(r.avg_us), r.alg.c_str(),
                         o.check && r.unchecked.empty() ? "true" : "false");
        }
    }
}

}  // namespace

int main(int argc, char **argv) {
    Options o = parse(argc, argv);
    Shared sh;
    sh.o = &o;
    sh.counts = counts_of(o);
    // A progress line on long sweeps, where someone watches.
    sh.progress = isatty(STDERR_FILENO) && sh.counts.size() > 4;
    const bool sim = o.sim_ranks > 0;
    uint32_t n = 1;
    uint32_t rank = 0;
    ucc_boot_h boot = nullptr;
    if (sim) {
        n = o.sim_ranks;
        ucc_sim_params_t p{};
        p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED |
                 UCC_SIM_PARAM_FIELD_NETWORK | UCC_SIM_PARAM_FIELD_FLAGS;
        p.n_ranks = n;
        p.seed = o.seed;
        p.network = o.network.c_str();
        p.flags = UCC_SIM_FLAG_QUIET;
        const ucc_status_t st = ucc_sim_run(&p, sim_rank, &sh);
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
        World w;
        w.rank = rank = ucc_boot_rank(boot);
        w.size = n = ucc_boot_size(boot);
        w.now = wall_now;
        if ((st = ucc_boot_oob(boot, &w.oob)) != UCC_OK) {
            std::fprintf(stderr, "ucc_perftest: ucc_boot_oob: %s\n", ucc_status_string(st));
            return 1;
        }
        const std::string err = rank_body(&sh, w);
        if (!err.empty()) {
            note_failure(&sh, rank, err);
            std::fprintf(stderr, "ucc_perftest: rank %u: %s\n", rank, err.c_str());
        }
    }
    int rc = sh.failed_ranks > 0 ? 1 : 0;
    if (rank == 0) {
        FILE *json = nullptr;
        if (!o.json.empty()) {
            json = std::fopen(o.json.c_str(), "w");
            if (json == nullptr) {
                std::fprintf(stderr, "ucc_perftest: cannot write %s\n", o.json.c_str());
                rc = 1;
            }
        }
        print_header(o, n, sim);
        print_rows(o, sh, n, sim, json);
        if (json != nullptr) {
            std::fclose(json);
        }
        if (sh.failed_ranks > 0) {
            std::fprintf(stderr, "ucc_perftest: FAILED: %s\n", sh.first_failure.c_str());
        }
    }
    if (boot != nullptr) {
        ucc_boot_finalize(boot);
    }
    return rc;
}
