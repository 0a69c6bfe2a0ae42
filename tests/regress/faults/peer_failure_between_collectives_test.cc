// Found by the fault swarm (seed 76): a rank that learned of a crashed team
// member between two collectives (it was stalled while the others saw the
// failure inside one) went on to post the next collective, which waited
// forever for members that had already given up on the team. The core failed
// only the collectives in flight when the news came; now the news fails every
// team with the dead member (its next init or post returns the error), also a
// team still being created (tests/faults/fault_case.h runs the case).
#include <gtest/gtest.h>

#include "tests/faults/fault_case.h"

TEST(Regress, APeerFailureBetweenCollectivesFailsTheTeam) {
    ucc::sim::FaultPlan plan;
    std::string error;
    ASSERT_TRUE(
        ucc::sim::FaultPlan::parse("crash=5@3.25069619e-05,stall=2@1.99222609e-05:3.84387553e-05,"
                                   "stall=0@1.95294349e-05:3.32404034e-05,detect=5e-06",
                                   6, &plan, &error))
        << error;
    const ucc::testkit::FaultOutcome o = ucc::testkit::run_fault_case(6, 12, plan, 76, "");
    ucc::testkit::expect_survivors_sound(6, plan, o, plan.describe());
}

// Seed 135: the news reached a rank while its team was still being created
// (its member table not yet known), and the team then became active with the
// dead member; its first collective waited forever.
TEST(Regress, APeerFailureDuringTeamCreationFailsTheTeam) {
    ucc::sim::FaultPlan plan;
    std::string error;
    ASSERT_TRUE(ucc::sim::FaultPlan::parse(
        "crash=2@5.27720712e-06,crash=5@6.50141369e-06,stall=4@1.62317415e-05:1.20946418e-06,"
        "stall=6@4.77750039e-06:5.98841531e-05,spike=0.0870984275:1.84068533e-05,detect=5e-06",
        9, &plan, &error))
        << error;
    const ucc::testkit::FaultOutcome o =
        ucc::testkit::run_fault_case(9, 12, plan, 135, "rabenseifner");
    ucc::testkit::expect_survivors_sound(9, plan, o, plan.describe());
}
