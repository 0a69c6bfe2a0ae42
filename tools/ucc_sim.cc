// ucc_sim: run UCC collectives, or a UCC program, on a simulated cluster.
//
// In the idiom of smpirun and ucc_perftest: -np N ranks on a network model,
// either a collective sweep (-c allreduce -b 8 -e 1M ...) that every rank runs
// through the whole public-API lifecycle (ucc_init, context, team, collectives,
// teardown), or a user program built as a shared library whose entry point
// `int ucc_sim_main(int argc, char **argv)` every rank calls (--program).
// Results in virtual time: a table, CSV (--csv) or JSON lines (--json); a
// Chrome trace timeline on request (--timeline). The run ends with
//   Simulated time: X seconds.
//   Wall time: Y seconds.
//   Events: N (Z events/s).
// See docs/ucc_sim.md for every option and format. This file holds the options
// and the run; the sweep, its reports, the rank lifecycle and the network
// argument are tools/perf's, shared with ucc_perftest --sim.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tools/perf/coll_call.h"
#include "tools/perf/colls.h"
#include "tools/perf/huge_pages.h"
#include "tools/perf/lifecycle.h"
#include "tools/perf/memory.h"
#include "tools/perf/network.h"
#include "tools/perf/report.h"
#include "tools/perf/sweep.h"
#include "tools/perf/sweep_callbacks.h"
#include "tools/perf/tune.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kRanksMax = 1u << 20;

using ucc::perf::CollDesc;
using ucc::perf::DtDesc;
using ucc::perf::OpDesc;
using ucc::perf::Shape;

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

enum class Format : uint8_t { kTable, kCsv, kJson };

struct Options {
    uint32_t ranks = 0;  // 0: not given
    uint64_t seed = 1;
    std::string network_arg = "hdr";
    ucc::perf::NetworkArg network;
    bool timing_only = false;
    bool inputs_written = false;
    bool no_drain = false;
    bool fiberless = false;
    bool team_oob = false;
    size_t stack_size = 0;  // 0: the simulator's default
    const CollDesc *coll = ucc::perf::find_coll("allreduce");
    uint64_t min_bytes = 8;
    uint64_t max_bytes = 1 << 20;
    const DtDesc *dtype = ucc::perf::find_dtype("float32");
    const OpDesc *op = ucc::perf::find_op("sum");
    uint32_t iterations = 10;
    uint32_t warmup = 0;
    uint32_t root = 0;
    bool inplace = false;
    bool check = false;
    bool aligned = false;     // --aligned
    std::string alg;          // empty: auto
    bool tune = false;        // --tune
    bool coll_given = false;  // -c
    std::string program;
    std::vector<std::string> program_args;
    Format format = Format::kTable;
    std::string timeline;
    std::string timeline_ranks;
    std::string faults;  // empty: none
    bool progress = true;
};

