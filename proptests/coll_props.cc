// Property tests: the real C API on the simulated cluster, checked against the
// executable model (model/), for randomly drawn scenarios. CONFORMANCE.md:
//   P1   replay determinism (about 1 case in 20 of CollProps.EveryByteMatchesModel is run twice;
//        CollProps.ReplayIsDeterministic replays every case)
//   P2   self-describing failures (scenario, sim seed, config hash, RapidCheck reproduce token)
//   P4-P9, P11  every byte of every rank's guarded src+dst allocation equals the model's image
//   P5   allreduce dst bitwise identical on all ranks (signed zeros included)
//   P12  zero counts with NULL buffers complete with UCC_OK (init+post, init_and_post, re-posts)
//   P14  barrier: every rank's completion time >= every rank's post time (virtual time)
//   P31  about 1 scenario in 5 runs on an active set (any type; tagged active_set=1): only the
//        members call, laid out by set position, and non-members' memory stays unchanged
// and, in proptests/validity_props.cc, P45 with rules V1-V11 of model/VALIDITY.md.
//
// Knobs (environment):
//   UCC_PROPTEST_SCALE=<x>  multiplies the number of cases of every property (default 1.0: about
//                           5000 scenarios for EveryByteMatchesModel, 10000 argument sets for
//                           Validity.InitStatusMatchesModel, 25-45 s in all on 2 cores in a normal
//                           build; 10 runs ten times as many, 0.1 a tenth).
//   RC_PARAMS="max_success=N"        runs N cases per property instead (overrides the scale).
//   RC_PARAMS="seed=S"               another random sequence.
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
#include "proptests/prop_support.h"
#include "tests/common/scenario.h"

