// Ranks without a fiber (UCC_SIM_FLAG_FIBERLESS) with a crashed peer, or one
// whose OOB exchange fails: the survivors' allreduces or team creations fail
// in their callbacks and hooks, none hangs. Here, not in integration_tests: a
// crashed rank's memory is lost by design (no leak check).
#include <gtest/gtest.h>

#include "tests/common/sim_fiberless_program.h"

namespace {

using namespace ucc::testkit::fiberless;

TEST(SimFiberless, PeersOfACrashedRankFailInTheirCallbacks) {
    Shared sh;
    sh.iters = 1000;
    const Outcome o = run(&sh, 8, true, "crash=3@2e-5,detect=1e-6");
    EXPECT_EQ(o.status, UCC_OK);
    EXPECT_EQ(sh.wrong, 0u);
    EXPECT_EQ(sh.failed, 7u);  // every survivor's collective failed, none hung
}

// A rank whose context's OOB exchange fails (oob=1#0: at once) gives up;
// the others' contexts never learn their peers, and the teams they posted
// meanwhile fail in ucc_team_create_test: no hang, with or without fibers.
TEST(SimFiberless, AJoinThatCannotCompleteFailsTheTeamsWaitingForIt) {
    for (bool fiberless : {true, false}) {
        SCOPED_TRACE(fiberless ? "without fibers" : "with fibers");
        Shared sh;
        sh.wiring = Wiring::kContextOob;
        const Outcome o = run(&sh, 4, fiberless, "oob=1#0");
        EXPECT_EQ(o.status, UCC_OK);
        EXPECT_EQ(sh.failed, 4u);
        EXPECT_EQ(sh.finished, 0u);
    }
}

}  // namespace
