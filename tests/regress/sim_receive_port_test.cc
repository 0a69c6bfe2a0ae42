// The simulator charged a message's bytes at its sender's port only: a rank
// that many ranks sent to at once took all their bytes in at the same time,
// so a linear gather of 256 KiB blocks on 16 ranks took 13 us where the
// root's link alone needs 164 (15 blocks at 24 GB/s), below the lower bound
// of lib/cost/bounds.cc. A rank's port now takes in one message at a time
// (LogGP's g and G at the receiving end). With it, node_split's order across
// nodes (every rank of a node sending to the same rank first) made each
// receiver take a node's blocks at once; it now spreads them.
#include <gtest/gtest.h>

#include "lib/coll/algorithms.h"
#include "lib/core/core.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"
#include "tests/common/scenario.h"

namespace {

ucc::cost::Params params_of(const char *spec) {
    ucc::net::NetworkModel net;
    EXPECT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    return ucc::net::cost_params(net);
}

}  // namespace

TEST(Regress, ARanksPortTakesInOneMessageAtATime) {
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_GATHER;
    s.alg = "linear";
    s.n = 16;
    s.count = 64u << 10;  // 256 KiB of int32 per rank
    s.network = "hdr,ppn=1,jitter=0";
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    ASSERT_EQ(o.failure, "") << ucc::testkit::describe(s);
    const double port = 15 * (256.0 * 1024) / 24e9;  // the root's link, 15 blocks
    EXPECT_GE(o.span_s(), port);
    EXPECT_LE(o.span_s(), port * 1.1);
    // The lower bound holds, and the formula predicts it.
    const ucc::cost::Params p = params_of(s.network.c_str());
    ucc::coll::Args a;
    a.type = s.type;
    a.count = s.count;
    a.esize = 4;
    EXPECT_GE(o.span_s(), ucc::cost::lower_bound(a, s.n, p) * 0.99);
    const ucc::coll::Algorithm *alg = ucc::select::resolve_alg(s.type, "linear");
    ASSERT_NE(alg, nullptr);
    EXPECT_NEAR(ucc::cost::predict(*alg, a, s.n, p) / o.span_s(), 1.0, 0.05);
}

TEST(Regress, NodeSplitSpreadsItsBlocksAcrossTheReceivers) {
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_ALLTOALL;
    s.alg = "node_split";
    s.n = 8;
    s.count = 16u << 10;  // 64 KiB blocks
    s.network = "hdr,ppn=4,jitter=0";
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    ASSERT_EQ(o.failure, "") << ucc::testkit::describe(s);
    ucc::coll::Args a;
    a.type = s.type;
    a.count = s.count;
    a.esize = 4;
    const ucc::coll::Algorithm *alg = ucc::select::resolve_alg(s.type, "node_split");
    ASSERT_NE(alg, nullptr);
    // Every rank of a node sending to the same rank first: 1.6 times this.
    EXPECT_NEAR(ucc::cost::predict(*alg, a, s.n, params_of(s.network.c_str())) / o.span_s(), 1.0,
                0.15);
}
