// Property tests: the real C API on the simulated cluster, checked against the
// executable model (model/), for randomly drawn scenarios. CONFORMANCE.md:
//   P1   replay determinism (about 1 case in 20 of CollProps.EveryByteMatchesModel is run twice;
//        CollProps.ReplayIsDeterministic replays every case)
//   P3   results independent of the schedule (CollProps.ResultsIndependentOfTheSchedule)
//   P2   self-describing failures (scenario, sim seed, config hash, RapidCheck reproduce token)
//   P4-P9, P11  every byte of every rank's guarded src+dst allocation equals the model's image
//   P5   allreduce dst bitwise identical on all ranks (signed zeros included)
//   P12  zero counts with NULL buffers complete with UCC_OK (init+post, init_and_post, re-posts)
//   P14  barrier: every rank's completion time >= every rank's post time (virtual time)
//   P31  about 1 scenario in 5 runs on an active set (any type; tagged active_set=1): only the
//        members call, laid out by set position, and non-members' memory stays unchanged
// and, in proptests/validity_props.cc, P45 with rules V1-V13 of model/VALIDITY.md; in
// proptests/trace_props.cc, P14-P23, P25, P27-P36, P39, P40, P44, P45 over the event trace.
//
// Knobs (environment):
//   UCC_PROPTEST_SCALE=<x>  multiplies the number of cases of every property (default 1.0: about
//                           5000 scenarios for EveryByteMatchesModel, 10000 argument sets for
//                           Validity.InitStatusMatchesModel, 1000/1000/500 for the trace
//                           properties, 15-45 s in all on 2 cores in a normal build, about 4 min
//                           under ASan; 10 runs ten times as many, 0.1 a tenth).
//   RC_PARAMS="max_success=N"        runs N cases per property instead (overrides the scale).
//   RC_PARAMS="seed=S"               the run's random sequence: the binary prints the seed it
//                                    runs with first; scripts/test.sh sets one derived from
//                                    the commit (UCC_PROPTEST_RANDOM=1: fresh seeds instead).
//   RC_PARAMS="reproduce=..."        replays a failure: the token is printed with every failure,
//                                    together with the scenario (testkit::describe), the simulator
//                                    seed and a config hash (FNV-1a of the description).
// Run one property with --gtest_filter=CollProps.ReplayIsDeterministic.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/dt/dt.h"
#include "lib/net/network_model.h"
#include "proptests/draw.h"
#include "proptests/prop_support.h"
#include "tests/common/scenario.h"

namespace {

using ucc::proptest::context;
using ucc::proptest::count_class;
using ucc::proptest::draw_scenario;
using ucc::proptest::DrawOptions;
using ucc::proptest::is_reduction;
using ucc::proptest::is_rooted;
using ucc::proptest::is_v;
using ucc::proptest::kByteBudget;
using ucc::proptest::kColls;
using ucc::proptest::no_data;
using ucc::proptest::root_class;
using ucc::proptest::tag;
using ucc::testkit::Outcome;
using ucc::testkit::Scenario;

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof(b), "0x%016" PRIx64, v);
    return b;
}

// Fails the case with the scenario, the failure and whether a replay (P1)
// reproduces it.
[[noreturn]] void fail(const Scenario &s, const Outcome &o, const std::string &what) {
    std::string msg = what + "\n" + context(s);
    Outcome again = ucc::testkit::run_scenario(s);
    msg += "\nreplay: trace hash " + hex(o.run.trace_hash) + " then " + hex(again.run.trace_hash) +
           (again.failure == o.failure ? ", same outcome" : ", different outcome");
    RC_FAIL(msg);
}

Outcome run_checked(const Scenario &s) {
    Outcome o = ucc::testkit::run_scenario(s);
    if (!o.failure.empty()) {
        fail(s, o, "differs from the model: " + o.failure);
    }
    return o;
}

// P5
void check_bitwise_identical(const Scenario &s, const Outcome &o) {
    const std::vector<uint32_t> members = ucc::testkit::members_of(s);
    const uint32_t first = members.front();
    for (uint32_t r : members) {
        if (o.dst[r] != o.dst[first]) {
            size_t i = 0;
            while (o.dst[r][i] == o.dst[first][i]) {
                ++i;
            }
            fail(s, o,
                 "P5: allreduce dst of rank " + std::to_string(r) +
                     " is not bitwise identical to rank " + std::to_string(first) +
                     "'s (first difference at byte " + std::to_string(i) + ")");
        }
    }
}

// P14 (and, for every collective, done_r >= post_r), among the members.
void check_times(const Scenario &s, const Outcome &o) {
    const std::vector<uint32_t> members = ucc::testkit::members_of(s);
    for (uint32_t p = 0; p < s.posts; ++p) {
        const std::vector<double> &post = o.post_s[p];
        const std::vector<double> &done = o.done_s[p];
        // Non-members never post (their entries are -1).
        const auto last_post = std::max_element(post.begin(), post.end());
        for (uint32_t r : members) {
            std::ostringstream os;
            if (done[r] < post[r]) {
                os << "post " << p << ": rank " << r << " completed at " << done[r]
                   << " s before it posted at " << post[r] << " s";
            } else if (s.type == UCC_COLL_TYPE_BARRIER && done[r] < *last_post) {
                os << "P14: post " << p << ": rank " << r << " left the barrier at " << done[r]
                   << " s, before rank " << (last_post - post.begin()) << " entered it at "
                   << *last_post << " s";
            }
            if (!os.str().empty()) {
                fail(s, o, os.str());
            }
        }
    }
}

