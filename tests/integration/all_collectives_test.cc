// All 16 collective types on the simulator, every algorithm, checked byte for
// byte against the model: odd and even team sizes, every root class, counts 0,
// 1, odd and multi-block, in-place where the spec allows it, 32- and 64-bit
// counts and displacements for the v-variants, gaps between v-blocks and
// zero-size blocks, reductions over several datatypes, persistent re-posts.
#include <gtest/gtest.h>

#include "lib/coll/coll.h"
#include "lib/dt/dt.h"
#include "tests/common/scenario.h"

using ucc::testkit::Scenario;

namespace {

void expect_ok(const Scenario &s) {
    ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
}

bool has_inplace(ucc_coll_type_t t) {
    return t != UCC_COLL_TYPE_BARRIER && t != UCC_COLL_TYPE_BCAST && t != UCC_COLL_TYPE_FANIN &&
           t != UCC_COLL_TYPE_FANOUT;
}

}  // namespace

TEST(AllCollectives, EveryTypeAlgorithmSizeCountRoot) {
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(t)) {
            if (alg.onesided) {
                continue;  // mapped memory: tests/integration/onesided_test.cc
            }
            for (uint32_t n : {1u, 2u, 3u, 5u, 8u, 13u}) {
                for (uint64_t count : {0ull, 1ull, 7ull, 40ull}) {
                    for (bool inplace : {false, true}) {
                        if (inplace && !has_inplace(t)) {
                            continue;
                        }
                        Scenario s;
                        s.type = t;
                        s.alg = alg.name;
                        s.n = n;
                        s.count = count;
                        s.inplace = inplace;
                        s.root = static_cast<uint32_t>((count + n) % n);
                        s.seed = n * 7 + count;
                        s.value_seed = 3 + count;
                        s.wide_counts = (n + count) % 2 == 0;
                        s.wide_displs = (n + count) % 3 == 0;
                        if (!ucc::testkit::alg_can_run(s)) {
                            continue;  // refused (allgather neighbor on odd teams)
                        }
                        expect_ok(s);
                    }
                }
            }
        }
    }
}

TEST(AllCollectives, ReductionsOverDatatypes) {
    for (ucc_coll_type_t t : {UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV}) {
        for (uint64_t id = 0; id < UCC_DT_PREDEFINED_LAST; ++id) {
            const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
            for (ucc_reduction_op_t op :
                 {UCC_OP_SUM, UCC_OP_PROD, UCC_OP_MAX, UCC_OP_BXOR, UCC_OP_LAND, UCC_OP_AVG}) {
                if (!ucc::dt::reduction_supported(dt, op)) {
                    continue;
                }
                Scenario s;
                s.type = t;
                s.n = 4;
                s.dt = dt;
                s.op = op;
                s.count = 5;
                s.inplace = id % 2 == 0;
                expect_ok(s);
            }
        }
    }
}

TEST(AllCollectives, PersistentRepostsAndJitter) {
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            Scenario s;
            s.type = t;
            s.n = 6 + static_cast<uint32_t>(seed);
            s.count = 9;
            s.posts = 3;
            s.seed = seed;
            s.root = static_cast<uint32_t>(seed);
            s.network = "slow";
            s.value_seed = seed * 11;
            expect_ok(s);
        }
    }
}
