// The real C API on a simulated cluster: every implemented collective and
// algorithm over odd and even team sizes, counts (0, 1, odd, multi-block),
// datatypes, reductions, roots and in-place, checked byte for byte against the
// model (guards, src and non-root buffers included).
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/dt/dt.h"
#include "tests/common/scenario.h"

using ucc::testkit::Scenario;

namespace {

void expect_ok(const Scenario &s) {
    ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
}

const uint32_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 11, 16, 17};

struct AlgCase {
    ucc_coll_type_t type;
    const char *alg;
};

const AlgCase kAlgs[] = {
    {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling"},
    {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner"},
    {UCC_COLL_TYPE_ALLREDUCE, "ring"},
    {UCC_COLL_TYPE_BCAST, "knomial"},
    {UCC_COLL_TYPE_REDUCE, "knomial"},
    {UCC_COLL_TYPE_BARRIER, "dissemination"},
    {UCC_COLL_TYPE_BARRIER, "knomial"},
    {UCC_COLL_TYPE_ALLGATHER, "bruck"},
    {UCC_COLL_TYPE_ALLGATHER, "ring"},
    {UCC_COLL_TYPE_ALLTOALL, "pairwise"},
    {UCC_COLL_TYPE_ALLTOALL, "linear"},
};

bool rooted(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_BCAST || t == UCC_COLL_TYPE_REDUCE;
}

}  // namespace

// Every algorithm x team size x count class x in-place, int32 sum.
TEST(Collectives, EveryAlgorithmSizeAndCount) {
    for (const AlgCase &ac : kAlgs) {
        for (uint32_t n : kSizes) {
            for (uint64_t count : {0ull, 1ull, 5ull, 67ull}) {
                for (bool inplace : {false, true}) {
                    Scenario s;
                    s.type = ac.type;
                    s.alg = ac.alg;
                    s.n = n;
                    s.count = count;
                    s.inplace = inplace;
                    s.root = rooted(ac.type) ? (n - 1) / 2 : 0;
                    s.seed = n * 31 + count;
                    expect_ok(s);
                }
            }
        }
    }
}

// Every root of the rooted collectives, every radix of the trees.
TEST(Collectives, EveryRootAndRadix) {
    for (ucc_coll_type_t t : {UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_REDUCE}) {
        for (uint32_t n : {3u, 6u, 9u}) {
            for (uint32_t root = 0; root < n; ++root) {
                for (uint32_t radix : {2u, 3u, 4u, 8u}) {
                    Scenario s;
                    s.type = t;
                    s.n = n;
                    s.root = root;
                    s.radix = radix;
                    s.count = 9;
                    s.inplace = root % 2 == 0;
                    expect_ok(s);
                }
            }
        }
    }
}

// The k-ary dissemination barrier at every radix (lowered to the team size
// above it), ranks posting at scattered times: no rank completes before the
// last one posted.
TEST(Collectives, DisseminationBarrierAtEveryRadix) {
    for (uint32_t n : {2u, 3u, 4u, 5u, 7u, 9u, 16u, 17u, 26u, 61u, 64u}) {
        for (uint32_t radix : {2u, 3u, 4u, 5u, 8u, 64u}) {
            Scenario s;
            s.type = UCC_COLL_TYPE_BARRIER;
            s.alg = "dissemination";
            s.n = n;
            s.radix = radix;
            s.count = 0;
            s.seed = n * 67 + radix;
            s.skew_ps = 20'000'000;  // 20 us of scattered posts
            const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
            ASSERT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
            const auto &post = o.post_s.at(0);
            const auto &done = o.done_s.at(0);
            const double last_post = *std::max_element(post.begin(), post.end());
            const double first_done = *std::min_element(done.begin(), done.end());
            EXPECT_GE(first_done, last_post) << "n=" << n << " radix=" << radix;
        }
    }
}

// Bruck's alltoall in base k at every radix (lowered to the team size above
// it): odd and even teams, counts 0, 1 and 3, in place or not, byte for
// byte against the model.
TEST(Collectives, BruckAlltoallAtEveryRadix) {
    for (uint32_t n : {2u, 3u, 5u, 7u, 9u, 16u, 17u, 26u}) {
        for (uint32_t radix : {2u, 3u, 4u, 5u, 8u, 64u}) {
            for (uint64_t count : {0ull, 1ull, 3ull}) {
                Scenario s;
                s.type = UCC_COLL_TYPE_ALLTOALL;
                s.alg = "bruck";
                s.n = n;
                s.radix = radix;
                s.count = count;
                s.inplace = (n + radix + count) % 2 == 0;
                s.seed = n * 131 + radix * 7 + count;
                expect_ok(s);
            }
        }
    }
}

// Every predefined datatype with every reduction it supports, on the
// reductions, for several algorithms.
TEST(Collectives, EveryDatatypeAndOp) {
    for (uint64_t id = 0; id < UCC_DT_PREDEFINED_LAST; ++id) {
        ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        for (int op = UCC_OP_SUM; op < UCC_OP_LAST; ++op) {
            if (!ucc::dt::reduction_supported(dt, static_cast<ucc_reduction_op_t>(op))) {
                continue;
            }
            for (const char *alg : {"recursive_doubling", "ring", "rabenseifner"}) {
                Scenario s;
                s.type = UCC_COLL_TYPE_ALLREDUCE;
                s.alg = alg;
                s.n = 6;
                s.dt = dt;
                s.op = static_cast<ucc_reduction_op_t>(op);
                s.count = 13;
                expect_ok(s);
            }
            Scenario r;
            r.type = UCC_COLL_TYPE_REDUCE;
            r.n = 5;
            r.root = 3;
            r.dt = dt;
            r.op = static_cast<ucc_reduction_op_t>(op);
            r.count = 7;
            expect_ok(r);
        }
        for (ucc_coll_type_t t :
             {UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL}) {
            Scenario s;
            s.type = t;
            s.n = 5;
            s.root = 1;
            s.dt = dt;
            s.count = 3;
            expect_ok(s);
        }
    }
}

// Allreduce results are bitwise identical on every rank, floats included,
// whatever the algorithm (P5).
TEST(Collectives, AllreduceBitwiseIdenticalAcrossRanks) {
    for (const char *alg : {"recursive_doubling", "ring", "rabenseifner"}) {
        for (uint32_t n : {3u, 6u, 12u}) {
            Scenario s;
            s.type = UCC_COLL_TYPE_ALLREDUCE;
            s.alg = alg;
            s.n = n;
            s.dt = UCC_DT_FLOAT32;
            s.count = 50;
            s.value_seed = 99;
            ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
            ASSERT_TRUE(o.failure.empty()) << o.failure;
            for (uint32_t r = 1; r < n; ++r) {
                EXPECT_EQ(o.dst[r], o.dst[0]) << alg << " n=" << n << " rank " << r;
            }
        }
    }
}

// A persistent request posted several times with new inputs each time.
TEST(Collectives, PersistentReposts) {
    for (const AlgCase &ac : kAlgs) {
        Scenario s;
        s.type = ac.type;
        s.alg = ac.alg;
        s.n = 7;
        s.count = 11;
        s.posts = 4;
        s.root = 2;
        expect_ok(s);
    }
}

// Teams made from the context's endpoints (FULL ep map, no team OOB).
TEST(Collectives, TeamFromEpMap) {
    for (uint32_t n : {1u, 2u, 5u, 8u}) {
        Scenario s;
        s.n = n;
        s.team_ep_map = true;
        expect_ok(s);
    }
}

// Adversarial schedules: big jitter reorders everything the transport allows.
TEST(Collectives, JitteredNetworksManySeeds) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
        for (const AlgCase &ac : kAlgs) {
            Scenario s;
            s.type = ac.type;
            s.alg = ac.alg;
            s.n = 5 + seed % 7;
            s.count = 1 + seed * 3;
            s.seed = seed;
            s.root = seed % s.n;
            s.network = "slow";
            expect_ok(s);
        }
    }
}

// The same seed gives the same trace hash; another seed another schedule.
TEST(Collectives, SameSeedSameTraceHash) {
    Scenario s;
    s.n = 13;
    s.count = 100;
    s.network = "slow";
    s.seed = 42;
    auto a = ucc::testkit::run_scenario(s);
    auto b = ucc::testkit::run_scenario(s);
    ASSERT_TRUE(a.failure.empty()) << a.failure;
    EXPECT_EQ(a.run.trace_hash, b.run.trace_hash);
    EXPECT_EQ(a.run.virtual_time_s, b.run.virtual_time_s);
    s.seed = 43;
    auto c = ucc::testkit::run_scenario(s);
    EXPECT_NE(a.run.trace_hash, c.run.trace_hash);
}
