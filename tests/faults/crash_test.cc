// Crashed, stalled and delayed ranks (transports/sim/faults.h): P41 — under
// faults a collective returns an error or the model's exact result, never
// wrong data with UCC_OK — and P46 — every survivor's collective completes
// (no hang, no timeout needed), and every survivor can tear down what it
// made (tests/faults/fault_case.h).
//
// A crashed rank's memory is lost as a killed process's is, so this binary
// runs without the leak checker (its CTest environment, CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/faults/fault_case.h"

using ucc::testkit::expect_survivors_sound;
using ucc::testkit::FaultOutcome;
using ucc::testkit::run_fault_case;

TEST(Crash, FaultPlansParseAndDescribe) {
    ucc::sim::FaultPlan p;
    std::string error;
    ASSERT_TRUE(ucc::sim::FaultPlan::parse("crash=3@1e-5,crash=0@0,detect=2e-6", 8, &p, &error))
        << error;
    ASSERT_EQ(p.crashes.size(), 2u);
    EXPECT_EQ(p.crashes[0].rank, 3u);
    EXPECT_DOUBLE_EQ(p.crashes[0].at_s, 1e-5);
    EXPECT_DOUBLE_EQ(p.detect_s, 2e-6);
    EXPECT_EQ(p.describe(), "crash=3@1e-05,crash=0@0,detect=2e-06");
    ASSERT_TRUE(ucc::sim::FaultPlan::parse("stall=2@1e-6:3e-6,spike=0.25:1e-6", 8, &p, &error))
        << error;
    ASSERT_EQ(p.stalls.size(), 1u);
    EXPECT_EQ(p.stalls[0].rank, 2u);
    EXPECT_DOUBLE_EQ(p.stalls[0].for_s, 3e-6);
    EXPECT_DOUBLE_EQ(p.spike_p, 0.25);
    EXPECT_EQ(p.describe(), "stall=2@1e-06:3e-06,spike=0.25:1e-06");
    ASSERT_TRUE(ucc::sim::FaultPlan::parse("nomem=1#7,nomem=0#0,nomem_p=0.01,oob=3#2,oob=2#0:1e-5",
                                           8, &p, &error))
        << error;
    ASSERT_EQ(p.nomem.size(), 2u);
    EXPECT_EQ(p.nomem[0].rank, 1u);
    EXPECT_EQ(p.nomem[0].visit, 7u);
    EXPECT_DOUBLE_EQ(p.nomem_p, 0.01);
    ASSERT_EQ(p.oob.size(), 2u);
    EXPECT_EQ(p.oob[0].call, 2u);
    EXPECT_EQ(p.oob[0].stall_s, 0.0);
    EXPECT_DOUBLE_EQ(p.oob[1].stall_s, 1e-5);
    EXPECT_TRUE(p.fails_calls());
    EXPECT_EQ(p.describe(), "nomem=1#7,nomem=0#0,nomem_p=0.01,oob=3#2,oob=2#0:1e-05");
    ASSERT_TRUE(ucc::sim::FaultPlan::parse("oob=2#0:1e-5", 8, &p, &error)) << error;
    EXPECT_FALSE(p.fails_calls());  // a late exchange only delays
    for (const char *bad :
         {"crash=8@0",   "crash=1",       "crash=x@1", "crash=1@-1", "spike=1",
          "detect=abc",  "crash=1@1e999", "spike=2:1", "stall=1@0",  "crash=-1@0",
          "bogus",       "nomem=8#0",     "nomem=1",   "nomem=1#-1", "nomem=1#99999999999",
          "nomem_p=1.5", "nomem_p=x",     "oob=1",     "oob=1#",     "oob=1#2:",
          "oob=1#2:-1",  "oob=9#0"}) {
        EXPECT_FALSE(ucc::sim::FaultPlan::parse(bad, 8, &p, &error)) << bad;
        EXPECT_NE(error.find("fault"), std::string::npos) << bad << ": " << error;
    }
    // Draws are a function of the seed.
    const ucc::sim::FaultPlan a = ucc::sim::FaultPlan::draw(42, 16, 1e-4);
    const ucc::sim::FaultPlan b = ucc::sim::FaultPlan::draw(42, 16, 1e-4);
    EXPECT_EQ(a.describe(), b.describe());
}

