// ucc_replay: replay a trace recorded with UCC_TRACE=<dir> (traces/FORMAT.md)
// on the simulator, and say how long each collective took when recorded and
// how long the simulator predicts, on any network model.
//
//   ucc_replay <dir> [--ranks N] [--network NET] [--seed S] [--timing-only]
//              [--timeline FILE [--timeline-ranks L]] [--json]
//
// --ranks N replays the trace at another number of ranks, by the rule of
// traces/rescale.h (each recorded rank's program played by N/S ranks; teams,
// roots and v-counts follow).
//
// The run ends as ucc_sim's does:
//   Simulated time: X seconds.
//   Wall time: Y seconds.
//   Events: N (Z events/s).
// Exit codes: 0 replayed cleanly; 1 the trace or its replay has a problem
// (desynchronisation, a rank that stopped early, a deadlock, a status other
// than the recorded one; each is reported); 2 bad options or an unreadable
// trace (with file:line).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/perf/network.h"
#include "traces/names.h"
#include "traces/reader.h"
#include "traces/replay.h"
#include "traces/rescale.h"
#include "traces/simgrid.h"

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
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else if (a == "--network") {
            network = value(&i);
        } else if (a == "--ranks") {
            const std::string v = value(&i);
            char *end = nullptr;
            const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0' || n == 0 || n > (1u << 20)) {
                die_usage("--ranks " + v + ": expected 1 to 1048576");
            }
            o.ranks = static_cast<uint32_t>(n);
        } else if (a == "--seed") {
            const std::string v = value(&i);
            char *end = nullptr;
            o.replay.seed = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || *end != '\0') {
                die_usage("--seed " + v + ": expected a number");
            }
        } else if (a == "--timing-only") {
            o.replay.timing_only = true;
        } else if (a == "--timeline") {
            o.replay.timeline = value(&i);
        } else if (a == "--timeline-ranks") {
            o.replay.timeline_ranks = value(&i);
        } else if (a == "--json") {
            o.json = true;
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

// Per collective type: calls, bytes, times, algorithms.
struct Summary {
    uint64_t calls = 0;
    uint64_t timed = 0;      // with both times
    uint64_t predicted = 0;  // with a predicted time (imported traces have no recorded one)
    double predicted_all_us = 0;
    double bytes = 0;
    double recorded_us = 0;
    double predicted_us = 0;
    std::set<std::string> recorded_algs;
    std::set<std::string> replayed_algs;
};

std::string joined(const std::set<std::string> &s) {
    std::string out;
    for (const std::string &x : s) {
        out += (out.empty() ? "" : ",") + (x.empty() ? std::string("-") : x);
    }
    return out.empty() ? "-" : out;
}

}  // namespace