namespace {

using ucc::testkit::Outcome;
using ucc::testkit::Scenario;

const std::vector<ucc_coll_type_t> kColls = {
    UCC_COLL_TYPE_ALLREDUCE,      UCC_COLL_TYPE_BCAST,           UCC_COLL_TYPE_REDUCE,
    UCC_COLL_TYPE_BARRIER,        UCC_COLL_TYPE_ALLGATHER,       UCC_COLL_TYPE_ALLTOALL,
    UCC_COLL_TYPE_ALLGATHERV,     UCC_COLL_TYPE_ALLTOALLV,       UCC_COLL_TYPE_GATHER,
    UCC_COLL_TYPE_GATHERV,        UCC_COLL_TYPE_SCATTER,         UCC_COLL_TYPE_SCATTERV,
    UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_FANIN,
    UCC_COLL_TYPE_FANOUT};

bool no_data(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_BARRIER || t == UCC_COLL_TYPE_FANIN || t == UCC_COLL_TYPE_FANOUT;
}

bool is_v(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLGATHERV || t == UCC_COLL_TYPE_ALLTOALLV ||
           t == UCC_COLL_TYPE_GATHERV || t == UCC_COLL_TYPE_SCATTERV ||
           t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

// Total bytes of src+dst over all ranks a drawn scenario may allocate.
constexpr uint64_t kByteBudget = 4ull << 20;

bool is_reduction(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLREDUCE || t == UCC_COLL_TYPE_REDUCE ||
           t == UCC_COLL_TYPE_REDUCE_SCATTER || t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

bool is_rooted(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_BCAST || t == UCC_COLL_TYPE_REDUCE || t == UCC_COLL_TYPE_GATHER ||
           t == UCC_COLL_TYPE_GATHERV || t == UCC_COLL_TYPE_SCATTER ||
           t == UCC_COLL_TYPE_SCATTERV || t == UCC_COLL_TYPE_FANIN || t == UCC_COLL_TYPE_FANOUT;
}

// "auto" and every algorithm the library's table has for the type.
std::vector<std::string> algorithms(ucc_coll_type_t t) {
    std::vector<std::string> v = {"auto"};
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t)) {
        v.emplace_back(a.name);
    }
    return v;
}

// Algorithms whose message count grows with n^2: teams above 128 ranks would
// make a case take seconds.
bool quadratic(ucc_coll_type_t t, const std::string &alg) {
    return t == UCC_COLL_TYPE_ALLTOALL || t == UCC_COLL_TYPE_ALLTOALLV ||
           t == UCC_COLL_TYPE_ALLGATHERV || t == UCC_COLL_TYPE_REDUCE_SCATTER ||
           t == UCC_COLL_TYPE_REDUCE_SCATTERV || alg == "ring" ||
           (t == UCC_COLL_TYPE_ALLGATHER && alg == "auto");
}

std::vector<ucc_datatype_t> all_datatypes() {
    std::vector<ucc_datatype_t> v;
    for (uint64_t id = 0; id < UCC_DT_PREDEFINED_LAST; ++id) {
        v.push_back(UCC_PREDEFINED_DT(id));
    }
    return v;
}

std::vector<ucc_reduction_op_t> supported_ops(ucc_datatype_t dt) {
    std::vector<ucc_reduction_op_t> v;
    for (int op = 0; op < UCC_OP_LAST; ++op) {
        if (ucc::dt::reduction_supported(dt, static_cast<ucc_reduction_op_t>(op))) {
            v.push_back(static_cast<ucc_reduction_op_t>(op));
        }
    }
    return v;
}

// Team sizes: mostly 1..64 with extra weight on small, power-of-two, prime and
// odd sizes; rarely 65..max_big.
uint32_t draw_team_size(uint32_t max_big) {
    const auto small = rc::gen::inRange<uint32_t>(1, 9);
    const auto pow2 = rc::gen::element<uint32_t>(1, 2, 4, 8, 16, 32, 64);
    const auto prime =
        rc::gen::element<uint32_t>(3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61);
    const auto odd =
        rc::gen::map(rc::gen::inRange<uint32_t>(0, 32), [](uint32_t k) { return 2 * k + 1; });
    const auto any = rc::gen::inRange<uint32_t>(1, 65);
    if (max_big <= 64) {
        return *rc::gen::weightedOneOf<uint32_t>(
            {{30, small}, {12, pow2}, {12, prime}, {10, odd}, {30, any}});
    }
    const auto big = rc::gen::inRange<uint32_t>(65, max_big + 1);
    return *rc::gen::weightedOneOf<uint32_t>(
        {{30, small}, {12, pow2}, {12, prime}, {10, odd}, {30, any}, {2, big}});
}

// Element count classes: 0, 1, small odd, small, up to a few hundred, rarely a few thousand.
uint64_t draw_count() {
    return *rc::gen::weightedOneOf<uint64_t>({
        {8, rc::gen::just<uint64_t>(0)},
        {10, rc::gen::just<uint64_t>(1)},
        {20, rc::gen::map(rc::gen::inRange<uint64_t>(0, 16), [](uint64_t k) { return 2 * k + 1; })},
        {20, rc::gen::inRange<uint64_t>(2, 65)},
        {30, rc::gen::inRange<uint64_t>(0, 400)},
        {4, rc::gen::inRange<uint64_t>(1000, 5000)},
    });
}

// Bytes per element of `count` over the whole team.
uint64_t team_bytes_per_count(ucc_coll_type_t t, uint32_t n, size_t es) {
    switch (t) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_REDUCE:
            return 2ull * n * es;
        case UCC_COLL_TYPE_BCAST:
            return 1ull * n * es;
        case UCC_COLL_TYPE_ALLGATHER:
            return (1ull + n) * n * es;
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
            return 2ull * n * n * es;
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return (2ull + n) * n * es;
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return 3ull * n * es + 2ull;
        default:
            return 1;
    }
}

uint32_t draw_root(uint32_t n) {
    return *rc::gen::weightedOneOf<uint32_t>({
        {3, rc::gen::just<uint32_t>(0)},
        {2, rc::gen::just<uint32_t>(n / 2)},
        {2, rc::gen::just<uint32_t>(n - 1)},
        {3, rc::gen::inRange<uint32_t>(0, n)},
    });
}

