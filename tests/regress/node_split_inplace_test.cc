// Alltoall node_split in place (lib/coll/patterns/node_split.cc): the blocks
// for other nodes were staged one by one while the receives were posted, so
// a receive that completed at once (its message already there: the slow
// network's jitter lets a peer's block arrive first) overwrote a dst block
// this rank had not staged yet, and the peer got the received block instead
// of this rank's. Every outgoing block is now staged before the first
// receive is posted.
#include <gtest/gtest.h>

#include "tests/common/scenario.h"

TEST(Regress, NodeSplitInPlaceStagesEveryBlockBeforeReceiving) {
    for (ucc_datatype_t dt : {UCC_DT_FLOAT128, UCC_DT_INT64, UCC_DT_INT32}) {
        for (bool ep_map : {true, false}) {
            ucc::testkit::Scenario s;
            s.type = UCC_COLL_TYPE_ALLTOALL;
            s.alg = "node_split";
            s.n = 17;
            s.dt = dt;
            s.count = dt == UCC_DT_INT32 ? 3 : 1;
            s.inplace = true;
            s.radix = 2;
            s.team_ep_map = ep_map;
            s.network = "slow";
            EXPECT_EQ(ucc::testkit::run_scenario(s).failure, "") << ucc::testkit::describe(s);
            s.type = UCC_COLL_TYPE_ALLTOALLV;
            EXPECT_EQ(ucc::testkit::run_scenario(s).failure, "") << ucc::testkit::describe(s);
        }
    }
}
