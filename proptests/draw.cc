// Generators and coverage tags shared by the property tests (see draw.h).
#include "proptests/draw.h"

#include <rapidcheck.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "lib/coll/coll.h"
#include "lib/dt/dt.h"

namespace ucc::proptest {

const std::vector<ucc_coll_type_t> kColls(std::begin(testkit::kAllCollTypes),
                                          std::end(testkit::kAllCollTypes));

bool no_data(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_BARRIER || t == UCC_COLL_TYPE_FANIN || t == UCC_COLL_TYPE_FANOUT;
}

// "auto" and every algorithm the library's table has for the type.
std::vector<std::string> algorithms(ucc_coll_type_t t) {
    std::vector<std::string> v = {"auto"};
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t)) {
        if (!a.onesided) {  // mapped memory: OnesidedProps
            v.emplace_back(a.name);
        }
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
    if (*rc::gen::inRange(0, 3) == 0) {
        // Rendezvous: a send completes only once its receiver matched it.
        os << ",rndv=" << *rc::gen::element(0, 64, 1024, 8192);
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
    const std::vector<uint32_t> members = testkit::members_of(s);
    s.root = members[*rc::gen::inRange<size_t>(0, members.size())];
    if (!is_rooted(s.type)) {
        s.root = 0;  // unread
    }
    if (*rc::gen::arbitrary<bool>()) {
        s.tag = *rc::gen::inRange<int64_t>(0, 1 << 15);
    }
}

// Draws a whole valid scenario, the simulator seed included.
Scenario draw_scenario(const DrawOptions &o) {
    Scenario s;
    s.type = o.any_coll ? *rc::gen::elementOf(kColls) : o.coll;
    s.alg = *rc::gen::elementOf(algorithms(s.type));
    s.n = draw_team_size(std::min<uint32_t>(o.max_n, quadratic(s.type, s.alg) ? 128 : 1024));
    if (s.n > o.max_n) {
        s.n = 1 + s.n % o.max_n;
    }
    s.radix = *rc::gen::weightedOneOf<uint32_t>(
        {{12, rc::gen::inRange<uint32_t>(2, 9)}, {1, rc::gen::inRange<uint32_t>(9, 65)}});
    // Ring reductions in several chunks per step (a few bytes, not always a
    // whole number of elements), or the default.
    s.reduce_chunk = *rc::gen::weightedOneOf<uint64_t>(
        {{2, rc::gen::just<uint64_t>(0)}, {1, rc::gen::inRange<uint64_t>(1, 200)}});
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
    // Pipelined trees in many segments (a few bytes, not always a whole
    // number of elements), one segment, or the default.
    if (s.type == UCC_COLL_TYPE_BCAST || s.type == UCC_COLL_TYPE_REDUCE) {
        s.segment = *rc::gen::weightedOneOf<int64_t>({{3, rc::gen::just<int64_t>(-1)},
                                                      {1, rc::gen::just<int64_t>(0)},
                                                      {2, rc::gen::inRange<int64_t>(1, 300)}});
    }
    if (s.alg == "sharp") {
        // Switches that reduce, and one rank per node: where it runs.
        s.network = "hdr,ppn=1,sharp_lat=" + std::to_string(*rc::gen::inRange(100, 5000)) +
                    "ns,sharp_bw=" + *rc::gen::element<std::string>("inf", "350MB/s", "10GB/s");
    }
    if (!testkit::alg_can_run(s)) {
        s.alg = "auto";  // refused by the algorithm (allgather neighbor on odd teams)
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
    RC_CLASSIFY(s.reduce_chunk != 0, "extra=small_reduce_chunk");
    RC_CLASSIFY(s.segment > 0, "extra=small_segment");
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

}  // namespace ucc::proptest