const char kUsage[] =
    "usage: ucc_sim -np N [options] [-c COLL -b MIN -e MAX ...]\n"
    "       ucc_sim -np N [options] --program LIB.so [-- ARGS...]\n"
    "\n"
    "Simulation:\n"
    "  -np N                 number of simulated ranks (default 8, or nodes*ppn of a network "
    "file)\n"
    "  --network NET         preset (hdr, eth100, slow, ideal), spec "
    "(\"hdr,ppn=16,lat_inter=2us\")\n"
    "                        or a file of key=value lines (see docs/ucc_sim.md); default hdr\n"
    "  --seed S              seed of every random choice (default 1)\n"
    "  --timing-only         move and reduce no payload: only messages, sizes and costs\n"
    "  --inputs clean|written  whether each call's input was written since the last\n"
    "                        (a network's cma_written: pulls of just-written data cost\n"
    "                        more); default clean, a benchmark's loop over the same buffers\n"
    "  --no-drain            resume a waiting rank for every packet (the same run, slower)\n"
    "  --fiberless           run the sweep in completion-callback style, no fiber (stack)\n"
    "                        per rank: the same run, less memory\n"
    "  --team-oob            a context without an OOB, the team over the OOB (no id\n"
    "                        agreement: fewer events); with or without --fiberless\n"
    "  --stack-size BYTES    fiber stack per rank (default 256K)\n"
    "  --faults PLAN         inject faults: crash=R@T, stall=R@T:D, spike=P:D, nomem=R#K,\n"
    "                        nomem_p=P, oob=R#K[:D], detect=S (comma-separated), or swarm[:H]\n"
    "                        for a mix drawn from the seed (docs/conformance.md: Faults on\n"
    "                        the simulator)\n"
    "Collective sweep (ucc_perftest style):\n"
    "  -c COLL               collective (default allreduce): %s\n"
    "  -b BYTES              smallest message size (default 8; K, M, G suffixes)\n"
    "  -e BYTES              largest message size, sizes doubling from -b (default 1M)\n"
    "  -d DTYPE              datatype (default float32): %s\n"
    "  -o OP                 reduction (default sum): %s\n"
    "  -i N                  timed iterations per size (default 10)\n"
    "  -w N                  untimed warm-up iterations per size (default 0)\n"
    "  -r ROOT               root of rooted collectives (default 0)\n"
    "  --aligned             start the timed iterations on every rank at one instant (after\n"
    "                        the barrier, an OOB exchange the simulator ends everywhere at\n"
    "                        once): the collective's own time, without the barrier's skew;\n"
    "                        no rank goes on to the next size before every rank is done\n"
    "  --inplace             in-place collectives\n"
    "  --check               check every rank's result of each size (not --timing-only)\n"
    "  --alg NAME            force an algorithm (UCC_<COLL>_ALG), default auto\n"
    "  --tune                time every flat algorithm of the collective (-c; default every\n"
    "                        one with equal counts) at each size, timing-only, and print the\n"
    "                        fastest per size as a UCC_TL_UCP_TUNE line for ucc.conf\n"
    "User program:\n"
    "  --program LIB.so      run int ucc_sim_main(int argc, char **argv) of LIB.so on every rank;\n"
    "                        arguments after -- go to it (argv[0] is LIB.so)\n"
    "Output:\n"
    "  --csv | --json        one row per size (CSV with a header / JSON lines) on stdout\n"
    "  --timeline FILE       Chrome trace JSON timeline (chrome://tracing, ui.perfetto.dev)\n"
    "  --timeline-ranks L    ranks to record, e.g. 0-7,512 (default all)\n"
    "  --no-progress         no progress bar (drawn only on a terminal, for long runs)\n"
    "  -h, --help            this text\n";

void usage(FILE *f) {
    std::fprintf(f, kUsage, ucc::perf::coll_names().c_str(), ucc::perf::dtype_names().c_str(),
                 ucc::perf::op_names().c_str());
}

[[noreturn]] void die_usage(const std::string &msg) {
    std::fprintf(stderr, "ucc_sim: %s\n(ucc_sim --help lists the options)\n", msg.c_str());
    std::exit(2);
}

bool parse_uint(const std::string &s, uint64_t max, uint64_t *out) {
    if (s.empty() || s.size() > 20) {
        return false;
    }
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return false;
        }
        v = v * 10 + d;
    }
    if (v > max) {
        return false;
    }
    *out = v;
    return true;
}

