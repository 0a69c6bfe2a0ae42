// Found by a session: BCAST_SEGMENT and REDUCE_SEGMENT "auto" chose the
// segment from each member's own arguments, and a reduce's root in place has
// a smaller working set than its members, which beyond the cache changes the
// predictions: on 61 ranks of a network with a 96 KiB cache the root took
// 4 KiB segments and the members 2 KiB, and the collective failed with
// UCC_ERR_INVALID_PARAM (the messages' lengths disagreed). The segment is now
// chosen out of place on every member.
#include <gtest/gtest.h>

#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"
#include "tests/common/scenario.h"

TEST(Regress, ARootInPlaceTakesItsMembersSegment) {
    const char *spec = "hdr,ppn=1,jitter=0,cache=96K,copy_mem=4GB/s,reduce_mem=2GB/s";
    ucc::net::NetworkModel net;
    ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    const ucc::cost::Params p = ucc::net::cost_params(net);
    const ucc::coll::Algorithm *dbt = ucc::select::resolve_alg(UCC_COLL_TYPE_REDUCE, "dbt");
    ASSERT_NE(dbt, nullptr);
    ucc::coll::Args a;
    a.type = UCC_COLL_TYPE_REDUCE;
    a.dt = UCC_DT_FLOAT32;
    a.esize = 4;
    a.count = 16384;
    a.segment_bytes = ucc::coll::kSegmentAuto;
    const uint64_t members = ucc::cost::segment_for(*dbt, a, 61, p);
    a.inplace = true;
    EXPECT_EQ(ucc::cost::segment_for(*dbt, a, 61, p), members);
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_REDUCE;
    s.alg = "dbt";
    s.dt = UCC_DT_FLOAT32;
    s.count = 16384;
    s.n = 61;
    s.root = 3;
    s.inplace = true;
    s.network = spec;
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_EQ(o.failure, "") << ucc::testkit::describe(s);
}