// P1
void check_replay(const Scenario &s, const Outcome &o) {
    Outcome again = ucc::testkit::run_scenario(s);
    if (again.run.trace_hash != o.run.trace_hash ||
        again.run.virtual_time_s != o.run.virtual_time_s || again.run.events != o.run.events ||
        again.dst != o.dst || again.failure != o.failure) {
        std::ostringstream os;
        os << "P1: a replay differs: trace hash " << hex(o.run.trace_hash) << " vs "
           << hex(again.run.trace_hash) << ", virtual time " << o.run.virtual_time_s << " vs "
           << again.run.virtual_time_s << " s, events " << o.run.events << " vs "
           << again.run.events << (again.dst != o.dst ? ", dst bytes differ" : "")
           << (again.failure != o.failure ? ", outcome differs: " + again.failure : "");
        fail(s, o, os.str());
    }
}

}  // namespace

// P4, P6-P9, P11 for every collective and algorithm (plus P5 for allreduce,
// P14 for barrier, P12 for zero counts and a P1 replay of about 1 case in 20).
UCC_PROP(CollProps, EveryByteMatchesModel, 5000, ()) {
    const Scenario s = draw_scenario(DrawOptions{});
    const bool replay = *rc::gen::inRange(0, 20) == 0;
    tag(s);
    const Outcome o = run_checked(s);
    if (s.type == UCC_COLL_TYPE_ALLREDUCE) {
        check_bitwise_identical(s, o);
    }
    check_times(s, o);
    if (replay) {
        check_replay(s, o);
    }
}

// P5: floating-point allreduce, every algorithm, results bitwise equal everywhere.
UCC_PROP(CollProps, AllreduceBitwiseIdenticalOnAllRanks, 1200, ()) {
    DrawOptions opt;
    opt.any_coll = false;
    opt.coll = UCC_COLL_TYPE_ALLREDUCE;
    opt.float_types = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
    const Scenario s = draw_scenario(opt);
    tag(s);
    const Outcome o = run_checked(s);
    check_bitwise_identical(s, o);
}

// P12: zero counts (NULL buffers half the time) through init+post,
// init_and_post and persistent re-posts complete with UCC_OK and touch nothing.
UCC_PROP(CollProps, ZeroCountCompletesWithNullBuffers, 1000, ()) {
    DrawOptions opt;
    opt.zero_count = true;
    const Scenario s = draw_scenario(opt);
    tag(s);
    RC_TAG(std::string("null=") + (s.null_buffers ? "1" : "0"),
           std::string("init_and_post=") + (s.init_and_post ? "1" : "0"));
    const Outcome o = run_checked(s);
    check_times(s, o);
}

// P14: nobody leaves a barrier before everyone entered it, with ranks entering
// at skewed times and persistent re-posts.
UCC_PROP(CollProps, BarrierCompletesAfterEveryPost, 1000, ()) {
    DrawOptions opt;
    opt.any_coll = false;
    opt.coll = UCC_COLL_TYPE_BARRIER;
    Scenario s = draw_scenario(opt);
    s.skew_ps = *rc::gen::element<uint64_t>(0, 1'000'000, 100'000'000, 5'000'000'000);
    tag(s);
    const Outcome o = run_checked(s);
    check_times(s, o);
}

// P1: the same scenario and seed give the same trace hash, virtual time, event
// count and bytes.
UCC_PROP(CollProps, ReplayIsDeterministic, 400, ()) {
    const Scenario s = draw_scenario(DrawOptions{});
    tag(s);
    const Outcome o = run_checked(s);
    check_replay(s, o);
}

// P3: the same workload under another schedule (another simulator seed,
// network and posting skew) leaves the same bytes in every dst, floating
// point included: each algorithm reduces in an order fixed by ranks and
// steps, never by arrival order. The nodes stay (ppn): where the ranks run
// is no schedule, and a hierarchical algorithm's order follows the nodes.
// The algorithm stays too (and so do switches that reduce, for sharp):
// everything selects by the built-in rules here, "auto" and a hierarchical
// algorithm's levels alike, since selection by cost picks by the network
// (every algorithm is drawn by name as well).
UCC_PROP(CollProps, ResultsIndependentOfTheSchedule, 300, ()) {
    DrawOptions opt;
    opt.float_types = *rc::gen::arbitrary<bool>();
    Scenario s = draw_scenario(opt);
    s.select = "rules";
    tag(s);
    const Outcome o = run_checked(s);
    Scenario other = s;
    other.seed = *rc::gen::inRange<uint64_t>(1, UINT64_MAX);
    ucc::net::NetworkModel placed;
    std::string err;
    RC_ASSERT(ucc::net::parse_network(s.network.c_str(), &placed, &err) == UCC_OK);
    other.network = ucc::proptest::draw_network() + ",ppn=" + std::to_string(placed.ranks_per_node);
    if (placed.reduces_in_network()) {  // and the same switches (sharp stays possible)
        other.network += ",sharp_lat=" + ucc::net::format_time_ps(placed.sharp_lat_ps) +
                         ",sharp_bw=" + ucc::net::format_bandwidth(placed.sharp_bw_bps);
    }
    other.skew_ps = *rc::gen::element<uint64_t>(0, 1'000'000, 100'000'000);
    const Outcome p = run_checked(other);
    for (uint32_t r = 0; r < o.dst.size(); ++r) {
        if (o.dst[r] != p.dst[r]) {
            fail(s, o,
                 "P3: rank " + std::to_string(r) + "'s dst differs under another schedule (seed " +
                     std::to_string(other.seed) + ", network " + other.network + ", skew " +
                     std::to_string(other.skew_ps) + " ps)");
        }
    }
}
