// The radix-k exchanges of recursive multiplying (allreduce knomial and
// sra_knomial, allgather knomial, reduce_scatter knomial) at every shape of
// their extra ranks, checked byte for byte against the model: radix 2, 3, 4,
// 5 and 8 (lowered on smaller teams), team sizes 1 to 17, 25, 27 and 64
// (powers of the radix, one short and one over, and up to two extras per
// proxy), counts 0, 1, 7 and 40 (fewer elements than runs), in place and
// not, on two networks. Then float64 AVG reductions of inexact values, which
// must come out the same on every network (the combining order is the
// algorithm's), and persistent re-posts with skewed ranks.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "tests/common/scenario.h"

using ucc::testkit::Scenario;

namespace {

struct Alg {
    ucc_coll_type_t type;
    const char *name;
};
constexpr Alg kAlgs[] = {{UCC_COLL_TYPE_ALLREDUCE, "knomial"},
                         {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial"},
                         {UCC_COLL_TYPE_ALLGATHER, "knomial"},
                         {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial"}};

constexpr uint32_t kSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 25, 27};

void expect_ok(const Scenario &s) {
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
}

}  // namespace

TEST(RadixExchange, EveryShapeOfExtrasMatchesTheModel) {
    uint64_t runs = 0;
    for (const Alg &alg : kAlgs) {
        for (uint32_t radix : {2u, 3u, 4u, 5u, 8u}) {
            for (uint32_t n : kSizes) {
                for (uint64_t count : {0ull, 1ull, 7ull, 40ull}) {
                    Scenario s;
                    s.type = alg.type;
                    s.alg = alg.name;
                    s.n = n;
                    s.radix = radix;
                    s.count = count;
                    s.inplace = (n + count + radix) % 2 == 0;
                    s.op = radix % 2 == 0 ? UCC_OP_SUM : UCC_OP_MAX;
                    s.network = n % 2 == 0 ? "hdr" : "slow";
                    s.seed = n * 17 + count + radix;
                    s.value_seed = 3 + count + radix;
                    expect_ok(s);
                    ++runs;
                }
            }
        }
    }
    EXPECT_EQ(runs, 4u * 5u * std::size(kSizes) * 4u);
}

TEST(RadixExchange, SixtyFourRanks) {
    for (const Alg &alg : kAlgs) {
        for (uint32_t radix : {2u, 4u, 8u, 3u}) {
            Scenario s;
            s.type = alg.type;
            s.alg = alg.name;
            s.n = 64;
            s.radix = radix;
            s.count = 33;
            s.inplace = radix % 2 == 1;
            expect_ok(s);
        }
    }
}

// float64 AVG of inexact values: the bits the model computes for this
// algorithm's combining order on both networks, and re-posts into the same
// scratch with ranks arriving at different times.
TEST(RadixExchange, InexactAveragesAndPersistentReposts) {
    for (const Alg &alg : kAlgs) {
        if (alg.type == UCC_COLL_TYPE_ALLGATHER) {
            continue;
        }
        for (const char *network : {"hdr", "slow"}) {
            for (uint32_t n : {6u, 11u}) {
                Scenario s;
                s.type = alg.type;
                s.alg = alg.name;
                s.n = n;
                s.radix = 3;
                s.count = 23;
                s.dt = UCC_DT_FLOAT64;
                s.op = UCC_OP_AVG;
                s.posts = 3;
                s.skew_ps = 40'000'000;
                s.network = network;
                s.inplace = n % 2 == 0;
                expect_ok(s);
            }
        }
    }
    Scenario s;
    s.type = UCC_COLL_TYPE_ALLGATHER;
    s.alg = "knomial";
    s.n = 10;
    s.radix = 3;
    s.count = 19;
    s.posts = 3;
    s.skew_ps = 40'000'000;
    expect_ok(s);
}
