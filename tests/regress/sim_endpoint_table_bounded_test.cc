// Found by tests/drift (P35): a simulated rank that makes and drops endpoints
// (one UCC context per cycle) grew the cluster's endpoint tables forever.
// Every endpoint after a rank's first took the next id n + k and a slot in two
// vectors (its pointer and its rank, 12 bytes) that were never given back,
// so that a stale id could still be mapped to its rank: 480 KB over 10,000
// cycles of 4 ranks. Now the k-th later endpoint of rank r has id n * k + r
// (its rank follows from the id, stale or not) and only live endpoints are
// kept (Cluster::create_endpoint, remove_endpoint).
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <memory>

#include "transports/sim/cluster.h"
#include "transports/sim/sim_transport.h"

namespace {

int64_t heap_in_use() {
    const struct mallinfo2 mi = mallinfo2();
    return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
}

TEST(Regress, SimEndpointsMadeAndDroppedKeepTheClusterTablesBounded) {
    constexpr uint32_t kRanks = 3;
    constexpr uint64_t kDrops = 50'000;
    ucc::sim::ClusterParams p;
    p.n_ranks = kRanks;
    int64_t growth[kRanks] = {};
    const ucc::sim::RunResult run = ucc::sim::run(p, [&growth](uint32_t r) {
        ucc::sim::Cluster *cl = ucc::sim::Cluster::current();
        auto first = ucc::sim::make_transport();  // id r, kept
        ASSERT_NE(first, nullptr);
        EXPECT_EQ(first->self(), r);
        uint64_t stale = 0;
        uint64_t misnumbered = 0;
        const int64_t before = heap_in_use();
        for (uint64_t k = 1; k <= kDrops; ++k) {
            stale = ucc::sim::make_transport()->self();
            misnumbered += stale != kRanks * k + r;
        }
        growth[r] = heap_in_use() - before;
        EXPECT_EQ(misnumbered, 0u);  // the k-th later endpoint of rank r is n * k + r
        // A dropped endpoint's id still names its rank and still resolves
        // (what is sent to it is dropped); an id never handed out does not.
        ucc::Peer peer = 0;
        EXPECT_EQ(cl->endpoint(stale), nullptr);
        EXPECT_EQ(cl->rank_of_endpoint(stale), r);
        EXPECT_EQ(first->resolve(&stale, &peer), UCC_OK);
        const uint64_t never = stale + kRanks;
        EXPECT_EQ(cl->rank_of_endpoint(never), ucc::sim::kNoRank);
        EXPECT_EQ(first->resolve(&never, &peer), UCC_ERR_NOT_FOUND);
    });
    ASSERT_EQ(run.status, UCC_OK) << run.report;
#if !defined(__SANITIZE_ADDRESS__)  // mallinfo2 does not see ASan's heap
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_LT(growth[r], 16 * 1024)
            << "rank " << r << ": " << kDrops << " endpoints made and dropped";
    }
#endif
}

}  // namespace
