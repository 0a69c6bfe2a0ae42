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
// See docs/ucc_sim.md for every option and format.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lib/util/parse.h"
#include "tools/perf/coll_call.h"
#include "tools/perf/colls.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kRanksMax = 1u << 20;
constexpr size_t kDescribeBytes = 1024;

using ucc::trim;
using ucc::perf::CollCall;
using ucc::perf::CollDesc;
using ucc::perf::DtDesc;
using ucc::perf::OpDesc;
using ucc::perf::Shape;
using ucc::perf::VArrays;

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

enum class Format : uint8_t { kTable, kCsv, kJson };

struct Options {
    uint32_t ranks = 0;  // 0: not given
    uint64_t seed = 1;
    std::string network_arg = "hdr";
    std::string network_spec = "hdr";  // what the simulator is given
    std::string network_described;     // the resolved model, in full
    uint64_t network_slots = 0;        // nodes * ppn from a network file (0: unbounded)
    bool timing_only = false;
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
    std::string alg;  // empty: auto
    std::string program;
    std::vector<std::string> program_args;
    Format format = Format::kTable;
    std::string timeline;
    std::string timeline_ranks;
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
    "  --stack-size BYTES    fiber stack per rank (default 256K)\n"
    "Collective sweep (ucc_perftest style):\n"
    "  -c COLL               collective (default allreduce): %s\n"
    "  -b BYTES              smallest message size (default 8; K, M, G suffixes)\n"
    "  -e BYTES              largest message size, sizes doubling from -b (default 1M)\n"
    "  -d DTYPE              datatype (default float32): %s\n"
    "  -o OP                 reduction (default sum): %s\n"
    "  -i N                  timed iterations per size (default 10)\n"
    "  -w N                  untimed warm-up iterations per size (default 0)\n"
    "  -r ROOT               root of rooted collectives (default 0)\n"
    "  --inplace             in-place collectives\n"
    "  --alg NAME            force an algorithm (UCC_<COLL>_ALG), default auto\n"
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

// "64", "4K", "1M", "2G" (binary multiples; a trailing B or iB is allowed).
bool parse_bytes(std::string s, uint64_t *out) {
    for (const char *suffix : {"iB", "B"}) {
        size_t n = std::strlen(suffix);
        if (s.size() > n && s.compare(s.size() - n, n, suffix) == 0) {
            s.resize(s.size() - n);
            break;
        }
    }
    uint64_t mult = 1;
    if (!s.empty()) {
        switch (s.back()) {
            case 'k':
            case 'K':
                mult = 1ull << 10;
                break;
            case 'm':
            case 'M':
                mult = 1ull << 20;
                break;
            case 'g':
            case 'G':
                mult = 1ull << 30;
                break;
            default:
                break;
        }
        if (mult != 1) {
            s.pop_back();
        }
    }
    uint64_t v = 0;
    if (!parse_uint(s, (1ull << 62) / mult, &v)) {
        return false;
    }
    *out = v * mult;
    return true;
}

// Asks the simulator to parse a spec; returns false with its message.
bool describe_network(const std::string &spec, std::string *described) {
    char buf[kDescribeBytes];
    ucc_status_t st = ucc_sim_network_describe(spec.c_str(), buf, sizeof(buf));
    *described = buf;
    return st == UCC_OK;
}

bool is_preset(const std::string &s) {
    return s == "hdr" || s == "eth100" || s == "slow" || s == "ideal";
}

// Reads a network file: key = value lines, '#' comments. Keys are those of the
// spec string plus `preset` (the base, default hdr) and `nodes` ("128" or
// "128x8", the latter also setting ppn). Builds the equivalent spec string.
void read_network_file(const std::string &path, Options *o) {
    std::ifstream in(path);
    if (!in) {
        die_usage("--network " + path +
                  ": not a preset (hdr, eth100, slow, ideal), not a spec (key=value,...), and "
                  "not a readable file");
    }
    std::string preset = "hdr";
    std::vector<std::string> items;
    uint64_t nodes = 0;
    std::string line;
    for (int line_no = 1; std::getline(in, line); ++line_no) {
        auto where = [&]() { return path + ":" + std::to_string(line_no) + ": "; };
        size_t hash = line.find('#');
        if (hash != std::string::npos) {
            line.resize(hash);
        }
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string::npos) {
            die_usage(where() + "\"" + line + "\" is not key = value");
        }
        std::string key(trim(line.substr(0, eq)));
        std::string value(trim(line.substr(eq + 1)));
        if (key == "preset") {
            if (!is_preset(value)) {
                die_usage(where() + "unknown preset \"" + value + "\" (hdr, eth100, slow, ideal)");
            }
            preset = value;
            continue;
        }
        if (key == "ranks_per_node") {
            key = "ppn";
        }
        if (key == "nodes") {
            size_t x = value.find('x');
            std::string n_str(x == std::string::npos ? std::string_view(value)
                                                     : trim(value.substr(0, x)));
            if (!parse_uint(n_str, kRanksMax, &nodes) || nodes == 0) {
                die_usage(where() + "nodes: \"" + value + "\" is not a node count (N or NxPPN)");
            }
            if (x == std::string::npos) {
                continue;
            }
            key = "ppn";
            value = trim(value.substr(x + 1));
        }
        std::string item = key + "=" + value;
        std::string msg;
        if (!describe_network("hdr," + item, &msg)) {
            // The simulator's message names the key and what it expected.
            size_t colon = msg.find("\": ");
            die_usage(where() + (colon == std::string::npos ? msg : msg.substr(colon + 3)));
        }
        items.push_back(item);
    }
    std::string spec = preset;
    for (const std::string &item : items) {
        spec += "," + item;
    }
    o->network_spec = spec;
    if (nodes > 0) {
        // ppn as the model resolved it (the file's, or the preset's).
        std::string described;
        describe_network(spec, &described);
        size_t p = described.find(",ppn=");
        uint64_t ppn =
            p == std::string::npos ? 1 : std::strtoull(described.c_str() + p + 5, nullptr, 10);
        o->network_slots = nodes * std::max<uint64_t>(ppn, 1);
    }
}

