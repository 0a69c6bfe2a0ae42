// The dbt bcast's root ran one task per tree. Its sends of a segment size
// below the rendezvous threshold complete when posted, so the task of tree 0
// posted all of its segments before the task of tree 1 ran, and the root's
// port sent tree 0's half of the message before tree 1's first segment: tree
// 1 started half a message late, and a large bcast took 1.3-1.6 times the
// message's wire time (16 ranks, 16 MiB, hdr: 906 us against 699). The root
// now feeds the segments in order, alternating between the trees' roots, and
// the bcast takes about the wire time of the message.
#include <gtest/gtest.h>

#include "tests/common/scenario.h"

TEST(Regress, BcastDbtRootFeedsBothTreesAtOnce) {
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_BCAST;
    s.alg = "dbt";
    s.dt = UCC_DT_UINT8;
    s.count = 4 << 20;
    s.segment = 64 << 10;
    s.n = 8;
    s.network = "hdr,ppn=1,bw_inter=24GB/s,jitter=0";
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    ASSERT_EQ(o.failure, "") << ucc::testkit::describe(s);
    const double last = o.slowest_s();
    const double wire = static_cast<double>(s.count) / 24e9;  // every rank receives it all
    EXPECT_GT(last, wire);
    EXPECT_LT(last, 1.15 * wire);  // tree 1 half a message late: about 1.35 times
}
