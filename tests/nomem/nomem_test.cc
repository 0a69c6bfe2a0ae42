// P37 inside the simulator: the fault plan fails allocations at the
// library's allocation sites (lib/simulated.h AllocSite; faults.h nomem) —
// each visit of each rank in turn, then at random under a seed. The rank
// whose allocation failed must get UCC_ERR_NO_MEMORY from that very call and
// no handle, destroy what it made and exit; its peers must get an error or
// exact data and finish (tests/faults/fault_case.h). This binary keeps the
// leak checker (no rank is killed: every stack unwinds), so anything a
// failure leaves behind fails it under ASan.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/faults/fault_case.h"

using ucc::testkit::expect_survivors_sound;
using ucc::testkit::FaultOutcome;
using ucc::testkit::run_fault_case;

namespace {

// Fails rank r's visits 0, 1, ... in turn until a run passes no site; returns
// how many visits were failed.
uint32_t sweep_rank(uint32_t n, uint32_t r, const std::string &alg) {
    for (uint32_t visit = 0; visit < 10'000; ++visit) {
        ucc::sim::FaultPlan plan;
        plan.nomem.push_back({r, visit});
        const FaultOutcome o = run_fault_case(n, 5, plan, 7, alg);
        if (o.run.faults_injected == 0) {
            return visit;  // the program ran past its last allocation site
        }
        const std::string what = "alg '" + alg + "' faults " + plan.describe();
        expect_survivors_sound(n, plan, o, what);
        EXPECT_EQ(o.injected[r], 1u) << what;
        EXPECT_GT(o.failed[r], 0u) << what;
        if (::testing::Test::HasFailure()) {
            return visit;
        }
    }
    ADD_FAILURE() << "rank " << r << " passes more than 10,000 allocation sites";
    return 0;
}

}  // namespace

// Every site of context, team and collective creation (and of the posts of
// allreduce, bcast, allgather, alltoall and barrier) on every rank in turn.
TEST(NoMemory, EverySiteOfEveryRankInTurn) {
    for (const char *alg : {"", "ring", "rabenseifner"}) {
        const uint32_t n = 4;
        for (uint32_t r = 0; r < n; ++r) {
            const uint32_t sites = sweep_rank(n, r, alg);
            std::printf("alg '%s' rank %u: %u allocation sites failed in turn\n", alg, r, sites);
            // Transport, address, peers, team handle, team peers, and a
            // request and a task for each of the five collectives at least.
            EXPECT_GE(sites, 15u) << "rank " << r;
            if (HasFailure()) {
                return;
            }
        }
    }
}

// Random failures at every intensity: 0.5% to 30% of visits.
TEST(NoMemory, RandomFailuresUnderASeed) {
    uint64_t injected = 0;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
        const uint32_t n = 2 + static_cast<uint32_t>(seed % 7);
        ucc::sim::FaultPlan plan;
        plan.nomem_p = 0.005 + static_cast<double>(seed % 20) * 0.015;
        const FaultOutcome o = run_fault_case(n, 10, plan, seed, seed % 2 ? "ring" : "");
        injected += o.run.faults_injected;
        expect_survivors_sound(n, plan, o,
                               "seed " + std::to_string(seed) + " n " + std::to_string(n) +
                                   " faults " + plan.describe());
        if (HasFailure()) {
            return;
        }
    }
    EXPECT_GT(injected, 100u);
}

// Failed and stalled OOB exchanges: each of a rank's exchanges in turn. A
// failure is an error on that rank and on its peers (never a hang); a stall
// only delays.
TEST(NoMemory, FailedAndStalledOobExchanges) {
    const uint32_t n = 5;
    for (uint32_t r : {0u, 2u, 4u}) {
        uint32_t calls = 0;
        for (uint32_t call = 0; call < 100; ++call) {
            for (double stall : {0.0, 3e-5}) {
                ucc::sim::FaultPlan plan;
                plan.oob.push_back({r, call, stall});
                const FaultOutcome o = run_fault_case(n, 5, plan, call + 1, "");
                const std::string what = plan.describe();
                expect_survivors_sound(n, plan, o, what);
                if (o.run.faults_injected == 0) {
                    calls = call;
                    break;
                }
                if (stall == 0) {
                    EXPECT_GT(o.failed[r], 0u) << what;
                } else {
                    EXPECT_EQ(o.ok[r], 5u) << what;
                    EXPECT_GT(o.run.virtual_time_s, 3e-5) << what;
                }
            }
            if (calls != 0 || HasFailure()) {
                break;
            }
        }
        EXPECT_GE(calls, 2u) << "rank " << r << ": context and team creation exchange";
        if (HasFailure()) {
            return;
        }
    }
}