Options parse_options(int argc, char **argv) {
    Options o;
    auto value = [&](int *i) -> std::string {
        if (*i + 1 >= argc) {
            die_usage(std::string(argv[*i]) + " needs a value");
        }
        return argv[++*i];
    };
    auto number = [&](int *i, uint64_t max) {
        std::string opt = argv[*i];
        std::string v = value(i);
        uint64_t n = 0;
        if (!parse_uint(v, max, &n)) {
            die_usage(opt + " " + v + ": expected a number up to " + std::to_string(max));
        }
        return n;
    };
    auto bytes = [&](int *i) {
        std::string opt = argv[*i];
        std::string v = value(i);
        uint64_t n = 0;
        if (!ucc::perf::parse_units(v, &n)) {
            die_usage(opt + " " + v + ": expected a byte count such as 64, 4K, 1M");
        }
        return n;
    };
    bool sweep_option = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage(stdout);
            std::exit(0);
        } else if (a == "-np" || a == "-n" || a == "--np") {
            o.ranks = static_cast<uint32_t>(number(&i, kRanksMax));
            if (o.ranks == 0) {
                die_usage("-np must be at least 1");
            }
        } else if (a == "--network") {
            o.network_arg = value(&i);
        } else if (a == "--seed") {
            o.seed = number(&i, UINT64_MAX);
        } else if (a == "--timing-only") {
            o.timing_only = true;
        } else if (a == "--inputs") {
            const std::string v = value(&i);
            if (v != "clean" && v != "written") {
                die_usage("--inputs " + v + ": clean or written");
            }
            o.inputs_written = v == "written";
        } else if (a == "--no-drain") {
            o.no_drain = true;
        } else if (a == "--fiberless") {
            o.fiberless = true;
        } else if (a == "--team-oob") {
            o.team_oob = true;
        } else if (a == "--stack-size") {
            o.stack_size = bytes(&i);
        } else if (a == "-c") {
            std::string v = value(&i);
            o.coll = ucc::perf::find_coll(v);
            if (o.coll == nullptr) {
                die_usage("-c " + v + ": collectives are " + ucc::perf::coll_names());
            }
            o.coll_given = true;
            sweep_option = true;
        } else if (a == "-b") {
            o.min_bytes = bytes(&i);
            sweep_option = true;
        } else if (a == "-e") {
            o.max_bytes = bytes(&i);
            sweep_option = true;
        } else if (a == "-d") {
            std::string v = value(&i);
            o.dtype = ucc::perf::find_dtype(v);
            if (o.dtype == nullptr) {
                die_usage("-d " + v + ": datatypes are " + ucc::perf::dtype_names());
            }
            sweep_option = true;
        } else if (a == "-o") {
            std::string v = value(&i);
            o.op = ucc::perf::find_op(v);
            if (o.op == nullptr) {
                die_usage("-o " + v + ": reductions are " + ucc::perf::op_names());
            }
            sweep_option = true;
        } else if (a == "-i") {
            o.iterations = static_cast<uint32_t>(number(&i, 1u << 30));
            if (o.iterations == 0) {
                die_usage("-i must be at least 1");
            }
            sweep_option = true;
        } else if (a == "-w") {
            o.warmup = static_cast<uint32_t>(number(&i, 1u << 30));
            sweep_option = true;
        } else if (a == "-r") {
            o.root = static_cast<uint32_t>(number(&i, kRanksMax));
            sweep_option = true;
        } else if (a == "--inplace") {
            o.inplace = true;
            sweep_option = true;
        } else if (a == "--check") {
            o.check = true;
            sweep_option = true;
        } else if (a == "--aligned") {
            o.aligned = true;
            sweep_option = true;
        } else if (a == "--alg") {
            o.alg = value(&i);
            sweep_option = true;
        } else if (a == "--tune") {
            o.tune = true;
            sweep_option = true;
        } else if (a == "--program") {
            o.program = value(&i);
        } else if (a == "--csv") {
            o.format = Format::kCsv;
        } else if (a == "--json") {
            o.format = Format::kJson;
        } else if (a == "--faults") {
            o.faults = value(&i);
        } else if (a == "--timeline") {
            o.timeline = value(&i);
        } else if (a == "--timeline-ranks") {
            o.timeline_ranks = value(&i);
        } else if (a == "--no-progress") {
            o.progress = false;
        } else if (a == "--") {
            if (o.program.empty()) {
                die_usage("-- passes arguments to a --program");
            }
            o.program_args.assign(argv + i + 1, argv + argc);
            break;
        } else {
            die_usage("unknown option " + a);
        }
    }
    std::string why;
    if (!ucc::perf::resolve_network(o.network_arg, &o.network, &why)) {
        die_usage("--network " + why);
    }
    if (o.ranks == 0) {
        o.ranks = o.network.slots > 0
                      ? static_cast<uint32_t>(std::min<uint64_t>(o.network.slots, kRanksMax))
                      : 8;
    }
    if (o.network.slots > 0 && o.ranks > o.network.slots) {
        die_usage("-np " + std::to_string(o.ranks) + " does not fit the network file's " +
                  std::to_string(o.network.slots) + " rank slots (nodes x ppn)");
    }
    if (o.check && o.timing_only) {
        die_usage("--check needs the payload: not with --timing-only");
    }
    if (!o.program.empty() && sweep_option) {
        die_usage(
            "--program runs a user program: the sweep options (-c -b -e -d -o -i -w -r "
            "--inplace --check --aligned --alg) do not apply");
    }
    if (o.tune && (!o.alg.empty() || o.check || !o.faults.empty() || !o.timeline.empty())) {
        die_usage("--tune times every algorithm: not with --alg, --check, --faults or --timeline");
    }
    if (!o.program.empty() && o.fiberless) {
        die_usage(
            "--fiberless runs the sweep in callback style; a --program's ucc_sim_main waits in "
            "its calls and needs a fiber");
    }
    if (o.fiberless && o.stack_size > 0) {
        die_usage("--stack-size sizes the ranks' fibers: not with --fiberless");
    }
    if (!o.program.empty() && o.format != Format::kTable) {
        die_usage("--csv/--json report a collective sweep, not a --program");
    }
    if (o.min_bytes > o.max_bytes) {
        die_usage("-b " + std::to_string(o.min_bytes) + " is larger than -e " +
                  std::to_string(o.max_bytes));
    }
    if (o.coll->rooted && o.root >= o.ranks) {
        die_usage("-r " + std::to_string(o.root) + " is not below -np " + std::to_string(o.ranks));
    }
    return o;
}

