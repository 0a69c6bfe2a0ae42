// Property tests of the event-trace checkers (model/trace.h): random
// scenarios and workloads run on the simulator with the event trace recorded;
// every checker must find nothing, and every completed post must match the
// model. CONFORMANCE.md properties P14-P23, P25, P27-P36, P39, P40, P44, P45, P47.
//
//   TraceProps.SingleCollective  one collective of any type (tests/common/scenario.h), on
//                                ordered teams with or without UCC_SYNC_COLLECTIVES
//   TraceProps.Workload          many collectives on up to four overlapping teams (ordered,
//                                unordered with tags posted in rank-dependent orders,
//                                synchronised), persistent re-posts, callbacks (some finalizing
//                                from inside), skew, a rank frozen after a completion, team
//                                create/destroy cycles and calls on destroyed handles
//   TraceProps.Timeouts          workloads where one rank posts late and every op has a
//                                timeout: UCC_ERR_TIMED_OUT in bounds, no writes after failure
//   TraceProps.Threads           workloads driven by 2-4 threads per rank (P47), each
//                                owning some teams, switched at every library yield point
//
// The coverage report printed after each property shows the drawn classes
// (team size, count, root position, in place, persistent, ordering, fault).
#include <algorithm>
#include <string>
#include <vector>

#include "model/trace.h"
#include "proptests/draw.h"
#include "proptests/prop_support.h"
#include "tests/common/workload.h"

