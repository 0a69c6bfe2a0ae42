// Regression: a request's scratch buffers were allocated at every init and
// freed at every finalize. MPI through Open MPI's coll/ucc inits and finalizes
// a request per call: a 1 MiB MPI_Reduce at np 2 took 6-18 ms per call over
// this library (0.1-0.35 ms over the reference), glibc trimming and regrowing
// its heap around each scratch buffer. A context now keeps finished requests'
// buffers (lib/coll/scratch.h); these tests hold the pool to its rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "lib/coll/scratch.h"

namespace {

using ucc::coll::ScratchCache;
using ucc::coll::ScratchPlan;
using ucc::coll::ScratchPool;

uint8_t *reserve_one(ScratchCache &c, size_t bytes) {
    ScratchPlan plan;
    plan.add(bytes);
    EXPECT_EQ(c.reserve(plan, false), UCC_OK);
    return c.get(0, bytes);
}

TEST(Regress, AFinalizedRequestsScratchServesTheNextInit) {
    ScratchPool pool;
    uint8_t *first = nullptr;
    {
        ScratchCache c;
        c.set_pool(&pool);
        first = reserve_one(c, 1 << 20);
        EXPECT_EQ(c.unplanned(), 0u);
    }
    EXPECT_EQ(pool.kept(), 1u);
    EXPECT_EQ(pool.kept_bytes(), size_t{1} << 20);
    ScratchCache next;
    next.set_pool(&pool);
    EXPECT_EQ(reserve_one(next, 1 << 20), first);  // the same buffer, no allocation
    EXPECT_EQ(pool.kept(), 0u);
}

TEST(Regress, ScratchPoolHandsOutTheSmallestBufferThatFits) {
    ScratchPool pool;
    pool.give(std::make_unique<uint8_t[]>(4096), 4096);
    pool.give(std::make_unique<uint8_t[]>(1024), 1024);
    pool.give(std::make_unique<uint8_t[]>(65536), 65536);
    size_t got = 0;
    EXPECT_NE(pool.take(2000, &got), nullptr);
    EXPECT_EQ(got, 4096u);
    EXPECT_EQ(pool.take(100000, &got), nullptr);  // nothing that large
    EXPECT_EQ(pool.kept(), 2u);
    EXPECT_EQ(pool.kept_bytes(), 1024u + 65536u);
}

TEST(Regress, ScratchPoolStaysWithinItsBounds) {
    ScratchPool pool;
    for (size_t i = 0; i < ScratchPool::kMaxBufs + 4; ++i) {
        pool.give(std::make_unique<uint8_t[]>(16 + i), 16 + i);
    }
    EXPECT_EQ(pool.kept(), ScratchPool::kMaxBufs);
    // A full pool evicts its smallest buffers for larger ones: 16..19 went
    // for 24..27.
    size_t got = 0;
    std::unique_ptr<uint8_t[]> b = pool.take(16, &got);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(got, 20u);
    pool.give(std::move(b), got);
    // And keeps what it has over a smaller one.
    pool.give(std::make_unique<uint8_t[]>(8), 8);
    EXPECT_EQ(pool.kept(), ScratchPool::kMaxBufs);
    EXPECT_NE(pool.take(1, &got), nullptr);
    EXPECT_EQ(got, 20u);
    // Never more than kMaxBytes, and never one buffer above it.
    const size_t big = ScratchPool::kMaxBytes / 2 + 1;
    pool.give(std::unique_ptr<uint8_t[]>(new uint8_t[big]), big);
    EXPECT_LE(pool.kept_bytes(), ScratchPool::kMaxBytes);
    pool.give(std::unique_ptr<uint8_t[]>(new uint8_t[big]), big);
    EXPECT_LE(pool.kept_bytes(), ScratchPool::kMaxBytes);
    EXPECT_NE(pool.take(big, &got), nullptr);
    const size_t huge = ScratchPool::kMaxBytes + 1;
    pool.give(std::unique_ptr<uint8_t[]>(new uint8_t[huge]), huge);
    EXPECT_EQ(pool.take(huge, &got), nullptr);
}

TEST(Regress, AClosedScratchPoolKeepsNothing) {
    ScratchPool pool;
    pool.give(std::make_unique<uint8_t[]>(4096), 4096);
    pool.close();
    EXPECT_EQ(pool.kept(), 0u);
    EXPECT_EQ(pool.kept_bytes(), 0u);
    {
        ScratchCache c;  // a request finalized after its context was destroyed
        c.set_pool(&pool);
        reserve_one(c, 4096);
    }
    EXPECT_EQ(pool.kept(), 0u);
}

}  // namespace