// ---------------------------------------------------------------------------
// The sweep (tools/perf/sweep.h), with sizes in bytes
// ---------------------------------------------------------------------------

// The element counts of -b .. -e: sizes doubling from -b, each holding
// size / element-size whole elements (see docs/ucc_sim.md).
std::vector<uint64_t> sweep_counts(const Options &o) {
    if (o.coll->shape == Shape::kNone) {
        return {0};
    }
    std::vector<uint64_t> counts;
    for (uint64_t b :
         ucc::perf::geometric_counts(std::max<uint64_t>(o.min_bytes, 1), o.max_bytes, 2)) {
        const uint64_t count = b / o.dtype->size;
        if (count > 0 && (counts.empty() || counts.back() != count)) {
            counts.push_back(count);
        }
    }
    if (counts.empty()) {
        die_usage("no size in [-b, -e] holds a whole " + std::string(o.dtype->name) + " element");
    }
    return counts;
}

ucc::perf::CollSpec spec_of(const Options &o) {
    ucc::perf::CollSpec spec;
    spec.coll = o.coll;
    spec.dtype = o.dtype;
    spec.op = o.op;
    spec.root = o.root;
    spec.inplace = o.inplace;
    spec.no_buffers = o.timing_only;
    return spec;
}

// Back to back in virtual time: the simulator has no noise to shield from.
ucc::perf::SweepPlan plan_of(const Options &o) {
    ucc::perf::SweepPlan p;
    p.spec = spec_of(o);
    p.counts = sweep_counts(o);
    p.warmup_small = p.warmup_large = o.warmup;
    p.iters_small = p.iters_large = o.iterations;
    p.per_iteration = false;
    p.aligned = o.aligned;
    p.check = o.check;
    return p;
}