void resolve_network(Options *o) {
    const std::string &arg = o->network_arg;
    if (arg.find('=') != std::string::npos || arg.find(',') != std::string::npos ||
        is_preset(arg)) {
        o->network_spec = arg;
    } else {
        read_network_file(arg, o);
    }
    if (!describe_network(o->network_spec, &o->network_described)) {
        die_usage("--network: " + o->network_described);
    }
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
        if (!parse_bytes(v, &n)) {
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
        } else if (a == "--stack-size") {
            o.stack_size = bytes(&i);
        } else if (a == "-c") {
            std::string v = value(&i);
            o.coll = ucc::perf::find_coll(v);
            if (o.coll == nullptr) {
                die_usage("-c " + v + ": collectives are " + ucc::perf::coll_names());
            }
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
        } else if (a == "--alg") {
            o.alg = value(&i);
            sweep_option = true;
        } else if (a == "--program") {
            o.program = value(&i);
        } else if (a == "--csv") {
            o.format = Format::kCsv;
        } else if (a == "--json") {
            o.format = Format::kJson;
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
    resolve_network(&o);
    if (o.ranks == 0) {
        o.ranks = o.network_slots > 0
                      ? static_cast<uint32_t>(std::min<uint64_t>(o.network_slots, kRanksMax))
                      : 8;
    }
    if (o.network_slots > 0 && o.ranks > o.network_slots) {
        die_usage("-np " + std::to_string(o.ranks) + " does not fit the network file's " +
                  std::to_string(o.network_slots) + " rank slots (nodes x ppn)");
    }
    if (!o.program.empty() && sweep_option) {
        die_usage(
            "--program runs a user program: the sweep options (-c -b -e -d -o -i -w -r "
            "--inplace --alg) do not apply");
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
// Sweep geometry
// ---------------------------------------------------------------------------

// One message size of the sweep: `bytes` is the per-rank size (see
// docs/ucc_sim.md), `count` the element count it gives.
struct SizePoint {
    uint64_t bytes = 0;
    uint64_t count = 0;
};

std::vector<SizePoint> sweep_sizes(const Options &o) {
    std::vector<SizePoint> sizes;
    if (o.coll->shape == Shape::kNone) {
        sizes.push_back({0, 0});
        return sizes;
    }
    const uint64_t es = o.dtype->size;
    for (uint64_t b = std::max<uint64_t>(o.min_bytes, 1); b <= o.max_bytes; b *= 2) {
        uint64_t count = b / es;
        if (count > 0 && (sizes.empty() || sizes.back().count != count)) {
            sizes.push_back({count * es, count});
        }
        if (b > UINT64_MAX / 2) {
            break;
        }
    }
    if (sizes.empty()) {
        die_usage("no size in [-b, -e] holds a whole " + std::string(o.dtype->name) + " element");
    }
    return sizes;
}

// Buffers and arguments of one rank for one size (the tools' one builder).
void build_args(const Options &o, const SizePoint &sp, uint32_t n, uint32_t rank, const VArrays *va,
                CollCall *call) {
    ucc::perf::CollSpec spec;
    spec.coll = o.coll;
    spec.dtype = o.dtype;
    spec.op = o.op;
    spec.root = o.root;
    spec.inplace = o.inplace;
    spec.no_buffers = o.timing_only;
    ucc::perf::build_call(spec, sp.count, n, rank, va, call);
}

// ---------------------------------------------------------------------------
// State shared by the ranks of one run (main-local; the ranks run on one thread)
// ---------------------------------------------------------------------------

struct SizeResult {
    double sum_s = 0;  // of per-rank mean latencies
    double min_s = INFINITY;
    double max_s = 0;
    uint32_t ranks = 0;  // ranks that measured this size
    std::string algorithm;
    std::unique_ptr<VArrays> varrays;
};

// A progress bar on stderr: only on a terminal, only once a run has taken a
// few seconds. Wall time is read for this display alone.
class Progress {
  public:
    Progress(bool enabled, uint64_t total)
        : enabled_(enabled && isatty(STDERR_FILENO) == 1), total_(total), start_(Clock::now()) {}
    void tick(const char *what) {
        ++done_;
        if (!enabled_ || (done_ & 63) != 0) {
            return;
        }
        auto now = Clock::now();
        double elapsed = std::chrono::duration<double>(now - start_).count();
        if (elapsed < 2.0 || std::chrono::duration<double>(now - last_).count() < 0.25) {
            return;
        }
        last_ = now;
        constexpr int kWidth = 30;
        double frac = total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
        int fill = static_cast<int>(frac * kWidth);
        std::string bar(static_cast<size_t>(fill), '#');
        bar.resize(kWidth, '.');
        std::fprintf(stderr, "\r[%s] %5.1f%%  %s  %.0f s ", bar.c_str(), 100.0 * frac, what,
                     elapsed);
        drawn_ = true;
    }
    void clear() {
        if (drawn_) {
            std::fputs("\r\033[K", stderr);
            drawn_ = false;
        }
    }

  private:
    bool enabled_;
    uint64_t total_;
    uint64_t done_ = 0;
    Clock::time_point start_;
    Clock::time_point last_{};
    bool drawn_ = false;
};

struct Shared {
    const Options *opt = nullptr;
    std::vector<SizePoint> sizes;
    std::vector<SizeResult> results;
    // Failures: how many ranks, and the first one's story.
    uint64_t failed_ranks = 0;
    std::string first_failure;
    // --program
    int (*program_main)(int, char **) = nullptr;
    std::vector<std::string> program_argv;
    uint64_t nonzero_exits = 0;
    std::unique_ptr<Progress> progress;
};

void record_failure(Shared *sh, uint32_t rank, const std::string &what) {
    if (sh->failed_ranks++ == 0) {
        sh->first_failure = "rank " + std::to_string(rank) + ": " + what;
    }
}

// ---------------------------------------------------------------------------
// One rank of the sweep: the whole public-API lifecycle
// ---------------------------------------------------------------------------

std::string failed(const char *call, ucc_status_t st) {
    return std::string(call) + " failed: " + ucc_status_string(st);
}

// init + post + test/progress until done + finalize.
ucc_status_t run_collective(ucc_coll_args_t *args, ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
    }
    ucc_status_t fin = ucc_collective_finalize(req);
    return st != UCC_OK ? st : fin;
}

struct Lifecycle {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// ucc_init, context (with the simulator's OOB, the --alg choice in its
// config), team over every rank. Returns "" or what failed.
std::string setup(const Options &o, uint32_t rank, uint32_t n, Lifecycle *lc) {
    ucc_lib_config_h lcfg = nullptr;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lcfg);
    if (st != UCC_OK) {
        return failed("ucc_lib_config_read", st);
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    st = ucc_init(&lp, lcfg, &lc->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        return failed("ucc_init", st);
    }
    ucc_context_config_h ccfg = nullptr;
    st = ucc_context_config_read(lc->lib, nullptr, &ccfg);
    if (st != UCC_OK) {
        return failed("ucc_context_config_read", st);
    }
    if (!o.alg.empty()) {
        std::string var = o.coll->name;
        for (char &ch : var) {
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        }
        var += "_ALG";
        st = ucc_context_config_modify(ccfg, nullptr, var.c_str(), o.alg.c_str());
        if (st != UCC_OK) {
            ucc_context_config_release(ccfg);
            return failed("ucc_context_config_modify", st);
        }
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp.oob);
    st = ucc_context_create(lc->lib, &cp, ccfg, &lc->ctx);
    ucc_context_config_release(ccfg);
    if (st != UCC_OK) {
        return failed("ucc_context_create", st);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = n;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    st = ucc_team_create_post(&lc->ctx, 1, &tp, &lc->team);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(lc->team)) == UCC_INPROGRESS) {
            ucc_context_progress(lc->ctx);
        }
    }
    if (st != UCC_OK) {
        return failed("ucc_team_create", st);
    }
    return "";
}

std::string teardown(Lifecycle *lc) {
    ucc_status_t st = UCC_OK;
    if (lc->team != nullptr) {
        while ((st = ucc_team_destroy(lc->team)) == UCC_INPROGRESS) {
            ucc_context_progress(lc->ctx);
        }
        if (st != UCC_OK) {
            return failed("ucc_team_destroy", st);
        }
    }
    if (lc->ctx != nullptr && (st = ucc_context_destroy(lc->ctx)) != UCC_OK) {
        return failed("ucc_context_destroy", st);
    }
    if (lc->lib != nullptr && (st = ucc_finalize(lc->lib)) != UCC_OK) {
        return failed("ucc_finalize", st);
    }
    return "";
}

const VArrays *varrays_for(Shared *sh, size_t k, uint32_t n) {
    if (!sh->opt->coll->v) {
        return nullptr;
    }
    SizeResult &res = sh->results[k];
    if (!res.varrays) {
        res.varrays = std::make_unique<VArrays>();
        res.varrays->build(sh->sizes[k].count, n);
    }
    return res.varrays.get();
}

void sweep_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    const Options &o = *sh->opt;
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    Lifecycle lc;
    std::string err = setup(o, rank, n, &lc);
    if (!err.empty()) {
        record_failure(sh, rank, err);
        return;
    }
    ucc_coll_args_t barrier{};
    barrier.coll_type = UCC_COLL_TYPE_BARRIER;
    for (size_t k = 0; k < sh->sizes.size(); ++k) {
        CollCall call;
        build_args(o, sh->sizes[k], n, rank, varrays_for(sh, k, n), &call);
        ucc_status_t st = UCC_OK;
        for (uint32_t w = 0; w < o.warmup && st == UCC_OK; ++w) {
            st = run_collective(&call.args, lc.team, lc.ctx);
            sh->progress->tick(o.coll->name);
        }
        // Start the timed loop together.
        if (st == UCC_OK) {
            st = run_collective(&barrier, lc.team, lc.ctx);
        }
        const double t0 = ucc_sim_now();
        std::string alg;
        for (uint32_t it = 0; it < o.iterations && st == UCC_OK; ++it) {
            st = run_collective(&call.args, lc.team, lc.ctx);
            if (it == 0) {
                alg = ucc_sim_last_algorithm();
            }
            sh->progress->tick(o.coll->name);
        }
        if (st != UCC_OK) {
            record_failure(sh, rank,
                           std::string(o.coll->name) + " of " + std::to_string(sh->sizes[k].bytes) +
                               " bytes failed: " + ucc_status_string(st));
            teardown(&lc);
            return;
        }
        const double lat = (ucc_sim_now() - t0) / o.iterations;
        SizeResult &res = sh->results[k];
        res.sum_s += lat;
        res.min_s = std::min(res.min_s, lat);
        res.max_s = std::max(res.max_s, lat);
        if (rank == 0) {
            res.algorithm = alg.empty() ? "none" : alg;
        }
        if (++res.ranks == n) {
            res.varrays.reset();  // every rank is done with this size
        }
    }
    err = teardown(&lc);
    if (!err.empty()) {
        record_failure(sh, rank, err);
    }
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
        if (sh->nonzero_exits++ == 0) {
            sh->first_failure = "rank " + std::to_string(ucc_sim_rank()) +
                                ": ucc_sim_main returned " + std::to_string(rc);
        }
    }
    sh->progress->tick("program");
}

