// ucc_replay: replay a trace recorded with UCC_TRACE=<dir> (traces/FORMAT.md)
// on the simulator, and say how long each collective took when recorded and
// how long the simulator predicts, on any network model.
//
//   ucc_replay <dir> [--ranks N] [--network NET] [--seed S] [--timing-only]
//              [--timeline FILE [--timeline-ranks L]] [--json]
//   ucc_run -n N ucc_replay <dir> --transport ucx [--ranks N] [--timeout S] [--json]
//
// --ranks N replays the trace at another number of ranks, by the rule of
// traces/rescale.h (each recorded rank's program played by N/S ranks; teams,
// roots and v-counts follow).
//
// --transport ucx replays over UCX instead: one process per rank under a
// launcher, timed by the wall clock, rank 0 reporting for all (results are not
// checked against the model there).
//
// The run ends as ucc_sim's does:
//   Simulated time: X seconds.
//   Wall time: Y seconds.
//   Events: N (Z events/s).
// Exit codes: 0 replayed cleanly; 1 the trace or its replay has a problem
// (desynchronisation, a rank that stopped early, a deadlock, a status other
// than the recorded one; each is reported); 2 bad options or an unreadable
// trace (with file:line).
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tools/perf/network.h"
#include "traces/names.h"
#include "traces/reader.h"
#include "traces/replay.h"
#include "traces/rescale.h"
#include "traces/simgrid.h"
#include "ucc/boot/ucc_boot.h"