// "1.5 GiB": binary units, one decimal.
std::string size_text(long double bytes) {
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t u = 0;
    while (bytes >= 1024 && u + 1 < std::size(units)) {
        bytes /= 1024;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.1Lf %s", bytes, units[u]);
    return buf;
}

// The ranks run side by side in this process, so the largest size's payload
// buffers live on every rank at once. When they alone exceed the memory the
// machine has left, the run is refused before it starts (the kernel would
// otherwise kill it part-way); "" when they fit or nothing is known.
std::string buffers_beyond_memory(const Options &o, const ucc::perf::SweepPlan &plan) {
    const uint64_t avail = ucc::perf::available_memory_bytes();
    if (o.timing_only || avail == 0) {
        return "";
    }
    const uint64_t count = plan.counts.back();
    long double need = 0;
    for (uint32_t r = 0; r < o.ranks; ++r) {
        const ucc::perf::BufferElements e =
            ucc::perf::buffer_elements(plan.spec, count, o.ranks, r);
        need += (static_cast<long double>(e.src) + e.dst) * o.dtype->size;
    }
    if (need <= avail) {
        return "";
    }
    return "-e " + std::to_string(count * o.dtype->size) + ": the buffers of " + o.coll->name +
           " on " + std::to_string(o.ranks) + " ranks take " + size_text(need) +
           " (every rank's src and dst at once), more than the " + size_text(avail) +
           " this machine has available: lower -e or -np, or add --timing-only";
}

// State shared by the ranks of one run (main-local; the ranks run on one thread).
struct Shared {
    const Options *opt = nullptr;
    ucc::perf::SweepPlan plan;
    std::unique_ptr<ucc::perf::Results> results;
    ucc::perf::Failures failures;
    // --fiberless: each rank's sweep (they outlive the ranks' starts).
    std::vector<std::unique_ptr<ucc::perf::CallbackSweep>> sweeps;
    // --program
    int (*program_main)(int, char **) = nullptr;
    std::vector<std::string> program_argv;
    uint64_t nonzero_exits = 0;
    std::string first_exit;
    std::unique_ptr<ucc::perf::Progress> progress;
};

// ucc_init, a context over the simulator's OOB (the --alg choice in its
// config) and a team over every rank's endpoint: the public-API lifecycle.
// A rehearsal is not recorded (UCC_TRACE): only the run itself is.
ucc::perf::RankSetup rank_setup(const Options &o, bool rehearsal) {
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    s.context_without_oob = o.team_oob;
    if (!o.alg.empty()) {
        std::string var = o.coll->name;
        for (char &ch : var) {
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        }
        s.config.emplace_back(var + "_ALG", o.alg);
    }
    if (rehearsal) {
        s.config.emplace_back("TRACE", "");
    }
    return s;
}

std::string setup(const Options &o, ucc::perf::Lifecycle *lc, bool rehearsal = false) {
    return lc->setup(rank_setup(o, rehearsal));
}

const char *last_algorithm(ucc_coll_req_h) {
    return ucc_sim_last_algorithm();
}

// The calling rank, as the sweep sees it.
ucc::perf::SweepWorld sweep_world() {
    ucc::perf::SweepWorld w;
    w.rank = ucc_sim_rank();
    w.size = ucc_sim_size();
    w.now = ucc_sim_now;
    w.algorithm = last_algorithm;
    w.shared = true;
    ucc_sim_oob(&w.oob);
    return w;
}

void sweep_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    const ucc::perf::SweepWorld w = sweep_world();
    ucc::perf::Lifecycle lc;
    std::string err = setup(*sh->opt, &lc);
    if (err.empty()) {
        err = ucc::perf::run_sweep(sh->plan, w, lc.team, lc.ctx, sh->results.get(),
                                   sh->progress.get());
    }
    const std::string down = lc.teardown();
    if (!err.empty() || !down.empty()) {
        sh->failures.note(w.rank, err.empty() ? down : err);
        ucc_sim_exit();  // as a process that exits on the error: its peers see it gone
    }
}

// A rank of a --fiberless sweep: its start (the sweep goes on in callbacks
// and a progress hook: tools/perf/sweep_callbacks.h).
void sweep_rank_fiberless(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    const ucc::perf::SweepWorld w = sweep_world();
    auto &sweep = sh->sweeps[w.rank];
    sweep = std::make_unique<ucc::perf::CallbackSweep>(sh->plan, w, rank_setup(*sh->opt, false),
                                                       sh->results.get(), sh->progress.get(),
                                                       &sh->failures);
    sweep->start();
}

// One rank of a --program run.
void program_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    // A private argv per rank (programs may permute it); the strings are copies too.
    std::vector<std::string> strs = sh->program_argv;
    std::vector<char *> argv;
    argv.reserve(strs.size() + 1);
    for (std::string &s : strs) {
        argv.push_back(s.data());
    }
    argv.push_back(nullptr);
    int rc = sh->program_main(static_cast<int>(strs.size()), argv.data());
    if (rc != 0) {
        ucc_sim_exit();  // a process that exits with a failure: its peers see it gone
        if (sh->nonzero_exits++ == 0) {
            sh->first_exit = "rank " + std::to_string(ucc_sim_rank()) + ": ucc_sim_main returned " +
                             std::to_string(rc);
        }
    }
    sh->progress->tick();
}

// A two-rank rehearsal of the first size: catches an unknown --alg or an
// unsupported dtype/op combination with two log lines instead of N.
void rehearse_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    const uint32_t rank = ucc_sim_rank();
    ucc::perf::Lifecycle lc;
    std::string err = setup(*sh->opt, &lc, true);
    if (err.empty()) {
        ucc::perf::CollCall call;
        ucc::perf::VArrays va;
        va.build(sh->plan.counts[0], ucc_sim_size());
        ucc::perf::build_call(sh->plan.spec, sh->plan.counts[0], ucc_sim_size(), rank, &va, &call);
        ucc_coll_req_h req = nullptr;
        const ucc_status_t st = ucc_collective_init(&call.args, &req, lc.team);
        if (st != UCC_OK) {
            err = ucc::perf::failed("ucc_collective_init", st);
        } else {
            ucc_collective_finalize(req);
        }
    }
    lc.teardown();
    if (!err.empty()) {
        sh->failures.note(rank, err);
    }
}

