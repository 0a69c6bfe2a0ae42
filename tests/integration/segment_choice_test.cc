// BCAST_SEGMENT, REDUCE_SEGMENT and REDUCE_CHUNK "auto" (the default): a
// pipelined tree (dbt) or the allreduce ring runs with the segment (the
// ring: chunk) of the cheapest prediction on the team's network (lib/cost:
// segment_for), a set value wins, and what the simulator runs with auto is
// what it runs with that segment set.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "lib/coll/algorithms.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"
#include "tests/common/scenario.h"

namespace {

const ucc::coll::Algorithm *find(ucc_coll_type_t t, const char *name) {
    return ucc::select::resolve_alg(t, name);
}

ucc::cost::Params params(const char *spec) {
    ucc::net::NetworkModel net;
    EXPECT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    return ucc::net::cost_params(net);
}

ucc::coll::Args args(ucc_coll_type_t t, uint64_t bytes, uint64_t segment) {
    ucc::coll::Args a;
    a.type = t;
    a.dt = UCC_DT_FLOAT32;
    a.esize = 4;
    a.count = bytes / 4;
    a.segment_bytes = segment;
    return a;
}

// Seconds from the last post to the last completion.
double simulated(const ucc::testkit::Scenario &s) {
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_EQ(o.failure, "") << ucc::testkit::describe(s);
    return o.failure.empty() ? o.span_s() : 0;
}

}  // namespace

TEST(SegmentChoice, TheCheapestPredictedOfTheCandidates) {
    uint32_t smaller = 0;
    for (const char *spec : {"hdr,ppn=1", "hdr,ppn=8"}) {
        const ucc::cost::Params p = params(spec);
        for (auto [t, name] :
             {std::pair{UCC_COLL_TYPE_BCAST, "dbt"}, std::pair{UCC_COLL_TYPE_REDUCE, "dbt"},
              std::pair{UCC_COLL_TYPE_ALLREDUCE, "ring"}}) {
            const ucc::coll::Algorithm *dbt = find(t, name);
            ASSERT_NE(dbt, nullptr);
            ASSERT_TRUE(ucc::cost::reads_segment(*dbt));
            for (uint32_t n : {7u, 61u, 256u}) {
                for (uint64_t bytes : {uint64_t{4} << 10, uint64_t{64} << 10, uint64_t{1} << 20,
                                       uint64_t{16} << 20}) {
                    const ucc::coll::Args a = args(t, bytes, ucc::coll::kSegmentAuto);
                    const uint64_t s = ucc::cost::segment_for(*dbt, a, n, p);
                    ASSERT_NE(s, ucc::coll::kSegmentAuto);
                    const double chosen = ucc::cost::predict(*dbt, args(t, bytes, s), n, p);
                    // What the selection compares (auto) is the chosen one's.
                    EXPECT_DOUBLE_EQ(ucc::cost::predict(*dbt, a, n, p), chosen);
                    for (uint64_t c = 1024; c <= (uint64_t{1} << 20); c *= 2) {
                        EXPECT_LE(chosen, ucc::cost::predict(*dbt, args(t, bytes, c), n, p))
                            << spec << " n=" << n << " bytes=" << bytes << " segment " << c;
                    }
                    smaller += s != 0 && s < (uint64_t{64} << 10) ? 1 : 0;
                }
            }
        }
    }
    EXPECT_GT(smaller, 0u);  // the default of 64K is not always the best
}

TEST(SegmentChoice, ASetValueWinsAndOtherAlgorithmsKeepAuto) {
    const ucc::cost::Params p = params("hdr,ppn=1");
    const ucc::coll::Algorithm *dbt = find(UCC_COLL_TYPE_REDUCE, "dbt");
    const ucc::coll::Algorithm *knomial = find(UCC_COLL_TYPE_REDUCE, "knomial");
    ASSERT_NE(dbt, nullptr);
    ASSERT_NE(knomial, nullptr);
    EXPECT_EQ(ucc::cost::segment_for(*dbt, args(UCC_COLL_TYPE_REDUCE, 65536, 65536), 61, p),
              65536u);
    EXPECT_EQ(ucc::cost::segment_for(*dbt, args(UCC_COLL_TYPE_REDUCE, 65536, 0), 61, p), 0u);
    EXPECT_FALSE(ucc::cost::reads_segment(*knomial));
    EXPECT_EQ(ucc::cost::segment_for(
                  *knomial, args(UCC_COLL_TYPE_REDUCE, 65536, ucc::coll::kSegmentAuto), 61, p),
              ucc::coll::kSegmentAuto);
}

// 64 KiB reduced over 61 ranks: one segment of the default 64K takes about
// four times as long as the chosen 4K; auto runs exactly the chosen one.
TEST(SegmentChoice, AutoRunsTheChosenSegment) {
    const char *spec = "hdr,ppn=1,jitter=0";
    const ucc::coll::Algorithm *dbt = find(UCC_COLL_TYPE_REDUCE, "dbt");
    ASSERT_NE(dbt, nullptr);
    const uint64_t chosen = ucc::cost::segment_for(
        *dbt, args(UCC_COLL_TYPE_REDUCE, 65536, ucc::coll::kSegmentAuto), 61, params(spec));
    ASSERT_LT(chosen, 65536u);
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_REDUCE;
    s.alg = "dbt";
    s.dt = UCC_DT_FLOAT32;
    s.count = 16384;
    s.n = 61;
    s.root = 5;
    s.network = spec;
    const double by_auto = simulated(s);
    s.segment = static_cast<int64_t>(chosen);
    const double by_set = simulated(s);
    s.segment = 65536;
    const double whole = simulated(s);
    EXPECT_DOUBLE_EQ(by_auto, by_set);
    EXPECT_GT(whole, 2 * by_auto);
}

// A 1 MiB allreduce ring on 2 ranks: the chosen chunk (64K) lets the
// allgather's chunks leave while the later ones are reduced; whole blocks
// (one chunk of 512K) take about 1.3 times as long. Auto runs exactly the
// chosen chunk.
TEST(SegmentChoice, TheRingRunsTheChosenChunk) {
    const char *spec = "hdr,ppn=1,jitter=0";
    const ucc::coll::Algorithm *ring = find(UCC_COLL_TYPE_ALLREDUCE, "ring");
    ASSERT_NE(ring, nullptr);
    const uint64_t chosen = ucc::cost::segment_for(
        *ring, args(UCC_COLL_TYPE_ALLREDUCE, 1 << 20, ucc::coll::kSegmentAuto), 2, params(spec));
    ASSERT_GT(chosen, 0u);
    ASSERT_LT(chosen, 512u << 10);
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_ALLREDUCE;
    s.alg = "ring";
    s.count = (1 << 20) / 4;  // int32, 4 bytes as args()'s float32
    s.n = 2;
    s.network = spec;
    const double by_auto = simulated(s);
    s.reduce_chunk = chosen;
    const double by_set = simulated(s);
    s.reduce_chunk = 512u << 10;
    const double whole = simulated(s);
    EXPECT_DOUBLE_EQ(by_auto, by_set);
    EXPECT_GT(whole, 1.2 * by_auto);
}