namespace {

using ucc::traces::CollResult;

const char kUsage[] =
    "usage: ucc_replay <dir> [options]\n"
    "  <dir>                 a trace recorded with UCC_TRACE=<dir> (rank<R>.jsonl files), or a\n"
    "                        SimGrid time-independent trace (a directory of per-rank files, one\n"
    "                        file of every rank's actions, or an index of per-rank files)\n"
    "  --ranks N             replay at N ranks (traces/rescale.h; default: as recorded)\n"
    "  --network NET         preset, spec or network file, as ucc_sim takes it (default hdr)\n"
    "  --seed S              the simulator's seed (default 1)\n"
    "  --timing-only         move no payload: only messages, sizes and costs\n"
    "  --timeline FILE       Chrome trace JSON timeline of the replay\n"
    "  --timeline-ranks L    ranks the timeline records, e.g. 0-7 (default all)\n"
    "  --json                one JSON line per collective type on stdout\n"
    "  --by-size             a row per collective type and size (default: per type)\n"
    "  --warmup N            leave each rank's first N calls of every collective type and size\n"
    "                        out of the times (they are still replayed): a program's first calls\n"
    "                        pay for first touches of its memory, which the model does not\n"
    "                        charge (default 0: every call)\n"
    "  --inputs written|clean  whether the program wrote each call's input since the last\n"
    "                        (a network's cma_written: pulls of just-written data cost\n"
    "                        more); default written, as a program computes its input\n"
    "  --no-compute          calls back to back (default: the program's own time between its\n"
    "                        calls, as recorded, is spent again before each call)\n"
    "  --transport sim|ucx   replay on the simulator (default) or over UCX, one process per\n"
    "                        rank under a launcher (ucc_run -n N ucc_replay DIR --transport ucx)\n"
    "  --timeout S           over UCX: seconds after which a collective gives up (default 60)\n"
    "  -h, --help            this text\n";

[[noreturn]] void die_usage(const std::string &msg) {
    std::fprintf(stderr, "ucc_replay: %s\n(ucc_replay --help lists the options)\n", msg.c_str());
    std::exit(2);
}

struct Options {
    std::string dir;
    ucc::traces::ReplayOptions replay;
    std::string network_described;
    uint64_t network_slots = 0;
    uint32_t ranks = 0;  // 0: as recorded
    bool json = false;
    bool ucx = false;
    bool by_size = false;
    uint32_t warmup = 0;  // per rank, collective type and size: calls left out of the times
};

Options parse(int argc, char **argv) {
    Options o;
    std::string network = "hdr";
    auto value = [&](int *i) -> std::string {
        if (*i + 1 >= argc) {
            die_usage(std::string(argv[*i]) + " needs a value");
        }
        return argv[++*i];
    };
    // The option's value as a whole decimal number in [lo, hi], or the usage error.
    auto number = [&](int *i, unsigned long long lo, unsigned long long hi,
                      const char *expected) -> unsigned long long {
        const std::string v = value(i);
        char *end = nullptr;
        const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < lo || n > hi) {
            die_usage(std::string(argv[*i - 1]) + " " + v + ": expected " + expected);
        }
        return n;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (a == "--network") {
            network = value(&i);
        } else if (a == "--ranks") {
            o.ranks = static_cast<uint32_t>(number(&i, 1, 1u << 20, "1 to 1048576"));
        } else if (a == "--seed") {
            o.replay.seed = number(&i, 0, ULLONG_MAX, "a number");
        } else if (a == "--timing-only") {
            o.replay.timing_only = true;
        } else if (a == "--timeline") {
            o.replay.timeline = value(&i);
        } else if (a == "--timeline-ranks") {
            o.replay.timeline_ranks = value(&i);
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--by-size") {
            o.by_size = true;
        } else if (a == "--warmup") {
            o.warmup = static_cast<uint32_t>(number(&i, 0, 1u << 30, "a count of calls"));
        } else if (a == "--inputs") {
            const std::string v = value(&i);
            if (v != "clean" && v != "written") {
                die_usage("--inputs " + v + ": clean or written");
            }
            o.replay.inputs_written = v == "written";
        } else if (a == "--no-compute") {
            o.replay.compute = false;
        } else if (a == "--transport") {
            const std::string v = value(&i);
            if (v != "sim" && v != "ucx") {
                die_usage("--transport " + v + ": sim or ucx");
            }
            o.ucx = v == "ucx";
        } else if (a == "--timeout") {
            const std::string v = value(&i);
            char *end = nullptr;
            o.replay.timeout_s = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != '\0' || !(o.replay.timeout_s > 0)) {
                die_usage("--timeout " + v + ": expected seconds (> 0)");
            }
        } else if (!a.empty() && a[0] == '-') {
            die_usage("unknown option " + a);
        } else if (o.dir.empty()) {
            o.dir = a;
        } else {
            die_usage("one trace directory, please (" + o.dir + ", " + a + ")");
        }
    }
    if (o.dir.empty()) {
        die_usage("which trace? ucc_replay <dir>");
    }
    if (o.ucx && !ucc_boot_launched()) {
        die_usage(
            "--transport ucx replays one rank per process: run it under a launcher, e.g. "
            "ucc_run -n <ranks> ucc_replay " +
            o.dir + " --transport ucx");
    }
    if (o.ucx && o.replay.timeout_s == 0) {
        o.replay.timeout_s = 60;
    }
    ucc::perf::NetworkArg net;
    std::string why;
    if (!ucc::perf::resolve_network(network, &net, &why)) {
        die_usage("--network " + why);
    }
    o.replay.network = net.spec;
    o.network_described = net.described;
    o.network_slots = net.slots;
    return o;
}

// Per collective type: calls, bytes, times (the numbers, gathered from every
// process of a UCX replay), algorithms (this process's).
struct Numbers {
    uint64_t calls = 0;
    uint64_t timed = 0;      // with both times
    uint64_t predicted = 0;  // with a predicted time (imported traces have no recorded one)
    double bytes = 0;
    double recorded_us = 0;
    double predicted_us = 0;
    double predicted_all_us = 0;
    void add(const Numbers &o) {
        calls += o.calls;
        timed += o.timed;
        predicted += o.predicted;
        bytes += o.bytes;
        recorded_us += o.recorded_us;
        predicted_us += o.predicted_us;
        predicted_all_us += o.predicted_all_us;
    }
};

struct Summary {
    Numbers num[16];  // by collective type bit
    std::set<std::string> recorded_algs[16];
    std::set<std::string> replayed_algs[16];
    uint64_t problems = 0;
};

