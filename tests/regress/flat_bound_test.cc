// The lower bound (lib/cost/bounds.cc) told a flat network's ranks over the
// link within a node, which such a network does not have (a rank per node):
// 16 ranks of hdr,ppn=1 in 2.0 us, where one message between nodes takes
// 1.7 and the greedy tree needs two hops. It now takes the link a team's
// pairs have, and across nodes also the greedy tree over the nodes; and a
// bcast, reduce or allreduce whose bytes go through the root's port pays
// them before the last byte's broadcast. Every algorithm the simulator runs
// still takes at least the bound.
#include <gtest/gtest.h>

#include <string>

#include "lib/coll/algorithms.h"
#include "lib/core/core.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "tests/common/scenario.h"

namespace {

ucc::cost::Params params_of(const char *spec) {
    ucc::net::NetworkModel net;
    EXPECT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    return ucc::net::cost_params(net);
}

ucc::coll::Args args_of(ucc_coll_type_t type, uint64_t count) {
    ucc::coll::Args a;
    a.type = type;
    a.count = count;
    a.esize = 4;
    return a;
}

// Every flat two-sided algorithm of `type` on n ranks of `network` takes at
// least the bound; returns how many ran.
int all_above_the_bound(ucc_coll_type_t type, std::span<const ucc::coll::Algorithm> algs,
                        uint32_t n, uint64_t count, const char *network) {
    const ucc::cost::Params p = params_of(network);
    const double bound = ucc::cost::lower_bound(args_of(type, count), n, p);
    int ran = 0;
    for (const ucc::coll::Algorithm &alg : algs) {
        if (alg.onesided || alg.hierarchical) {
            continue;
        }
        ucc::testkit::Scenario s;
        s.type = type;
        s.alg = alg.name;
        s.n = n;
        s.count = count;
        s.network = network;
        const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
        if (o.failure.find("NOT_SUPPORTED") != std::string::npos ||
            o.failure.find("not supported") != std::string::npos) {
            continue;
        }
        EXPECT_EQ(o.failure, "") << ucc::testkit::describe(s);
        EXPECT_GE(o.span_s(), bound * 0.999) << ucc::testkit::describe(s);
        ++ran;
    }
    return ran;
}

}  // namespace

TEST(Regress, FlatNetworksBoundTakesTheLinkBetweenNodes) {
    const ucc::coll::Args a = args_of(UCC_COLL_TYPE_ALLREDUCE, 2);
    const ucc::cost::Params flat = params_of("hdr,ppn=1,jitter=0");
    const double hop = ucc::cost::lower_bound(a, 2, flat) - flat.o_call;
    ASSERT_GT(hop, 0);
    // 16 ranks, one message between nodes every 0.2 us: more than one hop.
    EXPECT_GE(ucc::cost::lower_bound(a, 16, flat) - flat.o_call, 2 * hop * 0.999);
    // One node of 16: the link within it is faster.
    const ucc::cost::Params node = params_of("hdr,ppn=16,jitter=0");
    EXPECT_LT(ucc::cost::lower_bound(a, 16, node), ucc::cost::lower_bound(a, 16, flat));
}

TEST(Regress, NoAlgorithmBeatsTheLowerBound) {
    for (const char *net : {"hdr,ppn=1,jitter=0", "hdr,ppn=8,jitter=0"}) {
        for (uint32_t n : {16u, 61u}) {
            for (uint64_t count : {uint64_t{2}, uint64_t{16} << 10}) {  // 8 B and 64 KiB
                if (count > 2 && n > 16) {
                    continue;  // a second of simulation each
                }
                SCOPED_TRACE(std::string(net) + " n=" + std::to_string(n) +
                             " count=" + std::to_string(count));
                EXPECT_GT(all_above_the_bound(UCC_COLL_TYPE_ALLREDUCE,
                                              ucc::coll::allreduce_algorithms(), n, count, net),
                          2);
                EXPECT_GT(all_above_the_bound(UCC_COLL_TYPE_BCAST, ucc::coll::bcast_algorithms(), n,
                                              count, net),
                          2);
                EXPECT_GT(all_above_the_bound(UCC_COLL_TYPE_REDUCE, ucc::coll::reduce_algorithms(),
                                              n, count, net),
                          2);
                EXPECT_GT(all_above_the_bound(UCC_COLL_TYPE_ALLGATHER,
                                              ucc::coll::allgather_algorithms(), n, count, net),
                          2);
            }
        }
    }
}