// A two-rank rehearsal of the first size: catches an unknown --alg or an
// unsupported dtype/op combination with two log lines instead of N.
void rehearse_rank(void *arg) {
    auto *sh = static_cast<Shared *>(arg);
    const Options &o = *sh->opt;
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    Lifecycle lc;
    std::string err = setup(o, rank, n, &lc);
    if (err.empty()) {
        CollCall call;
        VArrays va;
        va.build(sh->sizes[0].count, n);
        build_args(o, sh->sizes[0], n, rank, &va, &call);
        ucc_coll_req_h req = nullptr;
        ucc_status_t st = ucc_collective_init(&call.args, &req, lc.team);
        if (st != UCC_OK) {
            err = failed("ucc_collective_init", st);
        } else {
            ucc_collective_finalize(req);
        }
    }
    teardown(&lc);
    if (!err.empty()) {
        record_failure(sh, rank, err);
    }
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

struct Row {
    uint64_t bytes;
    uint64_t count;
    std::string algorithm;
    double avg_us;
    double min_us;
    double max_us;
    double algbw;
    double busbw;
};

std::vector<Row> rows_of(const Shared &sh, uint32_t n) {
    const Options &o = *sh.opt;
    std::vector<Row> rows;
    for (size_t k = 0; k < sh.sizes.size(); ++k) {
        const SizeResult &r = sh.results[k];
        if (r.ranks == 0) {
            continue;  // not measured (the run failed before)
        }
        Row row{};
        row.bytes = sh.sizes[k].bytes;
        row.count = sh.sizes[k].count;
        row.algorithm = r.algorithm.empty() ? "none" : r.algorithm;
        const double avg = r.sum_s / r.ranks;
        row.avg_us = avg * 1e6;
        row.min_us = r.min_s * 1e6;
        row.max_us = r.max_s * 1e6;
        row.algbw = avg > 0 ? ucc::perf::nccl_size(*o.coll, row.bytes, n) / avg / 1e9 : 0;
        row.busbw = row.algbw * ucc::perf::busbw_factor(*o.coll, n);
        rows.push_back(row);
    }
    return rows;
}

const char *mode_name(const Options &o) {
    return o.timing_only ? "timing-only" : "payload";
}

void print_rows(const Shared &sh, uint32_t n) {
    const Options &o = *sh.opt;
    const std::vector<Row> rows = rows_of(sh, n);
    const char *dt = o.coll->shape == Shape::kNone ? "none" : o.dtype->name;
    switch (o.format) {
        case Format::kCsv:
            std::printf(
                "ranks,collective,algorithm,bytes,count,dtype,iterations,avg_us,min_us,max_us,"
                "algbw_gbps,busbw_gbps,mode\n");
            for (const Row &r : rows) {
                std::printf("%u,%s,%s,%" PRIu64 ",%" PRIu64 ",%s,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%s\n",
                            n, o.coll->name, r.algorithm.c_str(), r.bytes, r.count, dt,
                            o.iterations, r.avg_us, r.min_us, r.max_us, r.algbw, r.busbw,
                            mode_name(o));
            }
            break;
        case Format::kJson:
            for (const Row &r : rows) {
                std::printf(
                    "{\"ranks\":%u,\"collective\":\"%s\",\"algorithm\":\"%s\",\"bytes\":%" PRIu64
                    ",\"count\":%" PRIu64
                    ",\"dtype\":\"%s\",\"iterations\":%u,\"avg_us\":%.6f,\"min_us\":%.6f,"
                    "\"max_us\":%.6f,\"algbw_gbps\":%.6f,\"busbw_gbps\":%.6f,\"mode\":"
                    "\"%s\",\"seed\":%" PRIu64 ",\"network\":\"%s\"}\n",
                    n, o.coll->name, r.algorithm.c_str(), r.bytes, r.count, dt, o.iterations,
                    r.avg_us, r.min_us, r.max_us, r.algbw, r.busbw, mode_name(o), o.seed,
                    o.network_described.c_str());
            }
            break;
        case Format::kTable:
            std::printf("# ucc_sim: %s, %u ranks, %s%s%s, %u iterations, %s\n", o.coll->name, n, dt,
                        o.coll->reduction ? " " : "", o.coll->reduction ? o.op->name : "",
                        o.iterations, mode_name(o));
            std::printf("# network: %s\n", o.network_described.c_str());
            std::printf("# %12s %12s  %-20s %12s %12s %12s %12s %12s\n", "bytes", "count",
                        "algorithm", "avg(us)", "min(us)", "max(us)", "algbw(GB/s)", "busbw(GB/s)");
            for (const Row &r : rows) {
                std::printf("  %12" PRIu64 " %12" PRIu64
                            "  %-20s %12.3f %12.3f %12.3f %12.3f %12.3f\n",
                            r.bytes, r.count, r.algorithm.c_str(), r.avg_us, r.min_us, r.max_us,
                            r.algbw, r.busbw);
            }
            break;
    }
    std::fflush(stdout);
}

ucc_sim_params_t sim_params(const Options &o, uint32_t ranks) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_TIMING_ONLY;
    p.n_ranks = ranks;
    p.seed = o.seed;
    p.network = o.network_spec.c_str();
    p.timing_only = o.timing_only ? 1 : 0;
    if (o.stack_size > 0) {
        p.mask |= UCC_SIM_PARAM_FIELD_STACK_SIZE;
        p.stack_size = o.stack_size;
    }
    return p;
}

}  // namespace

