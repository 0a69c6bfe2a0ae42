// alltoallv hybrid: small blocks through Bruck's rounds, large ones directly,
// byte for byte against the model whichever way each block goes, and the
// reference's ALLTOALLV_HYBRID_* variables change the route, never the
// result.
#include <gtest/gtest.h>

#include <cstdlib>

#include "lib/coll/alltoallv/alltoallv.h"
#include "tests/common/scenario.h"
#include "tests/common/scoped_env.h"

using ucc::testkit::Scenario;
using ucc::testkit::ScopedEnv;

namespace {

ucc::testkit::Outcome run_ok(const Scenario &s) {
    ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
    return o;
}

Scenario hybrid(uint32_t n, uint64_t count) {
    Scenario s;
    s.type = UCC_COLL_TYPE_ALLTOALLV;
    s.alg = "hybrid";
    s.n = n;
    s.count = count;
    s.seed = n * 13 + count;
    s.value_seed = 5 + count;
    return s;
}

}  // namespace

// Blocks of 0..count int32 (zeros included): up to 4 bytes, up to 1.2 KiB
// (all below the limit), and up to 2.8 KiB (both ways in one collective), on
// teams of every shape, in place or not, 32- and 64-bit arrays, re-posted.
TEST(AlltoallvHybrid, EveryBlockEitherWay) {
    for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 16u, 17u, 31u}) {
        for (uint64_t count : {0ull, 1ull, 300ull, 700ull}) {
            for (bool inplace : {false, true}) {
                Scenario s = hybrid(n, count);
                s.inplace = inplace;
                s.wide_counts = (n + count) % 2 == 0;
                s.wide_displs = (n + count) % 3 == 0;
                s.posts = n % 3 == 0 ? 2 : 1;
                s.skew_ps = n % 2 == 0 ? 3'000'000 : 0;
                run_ok(s);
            }
        }
    }
}

// The limit: BUFF_SIZE split in its parts among a round's blocks, and below
// 1,250 bytes.
TEST(AlltoallvHybrid, TheBlockLimitFollowsTheSettings) {
    ucc::coll::Args a;
    EXPECT_EQ(ucc::coll::hybrid_block_limit(a, 2), 1249u);
    EXPECT_EQ(ucc::coll::hybrid_block_limit(a, 1024), 256u * 1024 / 4 / 512);
    EXPECT_EQ(ucc::coll::hybrid_block_limit(a, 1025), 256u * 1024 / 4 / 513);
    ucc::coll::HybridSettings h;
    h.buff_bytes = 4096;
    h.scratch_sends = 0;
    h.scratch_recvs = 0;  // no parts: one
    a.hybrid = &h;
    EXPECT_EQ(ucc::coll::hybrid_block_limit(a, 8), 1024u);
    h.scratch_recvs = 7;
    EXPECT_EQ(ucc::coll::hybrid_block_limit(a, 8), 4096u / 7 / 4);
}

// Every block direct (a scratch of one byte), or every non-empty one through
// the rounds (no bound but 1,250 bytes, blocks of at most 1,200): other
// messages, the same result; and the direct exchanges one at a time or
// several.
TEST(AlltoallvHybrid, TheVariablesChangeTheRouteNotTheResult) {
    Scenario s = hybrid(11, 300);
    const uint64_t plain = run_ok(s).run.trace_hash;
    uint64_t direct = 0;
    {
        ScopedEnv v("UCC_TL_UCP_ALLTOALLV_HYBRID_BUFF_SIZE", "1");
        direct = run_ok(s).run.trace_hash;
        EXPECT_NE(direct, plain);
        {
            ScopedEnv one("UCC_TL_UCP_ALLTOALLV_HYBRID_PAIRWISE_NUM_POSTS", "1");
            EXPECT_NE(run_ok(s).run.trace_hash, direct);
        }
        {
            ScopedEnv zero("UCC_ALLTOALLV_HYBRID_PAIRWISE_NUM_POSTS", "0");  // as 1
            ScopedEnv chunk("UCC_ALLTOALLV_HYBRID_CHUNK_BYTE_LIMIT", "inf");
            run_ok(s);
        }
    }
    {
        ScopedEnv v("UCC_ALLTOALLV_HYBRID_BUFF_SIZE", "inf");
        EXPECT_EQ(run_ok(s).run.trace_hash, plain);  // 11 ranks: the limit was 1,249 already
        s.count = 1000;                              // blocks up to 4,000 bytes
        run_ok(s);
    }
}

// The reference's id of hybrid in a TUNE string, and its name, run it.
TEST(AlltoallvHybrid, TheReferencesTuneStringsRunIt) {
    Scenario s = hybrid(6, 700);
    const uint64_t named = run_ok(s).run.trace_hash;
    s.alg = "auto";
    const uint64_t plain = run_ok(s).run.trace_hash;
    EXPECT_NE(plain, named);
    ScopedEnv v("UCC_TL_UCP_TUNE", "alltoallv:0-inf:@1");
    EXPECT_EQ(run_ok(s).run.trace_hash, named);
}