ucc_sim_params_t sim_params(const Options &o, uint32_t ranks) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_TIMING_ONLY | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = ranks;
    p.seed = o.seed;
    p.network = o.network.spec.c_str();
    p.timing_only = o.timing_only ? 1 : 0;
    p.flags = (o.no_drain ? UCC_SIM_FLAG_NO_DRAIN : 0) |
              (o.fiberless ? UCC_SIM_FLAG_FIBERLESS : 0) |
              (o.inputs_written ? UCC_SIM_FLAG_INPUTS_WRITTEN : 0);
    if (o.stack_size > 0) {
        p.mask |= UCC_SIM_PARAM_FIELD_STACK_SIZE;
        p.stack_size = o.stack_size;
    }
    return p;
}

// A sweep's rows in the chosen format.
void report(const Options &o, const Shared &sh) {
    ucc::perf::RunInfo info;
    info.tool = "ucc_sim";
    info.ranks = o.ranks;
    info.simulated = true;
    info.timing_only = o.timing_only;
    info.seed = o.seed;
    info.network = o.network.described;
    const std::vector<ucc::perf::Row> rows = ucc::perf::rows_of(sh.plan, *sh.results, info);
    switch (o.format) {
        case Format::kCsv:
            ucc::perf::print_csv(stdout, info, sh.plan, rows);
            break;
        case Format::kJson:
            ucc::perf::print_json(stdout, info, sh.plan, rows);
            break;
        case Format::kTable:
            ucc::perf::print_sim_table(stdout, info, sh.plan, rows);
            break;
    }
    for (size_t k = 0; k < sh.results->size(); ++k) {
        if (!sh.results->at(k).first_wrong.empty()) {
            std::fprintf(stderr,
                         "ucc_sim: wrong result at %" PRIu64 " bytes on %u rank(s); first: %s\n",
                         sh.plan.counts[k] * o.dtype->size, sh.results->at(k).wrong_ranks,
                         sh.results->at(k).first_wrong.c_str());
        }
    }
}

}  // namespace

// --tune: each candidate (ucc_sim_algorithms) of each collective timed over
// the sizes, timing-only, one untimed iteration then one timed, started
// aligned (the slowest rank's: the collective's own time, as selection by
// cost predicts it); per size the fastest, as TUNE tokens for teams of this
// size.
int run_tune(Options o) {
    o.timing_only = true;
    o.warmup = 1;
    o.iterations = 1;
    o.aligned = true;
    o.format = Format::kTable;
    std::vector<const CollDesc *> colls;
    for (const CollDesc &cd : ucc::perf::colls()) {
        if (o.coll_given ? &cd == o.coll : !cd.v) {
            colls.push_back(&cd);
        }
    }
    std::string tune;
    std::fprintf(stderr, "ucc_sim --tune: %u ranks, network %s, %s\n", o.ranks,
                 o.network.described.c_str(), o.dtype->name);
    for (const CollDesc *cd : colls) {
        o.coll = cd;
        char list[1024];
        if (ucc_sim_algorithms(cd->type, list, sizeof list) != UCC_OK) {
            continue;
        }
        std::vector<ucc::perf::TuneColumn> cols;
        const ucc::perf::SweepPlan plan = plan_of(o);
        for (const std::string &alg : ucc::perf::split_names(list)) {
            o.alg = alg;
            Shared sh;
            sh.opt = &o;
            sh.plan = plan;
            sh.results = std::make_unique<ucc::perf::Results>(sh.plan, o.ranks);
            sh.progress = std::make_unique<ucc::perf::Progress>(false, 0, cd->name);
            ucc_sim_params_t p = sim_params(o, o.ranks);
            p.flags |= UCC_SIM_FLAG_QUIET;
            ucc_sim_run(&p, sweep_rank, &sh);
            ucc::perf::TuneColumn col{alg, {}};
            for (size_t k = 0; k < plan.counts.size(); ++k) {
                const ucc::perf::CountResult &r = sh.results->at(k);
                col.seconds.push_back(r.ranks == o.ranks ? r.max_s : -1);
            }
            cols.push_back(std::move(col));
        }
        const std::vector<int> best = ucc::perf::fastest(cols, plan.counts.size());
        std::vector<uint64_t> msgsizes;
        const bool blocks = cd->shape != Shape::kNone && cd->shape != Shape::kVector;
        for (size_t k = 0; k < plan.counts.size(); ++k) {
            const uint64_t bytes = plan.counts[k] * o.dtype->size;
            msgsizes.push_back(blocks ? bytes * o.ranks : bytes);
            std::fprintf(stderr, "  %-15s %10" PRIu64 " B  %-20s", cd->name, bytes,
                         best[k] < 0 ? "(none ran)" : cols[best[k]].alg.c_str());
            for (const ucc::perf::TuneColumn &c : cols) {
                if (c.seconds[k] >= 0) {
                    std::fprintf(stderr, " %s=%.2fus", c.alg.c_str(), c.seconds[k] * 1e6);
                }
            }
            std::fprintf(stderr, "\n");
        }
        const std::string token =
            ucc::perf::tune_string(cd->name, o.ranks, ucc::perf::tune_ranges(msgsizes, cols, best));
        if (!token.empty()) {
            tune += (tune.empty() ? "" : "#") + token;
        }
    }
    std::printf("# ucc_sim --tune -np %u --network %s: the fastest algorithm per size, %s\n",
                o.ranks, o.network.described.c_str(), o.dtype->name);
    std::printf("UCC_TL_UCP_TUNE=%s\n", tune.c_str());
    return tune.empty() ? 1 : 0;
}

