// Found by the AddressSanitizer build of tool_ucc_replay (the desync sample):
// "stack-use-after-scope ... in __interceptor_sigaltstack" when the replay's
// verifier threw inside a simulated rank.
//
// A simulated rank runs on its own fiber stack. The simulator switched between
// the event loop and the ranks without telling AddressSanitizer, so an
// exception thrown inside a rank could not clear the redzones of the frames it
// unwound (the runtime did not know that stack), and a later throw on the same
// stack tripped over them. Fixed (every switch is announced to the sanitizer);
// kept as a regression test. Without AddressSanitizer it checks that exceptions
// thrown and caught inside ranks across suspensions leave the run intact.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "transports/sim/cluster.h"

namespace {

// Frames with scoped locals that the exception unwinds without their epilogues.
[[gnu::noinline]] void throw_from(int depth, volatile char *sink) {
    char scoped[96];
    std::memset(scoped, depth, sizeof scoped);
    *sink = scoped[depth % sizeof scoped];
    if (depth == 0) {
        throw std::runtime_error("thrown inside a rank");
    }
    {
        char inner[48];
        std::memset(inner, depth + 1, sizeof inner);
        *sink = inner[depth % sizeof inner];
    }
    throw_from(depth - 1, sink);
}

}  // namespace

TEST(Regress, ExceptionsThrownInsideSimulatedRanksAcrossSwitches) {
    ucc::sim::ClusterParams p;
    p.n_ranks = 4;
    int caught[4] = {};
    volatile char sink = 0;
    const ucc::sim::RunResult run = ucc::sim::run(p, [&](uint32_t r) {
        ucc::sim::Cluster *c = ucc::sim::Cluster::current();
        for (int i = 0; i < 40; ++i) {
            try {
                throw_from(4 + (i + static_cast<int>(r)) % 7, &sink);
            } catch (const std::runtime_error &) {
                ++caught[r];
            }
            // Suspend: back to the event loop, then resumed on this stack.
            c->idle(r, ucc::sim::now_s() + 1e-9);
        }
    });
    ASSERT_EQ(run.status, UCC_OK) << run.report;
    for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(caught[r], 40) << "rank " << r;
    }
}