TEST(Crash, WithoutFaultsEveryCollectiveSucceeds) {
    const FaultOutcome o = run_fault_case(6, 10, {}, 1, "");
    expect_survivors_sound(6, {}, o, "no faults");
    for (uint32_t r = 0; r < 6; ++r) {
        EXPECT_EQ(o.ok[r], 10u) << "rank " << r;
    }
}

TEST(Crash, SurvivorsGetAnErrorOrExactDataAndFinish) {
    for (uint32_t victim : {0u, 3u, 5u}) {
        for (double at : {0.0, 3e-6, 2e-5}) {
            ucc::sim::FaultPlan plan;
            plan.crashes.push_back({victim, at});
            const FaultOutcome o = run_fault_case(6, 15, plan, victim + 1, "");
            const std::string what = plan.describe();
            expect_survivors_sound(6, plan, o, what);
            // A crash before the run's end leaves each survivor at least one error.
            for (uint32_t r = 0; r < 6; ++r) {
                if (r != victim && !o.finished[victim]) {
                    EXPECT_GT(o.failed[r], 0u) << what << ": rank " << r;
                }
            }
        }
    }
}

// Swarm: allreduce algorithms in turn, team sizes 2..9, a mix and intensity
// of crashes, stalls, delay spikes, failed allocations and failed or stalled
// OOB exchanges drawn from each case's seed.
// UCC_TEST_SWARM_CASES sets the number of cases (CI: 300; run it for hours
// with a large number), UCC_TEST_SWARM_FIRST the first case's seed (1; set it
// to a failure's seed, with 1 case, to replay that case alone).
TEST(Crash, SwarmOfDrawnFaultPlans) {
    uint64_t cases = 300;
    if (const char *env = std::getenv("UCC_TEST_SWARM_CASES")) {
        cases = std::strtoull(env, nullptr, 10);
    }
    uint64_t first = 1;
    if (const char *env = std::getenv("UCC_TEST_SWARM_FIRST")) {
        first = std::strtoull(env, nullptr, 10);
    }
    const char *algs[] = {"", "ring", "recursive_doubling", "rabenseifner"};
    uint64_t crashes = 0;
    uint64_t stalls = 0;
    uint64_t spiky = 0;
    uint64_t nomem = 0;     // cases with allocation failures
    uint64_t oob = 0;       // OOB faults
    uint64_t injected = 0;  // failed allocations and OOB faults that happened
    for (uint64_t seed = first; seed < first + cases; ++seed) {
        const uint32_t n = 2 + static_cast<uint32_t>(seed % 8);
        const ucc::sim::FaultPlan plan = ucc::sim::FaultPlan::draw(seed, n, 4e-5);
        crashes += plan.crashes.size();
        stalls += plan.stalls.size();
        spiky += plan.spike_p > 0 ? 1 : 0;
        nomem += plan.nomem_p > 0 ? 1 : 0;
        oob += plan.oob.size();
        const std::string alg = algs[seed % 4];
        const FaultOutcome o = run_fault_case(n, 12, plan, seed, alg);
        injected += o.run.faults_injected;
        expect_survivors_sound(n, plan, o,
                               "seed " + std::to_string(seed) + " n " + std::to_string(n) +
                                   " allreduce alg '" + alg + "' faults " + plan.describe());
        if (::testing::Test::HasFailure()) {
            return;
        }
    }
    std::printf(
        "swarm: %llu cases, %llu crashes, %llu stalls, %llu with delay spikes, %llu with "
        "allocation failures, %llu OOB faults; %llu allocation and OOB faults injected\n",
        static_cast<unsigned long long>(cases), static_cast<unsigned long long>(crashes),
        static_cast<unsigned long long>(stalls), static_cast<unsigned long long>(spiky),
        static_cast<unsigned long long>(nomem), static_cast<unsigned long long>(oob),
        static_cast<unsigned long long>(injected));
    EXPECT_GT(crashes, 0u);
    EXPECT_GT(stalls, 0u);
    EXPECT_GT(spiky, 0u);
    EXPECT_GT(nomem, 0u);
    EXPECT_GT(oob, 0u);
    EXPECT_GT(injected, 0u);
}
