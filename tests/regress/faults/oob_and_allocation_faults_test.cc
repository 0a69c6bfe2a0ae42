// Found by the fault swarm once it failed allocations and OOB exchanges
// (transports/sim/faults.h nomem, oob; tests/faults/fault_case.h runs each case).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/faults/fault_case.h"

namespace {

ucc::sim::FaultPlan plan_of(const char *spec, uint32_t n) {
    ucc::sim::FaultPlan plan;
    std::string error;
    EXPECT_TRUE(ucc::sim::FaultPlan::parse(spec, n, &plan, &error)) << error;
    return plan;
}

}  // namespace

// Seed 41: a rank whose peer exchange failed to post (ucc_context_create's,
// then ucc_team_create_post's) took the error for "the world offers no peer
// exchange" and fell back to the OOB allgather, which its peers never joined:
// every rank hung (a simulated deadlock). Only UCC_ERR_NOT_SUPPORTED falls
// back now; any other error fails the call.
TEST(Regress, AFailedPeerExchangeFailsTheCallInsteadOfFallingBack) {
    for (const char *spec : {"oob=1#0", "oob=1#1", "oob=0#1"}) {
        const ucc::sim::FaultPlan plan = plan_of(spec, 3);
        const ucc::testkit::FaultOutcome o = ucc::testkit::run_fault_case(3, 5, plan, 41, "ring");
        ucc::testkit::expect_survivors_sound(3, plan, o, spec);
        EXPECT_EQ(o.run.faults_injected, 1u) << spec;
        EXPECT_GT(o.failed[plan.oob[0].rank], 0u) << spec;
    }
}

// Seed 134: an allocation that failed while team creation built its peer
// map (in the poller that ucc_team_create_test drives) escaped as
// UCC_ERR_NO_MEMORY from that call but left the team "being created": it
// could never be destroyed (UCC_ERR_INVALID_PARAM) and its context leaked.
// The creation now fails with the status, and the team is destroyable.
TEST(Regress, AFailedAllocationInTeamCreationLeavesADestroyableTeam) {
    // Rank 0's visits: transport, address, context peers, team handle, team peers.
    const ucc::sim::FaultPlan plan = plan_of("nomem=0#4", 4);
    const ucc::testkit::FaultOutcome o = ucc::testkit::run_fault_case(4, 5, plan, 134, "");
    ucc::testkit::expect_survivors_sound(4, plan, o, plan.describe());
    EXPECT_EQ(o.injected[0], 1u);
    EXPECT_EQ(o.no_memory[0], 1u);
}

// A 20,000-case swarm died of "out of memory setting up the cluster" after
// about 16,000 cases: each crashed rank's fiber (never unwound, by design)
// held a reference to its run's stack pool, so every run with a crash kept
// all of its ranks' stacks mapped — and each guard page splits a mapping, so
// the process ran out of mappings. The crashed fiber now gives its reference
// up: the pool is unmapped with the run.
TEST(Regress, RunsWithCrashedRanksGiveTheirStacksBack) {
    auto mappings = [] {
        size_t lines = 0;
        if (FILE *f = std::fopen("/proc/self/maps", "r")) {
            for (int c; (c = std::fgetc(f)) != EOF;) {
                lines += c == '\n' ? 1 : 0;
            }
            std::fclose(f);
        }
        return lines;
    };
    const ucc::sim::FaultPlan plan = plan_of("crash=3@1e-6", 8);
    ucc::testkit::run_fault_case(8, 3, plan, 1, "");  // warm up
    const size_t before = mappings();
    for (int i = 0; i < 100; ++i) {
        const ucc::testkit::FaultOutcome o = ucc::testkit::run_fault_case(8, 3, plan, 1 + i, "");
        ASSERT_FALSE(o.finished[3]);
    }
    // Before: 100 pools of 8 guarded stacks, well over 1,000 more mappings.
    EXPECT_LT(mappings(), before + 50) << "mappings before: " << before;
}