std::string draw_network() {
    const std::string preset = *rc::gen::element<std::string>("ideal", "hdr", "eth100", "slow");
    if (*rc::gen::inRange(0, 2) == 0) {
        return preset;
    }
    std::ostringstream os;
    os << preset << ",ppn=" << *rc::gen::inRange(1, 17)
       << ",lat_intra=" << *rc::gen::inRange(0, 2000) << "ns"
       << ",lat_inter=" << *rc::gen::inRange(0, 20000) << "ns"
       << ",jitter=" << *rc::gen::element(0, 10, 500, 3000, 50000) << "ns";
    if (*rc::gen::inRange(0, 3) == 0) {
        os << ",o=" << *rc::gen::inRange(0, 1000) << "ns";
    }
    return os.str();
}

// An active set on the scenario's team (API.md §4.12): distinct members
// (start + i*stride) mod n, stride possibly negative or beyond n, a set of one
// now and then; a rooted type's root is moved onto a member. Non-members
// never call; the kit checks their memory stays unchanged.
void draw_active_set(Scenario &s) {
    const auto n = static_cast<int64_t>(s.n);
    s.active_set = true;
    s.as_start = *rc::gen::inRange<uint64_t>(0, s.n);
    s.as_stride = *rc::gen::weightedOneOf<int64_t>({
        {3, rc::gen::element<int64_t>(1, -1)},
        {3, rc::gen::inRange<int64_t>(-n, n + 1)},
        {1, rc::gen::element<int64_t>(n + 1, -2 * n + 1, INT64_MIN)},
    });
    const auto step = static_cast<uint64_t>(((s.as_stride % n) + n) % n);
    const uint64_t orbit = step == 0 ? 1 : s.n / std::gcd(step, uint64_t{s.n});
    s.as_size = *rc::gen::weightedOneOf<uint64_t>({
        {1, rc::gen::just<uint64_t>(1)},
        {1, rc::gen::just<uint64_t>(uint64_t{orbit})},
        {4, rc::gen::inRange<uint64_t>(1, orbit + 1)},
    });
    const std::vector<uint32_t> members = ucc::testkit::members_of(s);
    s.root = members[*rc::gen::inRange<size_t>(0, members.size())];
    if (!is_rooted(s.type)) {
        s.root = 0;  // unread
    }
    if (*rc::gen::arbitrary<bool>()) {
        s.tag = *rc::gen::inRange<int64_t>(0, 1 << 15);
    }
}

struct DrawOptions {
    bool any_coll = true;
    ucc_coll_type_t coll = UCC_COLL_TYPE_ALLREDUCE;  // when !any_coll
    bool zero_count = false;                         // count 0 (null buffers half the time)
    bool float_types = false;                        // prefer floating datatypes
    bool active_sets = true;                         // draw an active set now and then
};

