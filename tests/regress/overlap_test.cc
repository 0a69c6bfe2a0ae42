// Overlapping src and dst (CONFORMANCE P26, model/VALIDITY.md V12): without
// IN_PLACE, a collective whose src and dst bytes overlap is rejected with
// UCC_ERR_INVALID_PARAM rather than run into wrong output; an allreduce whose
// src and dst are exactly the same bytes runs in place, with the right result
// on every algorithm (before V12 an algorithm gave wrong output for it: the
// regression test of that bug).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "tests/common/scenario.h"
#include "tools/perf/lifecycle.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

constexpr uint32_t kRanks = 5;

// Runs `body(rank, team)` on every rank of a simulated team of kRanks.
template <class Body>
void on_team(const std::string &allreduce_alg, Body body) {
    ucc::sim::ClusterParams p;
    p.n_ranks = kRanks;
    std::string err;
    // The in-network allreduce needs switches that reduce and one rank per node.
    const char *network = allreduce_alg == "sharp" ? "hdr,ppn=1,sharp_lat=2us" : "hdr";
    ASSERT_EQ(ucc::net::parse_network(network, &p.net, &err), UCC_OK);
    const ucc::sim::RunResult res = ucc::sim::run(p, [&](uint32_t rank) {
        ucc::testkit::EnvParams ep;
        ep.alg = allreduce_alg;
        ep.log_level = "FATAL";  // the rejections log errors by design
        ucc::testkit::RankEnv env;
        const std::string e = ucc::testkit::setup(ep, rank, kRanks, &env);
        EXPECT_EQ(e, "");
        if (e.empty()) {
            body(rank, env);
        }
        EXPECT_EQ(ucc::testkit::teardown(&env), "");
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

ucc_status_t run_coll(ucc_coll_args_t &args, const ucc::testkit::RankEnv &env) {
    return ucc::perf::run_collective(&args, env.team, env.ctx);
}

TEST(Overlap, AllreduceWithSrcEqualToDstRunsInPlaceOnEveryAlgorithm) {
    for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(UCC_COLL_TYPE_ALLREDUCE)) {
        for (uint64_t count : {1u, 7u, 1000u}) {
            on_team(alg.name, [&](uint32_t rank, const ucc::testkit::RankEnv &env) {
                std::vector<int32_t> buf(count);
                for (uint64_t i = 0; i < count; ++i) {
                    buf[i] = static_cast<int32_t>(rank * 1000 + i);
                }
                ucc_coll_args_t a{};
                a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
                a.op = UCC_OP_SUM;
                a.src.info = {buf.data(), count, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
                a.dst.info = a.src.info;  // the same bytes, no IN_PLACE flag
                ASSERT_EQ(run_coll(a, env), UCC_OK) << alg.name;
                for (uint64_t i = 0; i < count; ++i) {
                    // sum over r of (r * 1000 + i)
                    const int64_t want = 1000 * (kRanks * (kRanks - 1) / 2) + kRanks * i;
                    ASSERT_EQ(buf[i], want) << alg.name << " count " << count << " index " << i;
                }
            });
        }
    }
}

TEST(Overlap, OverlappingBuffersWithoutInPlaceAreRejected) {
    on_team("", [&](uint32_t rank, const ucc::testkit::RankEnv &env) {
        std::vector<int32_t> mem(4 * kRanks * 8, static_cast<int32_t>(rank));
        // Allreduce: dst starts one element into src.
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {mem.data(), 8, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {mem.data() + 1, 8, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        EXPECT_EQ(run_coll(a, env), UCC_ERR_INVALID_PARAM);
        // Alltoall with src and dst the same bytes: not an allreduce, so rejected.
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_ALLTOALL;
        b.src.info = {mem.data(), kRanks * 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        b.dst.info = b.src.info;
        EXPECT_EQ(run_coll(b, env), UCC_ERR_INVALID_PARAM);
        // Allgather: src is this rank's block inside dst (use IN_PLACE for that).
        ucc_coll_args_t c{};
        c.coll_type = UCC_COLL_TYPE_ALLGATHER;
        c.src.info = {mem.data() + 2 * rank, 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        c.dst.info = {mem.data(), kRanks * 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        EXPECT_EQ(run_coll(c, env), UCC_ERR_INVALID_PARAM);
        // Adjacent, not overlapping: accepted and correct.
        ucc_coll_args_t d{};
        d.coll_type = UCC_COLL_TYPE_ALLGATHER;
        d.src.info = {mem.data() + kRanks * 2, 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        d.dst.info = {mem.data(), kRanks * 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        EXPECT_EQ(run_coll(d, env), UCC_OK);
        for (uint32_t r = 0; r < kRanks; ++r) {
            EXPECT_EQ(mem[2 * r], static_cast<int32_t>(r));
        }
        // Allgatherv whose src lies in a gap between dst's blocks: accepted.
        std::vector<int32_t> v(4 * kRanks, -1);
        std::vector<uint32_t> counts(kRanks, 2), displs(kRanks);
        for (uint32_t r = 0; r < kRanks; ++r) {
            displs[r] = 4 * r;  // blocks at 4r, 4r + 1; gaps at 4r + 2, 4r + 3
        }
        v[4 * rank + 2] = static_cast<int32_t>(rank * 10);
        v[4 * rank + 3] = static_cast<int32_t>(rank * 10 + 1);
        ucc_coll_args_t g{};
        g.coll_type = UCC_COLL_TYPE_ALLGATHERV;
        g.src.info = {v.data() + 4 * rank + 2, 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        // 32-bit arrays (no COUNT_64BIT / DISPLACEMENTS_64BIT flags).
        g.dst.info_v = {v.data(), reinterpret_cast<ucc_count_t *>(counts.data()),
                        reinterpret_cast<ucc_aint_t *>(displs.data()), UCC_DT_INT32,
                        UCC_MEMORY_TYPE_HOST};
        EXPECT_EQ(run_coll(g, env), UCC_OK);
        for (uint32_t r = 0; r < kRanks; ++r) {
            EXPECT_EQ(v[4 * r], static_cast<int32_t>(r * 10));
            EXPECT_EQ(v[4 * r + 1], static_cast<int32_t>(r * 10 + 1));
        }
        // ... but not one that meets a block.
        g.src.info.buffer = v.data() + 4 * ((rank + 1) % kRanks) + 1;
        EXPECT_EQ(run_coll(g, env), UCC_ERR_INVALID_PARAM);
    });
}

}  // namespace
