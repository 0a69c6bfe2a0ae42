// Found by proptests TraceProps.Timeouts (a rank aborted by the simulator after
// 1,000,000 idle() calls that could not block).
//
// Context::progress idles until the earliest collective deadline. A deadline
// less than a picosecond ahead of the rank's clock rounded to the clock itself,
// so Cluster::idle treated it as past and returned without advancing time; the
// deadline never passed and the rank spun until the simulator gave up.
// Fixed (idle rounds up and waits at least one tick); kept as a regression test.
#include <gtest/gtest.h>

#include "transports/sim/cluster.h"

TEST(Regress, IdleUntilADeadlineLessThanAPicosecondAheadLetsItPass) {
    ucc::sim::ClusterParams p;
    p.n_ranks = 1;
    double deadline = 0;
    double after = 0;
    const ucc::sim::RunResult run = ucc::sim::run(p, [&](uint32_t r) {
        ucc::sim::Cluster *c = ucc::sim::Cluster::current();
        c->advance(r, 1'000'000);
        deadline = (static_cast<double>(c->clock_ps(r)) + 0.4) / 1e12;
        // What Context::progress does: idle until the deadline has passed.
        for (int i = 0; i < 100 && ucc::sim::now_s() < deadline; ++i) {
            c->idle(r, deadline);
        }
        after = ucc::sim::now_s();
    });
    ASSERT_EQ(run.status, UCC_OK) << run.report;
    EXPECT_GE(after, deadline);
}