// --warmup: each rank's first `n` calls of every (collective type, size), in
// the rank's trace order, keep no times.
void leave_out_warmup(uint32_t n, ucc::traces::ReplayResult *res) {
    if (n == 0) {
        return;
    }
    std::vector<CollResult *> order;
    for (CollResult &c : res->colls) {
        order.push_back(&c);
    }
    std::sort(order.begin(), order.end(), [](const CollResult *a, const CollResult *b) {
        return std::tie(a->rank, a->line) < std::tie(b->rank, b->line);
    });
    std::map<std::tuple<uint32_t, ucc_coll_type_t, uint64_t>, uint32_t> seen;
    for (CollResult *c : order) {
        if (seen[{c->rank, c->coll, c->bytes}]++ < n) {
            c->recorded_us = -1;
            c->predicted_us = -1;
        }
    }
}

Summary summarize(const ucc::traces::ReplayResult &res) {
    Summary s;
    for (const CollResult &c : res.colls) {
        const unsigned k = static_cast<unsigned>(__builtin_ctzll(c.coll)) & 15;
        Numbers &n = s.num[k];
        ++n.calls;
        n.bytes += static_cast<double>(c.bytes);
        s.recorded_algs[k].insert(c.alg_recorded);
        s.replayed_algs[k].insert(c.alg_replayed);
        if (c.recorded_us >= 0 && c.predicted_us >= 0) {
            ++n.timed;
            n.recorded_us += c.recorded_us;
            n.predicted_us += c.predicted_us;
        }
        if (c.predicted_us >= 0) {
            ++n.predicted;
            n.predicted_all_us += c.predicted_us;
        }
    }
    s.problems = res.problems.size();
    return s;
}

std::string joined(const std::set<std::string> &s) {
    std::string out;
    for (const std::string &x : s) {
        out += (out.empty() ? "" : ",") + (x.empty() ? std::string("-") : x);
    }
    return out.empty() ? "-" : out;
}

// --by-size: a row per (collective, bytes per rank), from this process's results.
void print_by_size(const Options &o, uint64_t ranks, const ucc::traces::ReplayResult &res) {
    struct Row {
        Numbers n;
        std::set<std::string> rec_algs, rep_algs;
    };
    std::map<std::pair<std::string, uint64_t>, Row> rows;
    for (const CollResult &c : res.colls) {
        const char *name = ucc::traces::coll_name(c.coll);
        Row &r = rows[{name != nullptr ? name : "?", c.bytes}];
        ++r.n.calls;
        r.rec_algs.insert(c.alg_recorded);
        r.rep_algs.insert(c.alg_replayed);
        if (c.recorded_us >= 0 && c.predicted_us >= 0) {
            ++r.n.timed;
            r.n.recorded_us += c.recorded_us;
            r.n.predicted_us += c.predicted_us;
        }
    }
    if (!o.json) {
        std::printf("# %-16s %14s %8s %14s %14s %8s  %s\n", "collective", "bytes/rank", "calls",
                    "recorded(us)", "predicted(us)", "ratio", "algorithm (recorded -> replayed)");
    }
    for (const auto &[key, r] : rows) {
        const double rec = r.n.timed > 0 ? r.n.recorded_us / r.n.timed : 0;
        const double pred = r.n.timed > 0 ? r.n.predicted_us / r.n.timed : 0;
        if (o.json) {
            std::printf(
                "{\"collective\":\"%s\",\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64
                ",\"recorded_us_avg\":%.3f,\"predicted_us_avg\":%.3f,\"ratio\":%.4f,"
                "\"algorithms_recorded\":\"%s\",\"algorithms_replayed\":\"%s\",\"ranks\":%" PRIu64
                "}\n",
                key.first.c_str(), key.second, r.n.calls, rec, pred, rec > 0 ? pred / rec : 0,
                joined(r.rec_algs).c_str(), joined(r.rep_algs).c_str(), ranks);
        } else {
            std::printf("  %-16s %14" PRIu64 " %8" PRIu64 " %14.3f %14.3f %8.3f  %s -> %s\n",
                        key.first.c_str(), key.second, r.n.calls, rec, pred,
                        rec > 0 ? pred / rec : 0, joined(r.rec_algs).c_str(),
                        joined(r.rep_algs).c_str());
        }
    }
    std::fflush(stdout);
}

