// The property workloads' computing pause (skew before posts and destroys)
// of zero: the harness advanced the rank's clock by nothing and idled it with
// no deadline, waiting for an event; a rank whose peers all waited on it (its
// last team destroy, then the next cycle's team creation) never woke, and the
// run ended in a deadlock report blaming the library ("blocked in idle() with
// nothing posted"). TraceProps.Threads hit it with
// RC_PARAMS="seed=9355088821848087256" UCC_PROPTEST_SCALE=1: a draw of the
// skew that came out 0. A skew of 1 ps makes every pause 0.
#include <gtest/gtest.h>

#include "tests/common/workload.h"

namespace {

ucc::testkit::Workload zero_pauses(uint32_t threads) {
    ucc::testkit::Workload w;
    w.n = 6;
    w.seed = 2695409886024189301ull;
    w.network = "hdr,ppn=1,lat_intra=0ns,lat_inter=0ns,jitter=0ns";
    w.teams.push_back({{0, 1, 2, 3, 4, 5}, false, false});
    w.teams.push_back({{0}, false, false});
    w.teams.push_back({{0, 5}, true, false});
    w.teams.push_back({{0}, true, false});
    ucc::testkit::WorkloadOp op;
    op.team = 0;
    op.coll.type = UCC_COLL_TYPE_FANOUT;
    op.coll.root = 5;
    op.coll.count = 0;
    op.coll.alg = "knomial";
    op.coll.radix = 9;
    w.ops.push_back(op);
    w.window = 2;
    w.cycles = 2;
    w.skew_ps = 1;  // every pause mix(...) % 1 = 0
    w.threads = threads;
    return w;
}

}  // namespace

TEST(Regress, AZeroComputingPauseDoesNotBlockTheRank) {
    for (uint32_t threads : {0u, 2u}) {
        const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(zero_pauses(threads));
        EXPECT_TRUE(out.failure.empty()) << "threads=" << threads << "\n" << out.failure;
        EXPECT_GT(out.posts_ok, 0u) << "threads=" << threads;
    }
}
