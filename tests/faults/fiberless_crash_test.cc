// Ranks without a fiber (UCC_SIM_FLAG_FIBERLESS) with a crashed peer: the
// survivors' allreduces fail in their callbacks, none hangs. Here, not in
// integration_tests: a crashed rank's memory is lost by design (no leak check).
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

}  // namespace