namespace {

using ucc::proptest::DrawOptions;
using ucc::proptest::Scenario;
using ucc::testkit::Workload;
using ucc::testkit::WorkloadOp;
using ucc::testkit::WorkloadTeam;

// One progress pass of a rank, as P39's tolerance: before it looks at
// deadlines it may deliver a message from every peer and send one to every
// peer for each of two collectives (o_recv and o_send each).
int64_t progress_quantum_ps(const Workload &w) {
    ucc::net::NetworkModel net;
    std::string err;
    if (ucc::net::parse_network(w.network.c_str(), &net, &err) != UCC_OK) {
        return 2'000'000;
    }
    return 2 * static_cast<int64_t>(w.n) * (net.o_recv_ps + net.o_send_ps) + 1'000'000;
}

// Fails the case with the findings and what reproduces it.
void require_clean(const ucc::sim::RunResult &run, const std::string &what,
                   int64_t quantum_ps = 2'000'000) {
    const ucc::model::Findings f = ucc::model::check_all(run.trace, quantum_ps);
    if (!f.empty()) {
        RC_FAIL(ucc::model::format(f) + what);
    }
}

// Which of the trace properties a case exercised at all (an instance of the
// kind the property is about), for the coverage report.
void tag_exercised(const ucc::sim::RunResult &run) {
    bool sync = false, unordered = false, persistent = false, cb = false, inplace = false;
    bool fanin_out = false, barrier = false, timeout = false, frozen = false, uad = false;
    bool active = false;
    for (const ucc::TraceEvent &e : run.trace) {
        if (e.kind == ucc::TraceKind::kPost) {
            sync |= e.sync == UCC_SYNC_COLLECTIVES;
            unordered |= !e.ordered;
            inplace |= (e.flags & UCC_COLL_ARGS_FLAG_IN_PLACE) != 0;
            persistent |= (e.flags & UCC_COLL_ARGS_FLAG_PERSISTENT) != 0;
            fanin_out |= e.coll == UCC_COLL_TYPE_FANIN || e.coll == UCC_COLL_TYPE_FANOUT;
            barrier |= e.coll == UCC_COLL_TYPE_BARRIER;
            active |= e.active_set;
        }
        cb |= e.kind == ucc::TraceKind::kCallback;
        timeout |= e.kind == ucc::TraceKind::kComplete && e.status == UCC_ERR_TIMED_OUT;
        frozen |= e.kind == ucc::TraceKind::kUser && e.mark == ucc::UserMark::kFrozen;
        uad |= e.kind == ucc::TraceKind::kUser && e.mark == ucc::UserMark::kUseAfterDestroy;
    }
    auto b = [](bool x) { return std::string(x ? "1" : "0"); };
    RC_TAG("P14/P15 sync=" + b(sync), "P14 barrier=" + b(barrier), "P17 fanin/out=" + b(fanin_out),
           "P19 unordered=" + b(unordered), "P22 frozen=" + b(frozen), "P23 inplace=" + b(inplace),
           "P27 persistent=" + b(persistent), "P28 callback=" + b(cb),
           "P31/P32 active_set=" + b(active), "P36 use_after_destroy=" + b(uad),
           "P39 timed_out=" + b(timeout));
}

// ---- workloads

std::vector<uint32_t> draw_members(uint32_t n) {
    const auto size = *rc::gen::inRange<uint32_t>(1, n + 1);
    std::vector<uint32_t> all(n);
    for (uint32_t i = 0; i < n; ++i) {
        all[i] = i;
    }
    // A seeded partial shuffle picks `size` distinct ranks.
    const auto seed = *rc::gen::arbitrary<uint64_t>();
    for (uint32_t i = 0; i < size; ++i) {
        const uint64_t h = (seed + i) * 0x9e3779b97f4a7c15ull;
        std::swap(all[i], all[i + (h >> 33) % (n - i)]);
    }
    std::vector<uint32_t> m(all.begin(), all.begin() + size);
    std::sort(m.begin(), m.end());
    return m;
}

Scenario draw_op_coll(uint32_t team_size) {
    DrawOptions o;
    o.max_n = team_size;
    o.active_sets = false;
    Scenario s = ucc::proptest::draw_scenario(o);
    s.n = team_size;
    s.root = ucc::proptest::is_rooted(s.type) ? ucc::proptest::draw_root(team_size) : 0;
    s.count = std::min<uint64_t>(s.count, 64);
    s.posts = *rc::gen::weightedElement<uint32_t>({{6, 1}, {2, 2}, {1, 3}});
    if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {
        ucc::proptest::draw_active_set(s);  // members and root for this team size
    }
    return s;
}

enum class Variant { kPlain, kTimeouts, kThreads };

Workload draw_workload(Variant v) {
    const bool timeouts = v == Variant::kTimeouts;
    Workload w;
    w.n = *rc::gen::inRange<uint32_t>(2, 13);
    w.seed = *rc::gen::inRange<uint64_t>(1, UINT64_MAX);
    w.network = ucc::proptest::draw_network();
    const auto n_teams = *rc::gen::inRange<uint32_t>(1, 5);
    for (uint32_t t = 0; t < n_teams; ++t) {
        WorkloadTeam team;
        if (t == 0) {
            for (uint32_t r = 0; r < w.n; ++r) {
                team.members.push_back(r);
            }
        } else {
            team.members = draw_members(w.n);
        }
        team.unordered = *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
        team.sync = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
        team.stream_engine =
            !team.unordered && *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
        w.teams.push_back(team);
    }
    const auto n_ops = *rc::gen::inRange<uint32_t>(1, 9);
    for (uint32_t i = 0; i < n_ops; ++i) {
        WorkloadOp op;
        op.team = *rc::gen::inRange<uint32_t>(0, n_teams);
        op.coll = draw_op_coll(static_cast<uint32_t>(w.teams[op.team].members.size()));
        op.callback = *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
        op.finalize_in_cb = op.callback && op.coll.posts == 1 && *rc::gen::arbitrary<bool>();
        op.tag = static_cast<uint16_t>(i + 1);
        op.triggered = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
        w.ops.push_back(op);
    }
    w.window = *rc::gen::weightedElement<uint32_t>({{3, 0}, {1, 1}, {1, 2}, {1, 3}});
    w.shuffle = w.window == 0 && *rc::gen::arbitrary<bool>();
    w.skew_ps = *rc::gen::weightedElement<uint64_t>({{3, 0}, {1, 1'000'000}, {1, 50'000'000}});
    if (timeouts) {
        const double tau = *rc::gen::element(10e-6, 100e-6, 1e-3);
        for (WorkloadOp &op : w.ops) {
            op.timeout = tau;
            op.finalize_in_cb = false;
        }
        w.late_rank = static_cast<int32_t>(*rc::gen::inRange<uint32_t>(0, w.n));
        w.late_ps = static_cast<uint64_t>(tau * 1e12 * *rc::gen::element(0.5, 2.0, 5.0));
        w.shuffle = false;
        // Computing between posts delays the progress call that notices a
        // deadline (the P39 bound assumes a rank that keeps progressing).
        w.skew_ps = 0;
    } else {
        if (w.window == 0 && *rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {
            w.freeze_rank = static_cast<int32_t>(*rc::gen::inRange<uint32_t>(0, w.n));
        }
        w.cycles = *rc::gen::weightedElement<uint32_t>({{5, 1}, {2, 2}, {1, 3}});
        w.probe_use_after_destroy = *rc::gen::weightedElement<bool>({{2, false}, {1, true}});
    }
    if (v == Variant::kThreads) {
        // (A thread whose teams have no ops has nothing to do.)
        w.threads = *rc::gen::inRange<uint32_t>(2, 5);
        w.freeze_rank = -1;
    }
    return w;
}

void tag_workload(const Workload &w) {
    bool unordered = false, sync = false, streams = false;
    for (const WorkloadTeam &t : w.teams) {
        unordered |= t.unordered;
        sync |= t.sync;
        streams |= t.stream_engine;
    }
    std::string fault = "none";
    if (w.late_rank >= 0) {
        fault = "late+timeout";
    } else if (w.freeze_rank >= 0) {
        fault = "freeze";
    } else if (w.skew_ps > 0) {
        fault = "skew";
    }
    RC_TAG(std::string("n=") + ucc::testkit::team_size_class(w.n),
           "teams=" + std::to_string(w.teams.size()),
           std::string("ordering=") + (unordered ? "mixed" : "ordered"),
           "window=" + std::to_string(w.window), std::string("shuffle=") + (w.shuffle ? "1" : "0"),
           "fault=" + fault, "cycles=" + std::to_string(w.cycles),
           "threads=" + std::to_string(w.threads),
           std::string("stream engines=") + (streams ? "1" : "0"));
    // Per op (these counts add up to the number of ops, not of cases).
    for (const WorkloadOp &op : w.ops) {
        RC_TAG(std::string("per op: coll=") + ucc::testkit::coll_name(op.coll.type),
               std::string("per op: count=") + ucc::proptest::count_class(op.coll.count),
               std::string("per op: root=") + ucc::proptest::root_class(op.coll),
               std::string("per op: inplace=") + (op.coll.inplace ? "1" : "0"),
               std::string("per op: persistent=") + (op.coll.posts > 1 ? "1" : "0"),
               std::string("per op: triggered=") + (op.triggered ? "1" : "0"));
    }
}

void run_workload_case(Variant v) {
    const Workload w = draw_workload(v);
    tag_workload(w);
    const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
    if (!out.failure.empty()) {
        RC_FAIL(out.failure + "\n" + ucc::testkit::describe(w));
    }
    tag_exercised(out.run);
    require_clean(out.run, ucc::testkit::describe(w), progress_quantum_ps(w));
}

}  // namespace

UCC_PROP(TraceProps, SingleCollective, 1000, ()) {
    DrawOptions o;
    o.max_n = 48;
    Scenario s = ucc::proptest::draw_scenario(o);
    s.sync = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    s.record_events = true;
    ucc::proptest::tag(s);
    RC_TAG(std::string("sync=") + (s.sync ? "1" : "0"));
    const ucc::testkit::Outcome out = ucc::testkit::run_scenario(s);
    if (!out.failure.empty()) {
        RC_FAIL(out.failure + "\n" + ucc::proptest::context(s));
    }
    tag_exercised(out.run);
    require_clean(out.run, ucc::proptest::context(s));
}

UCC_PROP(TraceProps, Workload, 1000, ()) {
    run_workload_case(Variant::kPlain);
}

UCC_PROP(TraceProps, Timeouts, 500, ()) {
    run_workload_case(Variant::kTimeouts);
}

// P47: the same workloads driven by 2-4 threads per rank (UCC_THREAD_MULTIPLE),
// each owning some teams, switched at every library yield point by the seed.
UCC_PROP(TraceProps, Threads, 1000, ()) {
    run_workload_case(Variant::kThreads);
}