int main(int argc, char **argv) {
    ucc::perf::reexec_on_huge_pages(argv);
    Options o = parse_options(argc, argv);
    if (o.tune) {
        return run_tune(o);
    }
    Shared sh;
    sh.opt = &o;
    void (*rank_fn)(void *) = sweep_rank;
    uint64_t work = 0;
    if (!o.program.empty()) {
        // RTLD_NOW: a missing symbol fails here, not in the middle of a run.
        void *handle = dlopen(o.program.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            std::fprintf(stderr, "ucc_sim: --program %s: %s\n", o.program.c_str(), dlerror());
            return 2;
        }
        void *sym = dlsym(handle, UCC_SIM_MAIN_SYMBOL);
        if (sym == nullptr) {
            std::fprintf(stderr,
                         "ucc_sim: --program %s has no symbol ucc_sim_main (define it as "
                         "int ucc_sim_main(int argc, char **argv), with C linkage)\n",
                         o.program.c_str());
            return 2;
        }
        sh.program_main = reinterpret_cast<int (*)(int, char **)>(sym);
        sh.program_argv.push_back(o.program);
        sh.program_argv.insert(sh.program_argv.end(), o.program_args.begin(), o.program_args.end());
        rank_fn = program_rank;
        work = o.ranks;
        // The library stays loaded until exit: ranks' code must outlive the run.
    } else {
        sh.plan = plan_of(o);
        sh.results = std::make_unique<ucc::perf::Results>(sh.plan, o.ranks);
        if (o.fiberless) {
            sh.sweeps.resize(o.ranks);
            rank_fn = sweep_rank_fiberless;
        }
        work = static_cast<uint64_t>(o.ranks) * sh.plan.counts.size() * (o.warmup + o.iterations);
        // Rehearsal: two ranks, ideal network, quiet, timing-only.
        Shared rh;
        ucc_sim_params_t p = sim_params(o, std::min<uint32_t>(o.ranks, 2));
        p.flags |= UCC_SIM_FLAG_QUIET;
        p.flags &= ~static_cast<uint64_t>(UCC_SIM_FLAG_FIBERLESS);  // it waits in its calls
        // A network that reduces keeps its switches (at no cost) for the sharp allreduce.
        const std::string rehearsal_network =
            o.network.described.find(",sharp_lat=") != std::string::npos ? "ideal,sharp_lat=1ps"
                                                                         : "ideal";
        p.network = rehearsal_network.c_str();
        p.timing_only = 1;
        rh.opt = &o;
        rh.plan = sh.plan;
        rh.plan.spec.no_buffers = true;
        rh.plan.spec.root = o.root % p.n_ranks;
        const ucc_status_t st = ucc_sim_run(&p, rehearse_rank, &rh);
        if (st != UCC_OK || rh.failures.ranks > 0) {
            std::fprintf(stderr, "ucc_sim: %s on %u ranks cannot run: %s\n", o.coll->name, o.ranks,
                         rh.failures.ranks > 0 ? rh.failures.first.c_str() : ucc_status_string(st));
            return 2;
        }
        if (const std::string why = buffers_beyond_memory(o, sh.plan); !why.empty()) {
            std::fprintf(stderr, "ucc_sim: %s\n", why.c_str());
            return 2;
        }
    }
    sh.progress = std::make_unique<ucc::perf::Progress>(
        o.progress, work, o.program.empty() ? o.coll->name : "program");

    // The run itself is quiet: the tool prints the simulator's first and last
    // lines, so that they never collide with the progress bar.
    ucc_sim_params_t p = sim_params(o, o.ranks);
    if (!o.faults.empty()) {
        p.mask |= UCC_SIM_PARAM_FIELD_FAULTS;
        p.faults = o.faults.c_str();
    }
    p.flags |= UCC_SIM_FLAG_QUIET;
    std::fprintf(stderr, "ucc_sim: seed=%" PRIu64 " ranks=%u network=%s%s\n", o.seed, o.ranks,
                 o.network.described.c_str(), o.timing_only ? " timing-only" : "");
    if (!o.faults.empty()) {
        std::vector<char> plan(64 + 64 * static_cast<size_t>(std::min<uint32_t>(o.ranks, 4096)));
        if (ucc_sim_faults_describe(o.faults.c_str(), o.ranks, o.seed, plan.data(), plan.size()) !=
            UCC_OK) {
            die_usage("--faults: " + std::string(plan.data()));
        }
        std::fprintf(stderr, "ucc_sim: faults=%s\n", plan.data());
    }
    if (!o.timeline.empty()) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE | UCC_SIM_PARAM_FIELD_TIMELINE_RANKS;
        p.timeline = o.timeline.c_str();
        p.timeline_ranks = o.timeline_ranks.c_str();
    }
    const auto w0 = Clock::now();
    ucc_status_t st = ucc_sim_run(&p, rank_fn, &sh);
    const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
    sh.sweeps.clear();
    sh.progress->clear();
    const double virt = ucc_sim_last_time();
    const uint64_t events = ucc_sim_last_events();
    std::fprintf(stderr,
                 "ucc_sim: virtual time %.9g s, %" PRIu64 " events, trace hash 0x%016" PRIx64 "\n",
                 virt, events, ucc_sim_trace_hash());

    // Reports first (a deadlock's went to stderr during the run), then results.
    bool ok = st == UCC_OK;
    if (st != UCC_OK) {
        std::fprintf(stderr, "ucc_sim: the simulation failed: %s%s\n", ucc_status_string(st),
                     st == UCC_ERR_NO_MESSAGE ? " (deadlock: see the report above)" : "");
    }
    if (sh.failures.ranks > 0) {
        ok = false;
        std::fprintf(stderr, "ucc_sim: %" PRIu64 " rank(s) failed; first: %s\n", sh.failures.ranks,
                     sh.failures.first.c_str());
    }
    if (sh.nonzero_exits > 0) {
        ok = false;
        std::fprintf(stderr, "ucc_sim: %" PRIu64 " rank(s) returned non-zero; first: %s\n",
                     sh.nonzero_exits, sh.first_exit.c_str());
    }
    std::fflush(stderr);
    if (o.program.empty()) {
        report(o, sh);
        for (size_t k = 0; k < sh.results->size(); ++k) {
            ok = ok && sh.results->at(k).wrong_ranks == 0;
        }
    }
    if (!o.timeline.empty() && st != UCC_ERR_INVALID_PARAM) {
        std::fprintf(stderr, "ucc_sim: timeline written to %s\n", o.timeline.c_str());
    }
    // The closing lines: on stdout, or on stderr when stdout carries CSV/JSON.
    FILE *out = o.format == Format::kTable ? stdout : stderr;
    std::fprintf(out, "Simulated time: %.9f seconds.\n", virt);
    std::fprintf(out, "Wall time: %.3f seconds.\n", wall);
    std::fprintf(out, "Events: %" PRIu64 " (%.0f events/s).\n", events,
                 wall > 0 ? static_cast<double>(events) / wall : 0.0);
    if (st == UCC_ERR_INVALID_PARAM && events == 0) {
        return 2;  // refused before it started: a bad parameter (e.g. --timeline-ranks)
    }
    return ok ? 0 : 1;
}