int main(int argc, char **argv) {
    Options o = parse_options(argc, argv);
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
        sh.sizes = sweep_sizes(o);
        sh.results.resize(sh.sizes.size());
        work = static_cast<uint64_t>(o.ranks) * sh.sizes.size() * (o.warmup + o.iterations);
        // Rehearsal: two ranks, ideal network, quiet, timing-only.
        Shared rh;
        rh.sizes = sh.sizes;
        rh.results.resize(1);
        ucc_sim_params_t p = sim_params(o, std::min<uint32_t>(o.ranks, 2));
        p.mask |= UCC_SIM_PARAM_FIELD_FLAGS;
        p.flags = UCC_SIM_FLAG_QUIET;
        p.network = "ideal";
        Options ro = o;
        ro.timing_only = true;
        ro.root = o.root % p.n_ranks;
        rh.opt = &ro;
        p.timing_only = 1;
        rh.progress = std::make_unique<Progress>(false, 0);
        ucc_status_t st = ucc_sim_run(&p, rehearse_rank, &rh);
        if (st != UCC_OK || rh.failed_ranks > 0) {
            std::fprintf(stderr, "ucc_sim: %s on %u ranks cannot run: %s\n", o.coll->name, o.ranks,
                         rh.failed_ranks > 0 ? rh.first_failure.c_str() : ucc_status_string(st));
            return 2;
        }
    }
    sh.progress = std::make_unique<Progress>(o.progress, work);

    // The run itself is quiet: the tool prints the simulator's first and last
    // lines, so that they never collide with the progress bar.
    ucc_sim_params_t p = sim_params(o, o.ranks);
    p.mask |= UCC_SIM_PARAM_FIELD_FLAGS;
    p.flags = UCC_SIM_FLAG_QUIET;
    std::fprintf(stderr, "ucc_sim: seed=%" PRIu64 " ranks=%u network=%s%s\n", o.seed, o.ranks,
                 o.network_described.c_str(), o.timing_only ? " timing-only" : "");
    if (!o.timeline.empty()) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE | UCC_SIM_PARAM_FIELD_TIMELINE_RANKS;
        p.timeline = o.timeline.c_str();
        p.timeline_ranks = o.timeline_ranks.c_str();
    }
    const auto w0 = Clock::now();
    ucc_status_t st = ucc_sim_run(&p, rank_fn, &sh);
    const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
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
    if (sh.failed_ranks > 0) {
        ok = false;
        std::fprintf(stderr, "ucc_sim: %" PRIu64 " rank(s) failed; first: %s\n", sh.failed_ranks,
                     sh.first_failure.c_str());
    }
    if (sh.nonzero_exits > 0) {
        ok = false;
        std::fprintf(stderr, "ucc_sim: %" PRIu64 " rank(s) returned non-zero; first: %s\n",
                     sh.nonzero_exits, sh.first_failure.c_str());
    }
    std::fflush(stderr);
    if (o.program.empty()) {
        print_rows(sh, o.ranks);
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