int main(int argc, char **argv) {
    const Options o = parse(argc, argv);
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
    std::fprintf(stderr,
                 "ucc_replay: %s: %" PRIu64
                 " ranks recorded over %s on %zu host(s), library %s "
                 "(%s)\n",
                 o.dir.c_str(), recorded_ranks, h0.transport.c_str(), hosts.size(),
                 h0.library.c_str(), h0.revision.c_str());
    for (const std::string &n : notes) {
        std::fprintf(stderr, "ucc_replay: at %" PRIu64 " ranks: %s\n", trace.size, n.c_str());
    }
    std::fprintf(stderr, "ucc_replay: seed=%" PRIu64 " ranks=%" PRIu64 " network=%s%s\n",
                 o.replay.seed, trace.size, o.network_described.c_str(),
                 o.replay.timing_only ? " timing-only" : "");
    ucc::traces::ReplayResult res;
    if (!ucc::traces::replay(trace, o.replay, &res, &error)) {
        std::fprintf(stderr, "ucc_replay: %s\n", error.c_str());
        return 2;
    }
    std::map<std::string, Summary> by_type;
    for (const CollResult &c : res.colls) {
        const char *name = ucc::traces::coll_name(c.coll);
        Summary &s = by_type[name != nullptr ? name : "?"];
        ++s.calls;
        s.bytes += static_cast<double>(c.bytes);
        s.recorded_algs.insert(c.alg_recorded);
        s.replayed_algs.insert(c.alg_replayed);
        if (c.recorded_us >= 0 && c.predicted_us >= 0) {
            ++s.timed;
            s.recorded_us += c.recorded_us;
            s.predicted_us += c.predicted_us;
        }
        if (c.predicted_us >= 0) {
            ++s.predicted;
            s.predicted_all_us += c.predicted_us;
        }
    }
    if (o.json) {
        for (const auto &[name, s] : by_type) {
            const double rec = s.timed > 0 ? s.recorded_us / s.timed : 0;
            // Without recorded times (imported traces): every predicted one.
            const double pred = s.timed > 0       ? s.predicted_us / s.timed
                                : s.predicted > 0 ? s.predicted_all_us / s.predicted
                                                  : 0;
            std::printf(
                "{\"collective\":\"%s\",\"calls\":%" PRIu64
                ",\"bytes_avg\":%.1f,"
                "\"recorded_us_avg\":%.3f,\"predicted_us_avg\":%.3f,\"ratio\":%.4f,"
                "\"algorithms_recorded\":\"%s\",\"algorithms_replayed\":\"%s\",\"ranks\":%" PRIu64
                "}\n",
                name.c_str(), s.calls, s.calls > 0 ? s.bytes / s.calls : 0, rec, pred,
                rec > 0 ? pred / rec : 0, joined(s.recorded_algs).c_str(),
                joined(s.replayed_algs).c_str(), trace.size);
        }
    } else {
        std::printf("# %-16s %8s %14s %14s %14s %8s  %s\n", "collective", "calls", "bytes/rank",
                    "recorded(us)", "predicted(us)", "ratio", "algorithm (recorded -> replayed)");
        for (const auto &[name, s] : by_type) {
            const double rec = s.timed > 0 ? s.recorded_us / s.timed : 0;
            // Without recorded times (imported traces): every predicted one.
            const double pred = s.timed > 0       ? s.predicted_us / s.timed
                                : s.predicted > 0 ? s.predicted_all_us / s.predicted
                                                  : 0;
            char rec_text[32] = "-";
            char ratio_text[32] = "-";
            if (s.timed > 0) {
                std::snprintf(rec_text, sizeof rec_text, "%.3f", rec);
                std::snprintf(ratio_text, sizeof ratio_text, "%.3f", rec > 0 ? pred / rec : 0);
            }
            std::printf("  %-16s %8" PRIu64 " %14.0f %14s %14.3f %8s  %s -> %s\n", name.c_str(),
                        s.calls, s.calls > 0 ? s.bytes / s.calls : 0, rec_text, pred, ratio_text,
                        joined(s.recorded_algs).c_str(), joined(s.replayed_algs).c_str());
        }
    }
    std::fflush(stdout);
    if (res.failed_inits > 0) {
        std::fprintf(stderr, "ucc_replay: %" PRIu64 " inits failed when recorded (not replayed)\n",
                     res.failed_inits);
    }
    if (!o.replay.timing_only) {
        std::fprintf(stderr, "ucc_replay: %" PRIu64 " collectives checked against the model\n",
                     res.verified);
    }
    for (const std::string &p : res.problems) {
        std::fprintf(stderr, "ucc_replay: %s\n", p.c_str());
    }
    if (!o.replay.timeline.empty() && res.sim_status != UCC_ERR_INVALID_PARAM) {
        std::fprintf(stderr, "ucc_replay: timeline written to %s\n", o.replay.timeline.c_str());
    }
    FILE *out = o.json ? stderr : stdout;
    std::fprintf(out, "Simulated time: %.9f seconds.\n", res.simulated_s);
    std::fprintf(out, "Wall time: %.3f seconds.\n", res.wall_s);
    std::fprintf(out, "Events: %" PRIu64 " (%.0f events/s).\n", res.events,
                 res.wall_s > 0 ? static_cast<double>(res.events) / res.wall_s : 0.0);
    return res.ok() ? 0 : 1;
}