void print_table(const Options &o, uint64_t ranks, const Summary &sum) {
    if (!o.json) {
        std::printf("# %-16s %8s %14s %14s %14s %8s  %s\n", "collective", "calls", "bytes/rank",
                    "recorded(us)", o.ucx ? "replayed(us)" : "predicted(us)", "ratio",
                    "algorithm (recorded -> replayed)");
    }
    for (unsigned k = 0; k < 16; ++k) {
        const Numbers &s = sum.num[k];
        if (s.calls == 0) {
            continue;
        }
        const char *name = ucc::traces::coll_name(uint64_t{1} << k);
        const double rec = s.timed > 0 ? s.recorded_us / s.timed : 0;
        // Without recorded times (imported traces): every predicted one.
        const double pred = s.timed > 0       ? s.predicted_us / s.timed
                            : s.predicted > 0 ? s.predicted_all_us / s.predicted
                                              : 0;
        const std::string rec_algs = joined(sum.recorded_algs[k]);
        const std::string rep_algs = joined(sum.replayed_algs[k]);
        if (o.json) {
            std::printf(
                "{\"collective\":\"%s\",\"calls\":%" PRIu64
                ",\"bytes_avg\":%.1f,"
                "\"recorded_us_avg\":%.3f,\"predicted_us_avg\":%.3f,\"ratio\":%.4f,"
                "\"algorithms_recorded\":\"%s\",\"algorithms_replayed\":\"%s\",\"ranks\":%" PRIu64
                ",\"transport\":\"%s\"}\n",
                name, s.calls, s.bytes / s.calls, rec, pred, rec > 0 ? pred / rec : 0,
                rec_algs.c_str(), rep_algs.c_str(), ranks, o.ucx ? "ucx" : "sim");
            continue;
        }
        char rec_text[32] = "-";
        char ratio_text[32] = "-";
        if (s.timed > 0) {
            std::snprintf(rec_text, sizeof rec_text, "%.3f", rec);
            std::snprintf(ratio_text, sizeof ratio_text, "%.3f", rec > 0 ? pred / rec : 0);
        }
        std::printf("  %-16s %8" PRIu64 " %14.0f %14s %14.3f %8s  %s -> %s\n", name, s.calls,
                    s.bytes / s.calls, rec_text, pred, ratio_text, rec_algs.c_str(),
                    rep_algs.c_str());
    }
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
    uint32_t rank = 0;
    ucc_boot_h boot = nullptr;
    ucc_oob_coll_t oob{};
    if (o.ucx) {
        if (ucc_boot_init(nullptr, &boot) != UCC_OK || ucc_boot_oob(boot, &oob) != UCC_OK) {
            std::fprintf(stderr, "ucc_replay: the launcher's bootstrap failed\n");
            return 2;
        }
        rank = ucc_boot_rank(boot);
    }
    ucc::traces::Trace trace;
    std::string error;
    std::vector<std::string> imported;
    const bool simgrid = ucc::traces::looks_like_simgrid(o.dir);
    const bool read = simgrid ? ucc::traces::import_simgrid(o.dir, &trace, &imported, &error)
                              : ucc::traces::read_dir(o.dir, &trace, &error);
    if (!read) {
        std::fprintf(stderr, "ucc_replay: %s\n", error.c_str());
        return 2;
    }
    for (const std::string &n : imported) {
        std::fprintf(stderr, "ucc_replay: SimGrid trace: %s\n", n.c_str());
    }
    const uint64_t recorded_ranks = trace.size;
    std::vector<std::string> notes;
    if (o.ranks != 0 && o.ranks != trace.size) {
        trace = ucc::traces::rescale(trace, o.ranks, &notes);
    }
    if (o.network_slots > 0 && trace.size > o.network_slots) {
        die_usage(std::to_string(trace.size) + " ranks do not fit the network file's " +
                  std::to_string(o.network_slots) + " rank slots (nodes x ppn)");
    }
    const ucc::traces::Header &h0 = trace.ranks[0].header;
    std::set<std::string> hosts;
    for (const auto &r : trace.ranks) {
        hosts.insert(r.header.host);
    }
    if (rank == 0) {
        std::fprintf(stderr,
                     "ucc_replay: %s: %" PRIu64
                     " ranks recorded over %s on %zu host(s), library %s "
                     "(%s)\n",
                     o.dir.c_str(), recorded_ranks, h0.transport.c_str(), hosts.size(),
                     h0.library.c_str(), h0.revision.c_str());
        for (const std::string &n : notes) {
            std::fprintf(stderr, "ucc_replay: at %" PRIu64 " ranks: %s\n", trace.size, n.c_str());
        }
        if (o.ucx) {
            std::fprintf(stderr, "ucc_replay: ranks=%" PRIu64 " over ucx, timeout %g s\n",
                         trace.size, o.replay.timeout_s);
        } else {
            std::fprintf(stderr, "ucc_replay: seed=%" PRIu64 " ranks=%" PRIu64 " network=%s%s\n",
                         o.replay.seed, trace.size, o.network_described.c_str(),
                         o.replay.timing_only ? " timing-only" : "");
        }
    }
    ucc::traces::ReplayResult res;
    Summary sum;
    if (o.ucx) {
        if (!ucc::traces::replay_process(trace, rank, oob, o.replay, &res, &error)) {
            std::fprintf(stderr, "ucc_replay: %s (--ranks %u replays it at the job's size)\n",
                         error.c_str(), ucc_boot_size(boot));
            ucc_boot_finalize(boot);
            return 2;
        }
        leave_out_warmup(o.warmup, &res);
        sum = summarize(res);
        // Every process's numbers to everyone (rank 0 reports).
        struct Wire {
            Numbers num[16];
            uint64_t problems;
        } mine{}, *all = nullptr;
        std::copy(std::begin(sum.num), std::end(sum.num), std::begin(mine.num));
        mine.problems = sum.problems;
        std::vector<Wire> gathered(oob.n_oob_eps);
        all = gathered.data();
        void *req = nullptr;
        ucc_status_t st = oob.allgather(&mine, all, sizeof(Wire), oob.coll_info, &req);
        if (st == UCC_OK) {
            while ((st = oob.req_test(req)) == UCC_INPROGRESS) {
            }
        }
        if (req != nullptr) {
            oob.req_free(req);
        }
        if (st != UCC_OK) {
            std::fprintf(stderr, "ucc_replay: gathering the results failed: %s\n",
                         ucc_status_string(st));
            return 1;
        }
        for (int k = 0; k < 16; ++k) {
            sum.num[k] = Numbers{};
        }
        sum.problems = 0;
        for (const Wire &w : gathered) {
            for (int k = 0; k < 16; ++k) {
                sum.num[k].add(w.num[k]);
            }
            sum.problems += w.problems;
        }
    } else {
        if (!ucc::traces::replay(trace, o.replay, &res, &error)) {
            std::fprintf(stderr, "ucc_replay: %s\n", error.c_str());
            return 2;
        }
        leave_out_warmup(o.warmup, &res);
        sum = summarize(res);
    }
    // Every process reports its own problems; rank 0 the table.
    if (res.failed_inits > 0) {
        std::fprintf(stderr, "ucc_replay: %" PRIu64 " inits failed when recorded (not replayed)\n",
                     res.failed_inits);
    }
    for (const std::string &p : res.problems) {
        std::fprintf(stderr, "ucc_replay: %s\n", p.c_str());
    }
    if (rank == 0) {
        if (o.by_size && !o.ucx) {
            print_by_size(o, trace.size, res);
        } else {
            print_table(o, trace.size, sum);
        }
        if (!o.replay.timing_only && !o.ucx) {
            std::fprintf(stderr, "ucc_replay: %" PRIu64 " collectives checked against the model\n",
                         res.verified);
        }
        if (!o.replay.timeline.empty() && res.sim_status != UCC_ERR_INVALID_PARAM) {
            std::fprintf(stderr, "ucc_replay: timeline written to %s\n", o.replay.timeline.c_str());
        }
        FILE *out = o.json ? stderr : stdout;
        if (!o.ucx) {
            std::fprintf(out, "Simulated time: %.9f seconds.\n", res.simulated_s);
        }
        std::fprintf(out, "Wall time: %.3f seconds.\n", res.wall_s);
        if (!o.ucx) {
            std::fprintf(out, "Events: %" PRIu64 " (%.0f events/s).\n", res.events,
                         res.wall_s > 0 ? static_cast<double>(res.events) / res.wall_s : 0.0);
        }
    }
    if (boot != nullptr) {
        ucc_boot_finalize(boot);
    }
    return res.sim_status == UCC_OK && sum.problems == 0 ? 0 : 1;
}