// Draws a whole valid scenario, the simulator seed included.
Scenario draw_scenario(const DrawOptions &o) {
    Scenario s;
    s.type = o.any_coll ? *rc::gen::elementOf(kColls) : o.coll;
    s.alg = *rc::gen::elementOf(algorithms(s.type));
    s.n = draw_team_size(quadratic(s.type, s.alg) ? 128 : 1024);
    s.radix = *rc::gen::weightedOneOf<uint32_t>(
        {{12, rc::gen::inRange<uint32_t>(2, 9)}, {1, rc::gen::inRange<uint32_t>(9, 65)}});
    if (!no_data(s.type)) {
        if (o.float_types) {
            s.dt = *rc::gen::element(UCC_DT_FLOAT16, UCC_DT_BFLOAT16, UCC_DT_FLOAT32,
                                     UCC_DT_FLOAT64, UCC_DT_FLOAT128, UCC_DT_FLOAT32_COMPLEX,
                                     UCC_DT_FLOAT64_COMPLEX, UCC_DT_FLOAT128_COMPLEX);
        } else {
            s.dt = *rc::gen::elementOf(all_datatypes());
        }
        s.op = is_reduction(s.type) ? *rc::gen::elementOf(supported_ops(s.dt)) : UCC_OP_SUM;
        s.count = o.zero_count ? 0 : draw_count();
        const uint64_t per = team_bytes_per_count(s.type, s.n, ucc::dt::size_of(s.dt));
        s.count = std::min<uint64_t>(s.count, kByteBudget / per);
        s.root = is_rooted(s.type) ? draw_root(s.n) : 0;
        s.inplace = *rc::gen::arbitrary<bool>();
        if (is_v(s.type)) {
            s.wide_counts = *rc::gen::arbitrary<bool>();
            s.wide_displs = *rc::gen::arbitrary<bool>();
        }
    } else {
        s.count = 0;
        s.root = is_rooted(s.type) ? draw_root(s.n) : 0;
    }
    s.posts = *rc::gen::weightedElement<uint32_t>({{12, 1}, {3, 2}, {2, 3}, {2, 4}});
    s.team_ep_map = *rc::gen::arbitrary<bool>();
    s.network = draw_network();
    s.seed = *rc::gen::inRange<uint64_t>(1, UINT64_MAX);
    s.value_seed = *rc::gen::inRange<uint64_t>(1, 1ull << 32);
    s.null_buffers = s.count == 0 && *rc::gen::arbitrary<bool>();
    s.reduce_nonroot_dst = s.type == UCC_COLL_TYPE_REDUCE && *rc::gen::arbitrary<bool>();
    s.poison_inplace_src = s.inplace && *rc::gen::arbitrary<bool>();
    s.init_and_post = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    s.skew_ps = *rc::gen::weightedElement<uint64_t>(
        {{6, 0}, {1, 1'000'000}, {1, 50'000'000}, {1, 2'000'000'000}});
    if (o.active_sets && *rc::gen::weightedElement<bool>({{4, false}, {1, true}})) {
        draw_active_set(s);
    }
    return s;
}

const char *count_class(uint64_t c) {
    if (c <= 1) {
        return c == 0 ? "0" : "1";
    }
    if (c >= 1000) {
        return "large";
    }
    return c % 2 == 1 ? "odd" : "even";
}

const char *root_class(const Scenario &s) {
    if (!is_rooted(s.type)) {
        return "none";
    }
    if (s.root == 0) {
        return "0";
    }
    if (s.root == s.n - 1) {
        return "n-1";
    }
    return s.root == s.n / 2 ? "middle" : "other";
}

void tag(const Scenario &s) {
    const std::string coll = ucc::testkit::coll_name(s.type);
    RC_TAG("coll=" + coll, "alg=" + coll + "/" + s.alg,
           std::string("n=") + ucc::testkit::team_size_class(s.n),
           std::string("size=") + (s.n <= 8    ? "1-8"
                                   : s.n <= 64 ? "9-64"
                                               : "65+"),
           std::string("count=") + count_class(s.count), std::string("root=") + root_class(s),
           std::string("inplace=") + (s.inplace ? "1" : "0"),
           std::string("persistent=") + (s.posts > 1 ? "1" : "0"),
           std::string("team=") + (s.team_ep_map ? "ep_map" : "oob"),
           std::string("post=") + (s.init_and_post ? "init_and_post" : "init+post"),
           std::string("skew=") + (s.skew_ps > 0 ? "1" : "0"),
           std::string("active_set=") + (s.active_set ? "1" : "0"));
    RC_CLASSIFY(s.null_buffers, "extra=null_buffers");
    RC_CLASSIFY(s.reduce_nonroot_dst, "extra=reduce_nonroot_dst");
    RC_CLASSIFY(s.poison_inplace_src, "extra=poison_inplace_src");
}

// P2: everything needed to reproduce a failure besides RapidCheck's token.
std::string context(const Scenario &s) {
    const std::string d = ucc::testkit::describe(s);
    char line[160];
    std::snprintf(line, sizeof(line),
                  "\nsim seed %" PRIu64 ", config hash 0x%016" PRIx64 ", ucc %s", s.seed,
                  ucc::testkit::fnv1a(d), ucc_get_version_string());
    return "scenario: " + d + line;
}

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
