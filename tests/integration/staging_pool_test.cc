// The staging pool (lib/core/staging_pool.h) over the fake CUDA component:
// pinned buffers come back in power-of-two capacities and are reused, kept
// up to the idle limit (a buffer past it, or larger than it, is freed), and
// streams are kept per device up to their limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "lib/core/staging_pool.h"
#include "tests/common/fake_device.h"

namespace {

using ucc::core::StagingPool;

TEST(StagingPool, BuffersComeBackInPowersOfTwoAndAreReused) {
    ucc::testkit::FakeDevice dev;
    ASSERT_NE(dev.ops(), nullptr);
    StagingPool pool(dev.ops());
    const uint64_t pinned = dev.stats()[1];
    void *a = nullptr, *b = nullptr, *c = nullptr;
    uint64_t ca = 0, cb = 0, cc = 0;
    ASSERT_EQ(pool.take_buffer(5000, &a, &ca), 0);
    EXPECT_EQ(ca, 8192u);
    pool.give_buffer(a, ca);
    ASSERT_EQ(pool.take_buffer(6000, &b, &cb), 0);  // the same class: the same buffer
    EXPECT_EQ(b, a);
    EXPECT_EQ(cb, 8192u);
    ASSERT_EQ(pool.take_buffer(100, &c, &cc), 0);  // the smallest class, a new one
    EXPECT_EQ(cc, StagingPool::kMinCapacity);
    EXPECT_NE(c, a);
    EXPECT_EQ(dev.stats()[1] - pinned, 2u);
    const StagingPool::Stats s = pool.stats();
    EXPECT_EQ(s.buffers_made, 2u);
    EXPECT_EQ(s.buffers_reused, 1u);
    pool.give_buffer(b, cb);
    pool.give_buffer(c, cc);
    EXPECT_EQ(pool.stats().idle_bytes, 8192u + StagingPool::kMinCapacity);
}

TEST(StagingPool, IdleBuffersAreBounded) {
    ucc::testkit::FakeDevice dev;
    ASSERT_NE(dev.ops(), nullptr);
    StagingPool pool(dev.ops());
    const uint64_t half = StagingPool::kMaxIdleBytes / 2;
    std::vector<void *> p(3, nullptr);
    std::vector<uint64_t> cap(3, 0);
    ASSERT_EQ(pool.take_buffer(half, &p[0], &cap[0]), 0);
    ASSERT_EQ(pool.take_buffer(half, &p[1], &cap[1]), 0);
    ASSERT_EQ(pool.take_buffer(4096, &p[2], &cap[2]), 0);
    for (int i = 0; i < 3; ++i) {
        pool.give_buffer(p[i], cap[i]);
    }
    EXPECT_EQ(pool.stats().idle_bytes, StagingPool::kMaxIdleBytes);  // the small one freed
    // Larger than the limit: allocated to its size, never kept.
    void *big = nullptr;
    uint64_t big_cap = 0;
    ASSERT_EQ(pool.take_buffer(StagingPool::kMaxIdleBytes + 1, &big, &big_cap), 0);
    EXPECT_EQ(big_cap, StagingPool::kMaxIdleBytes + 1);
    pool.give_buffer(big, big_cap);
    EXPECT_EQ(pool.stats().idle_bytes, StagingPool::kMaxIdleBytes);
}

TEST(StagingPool, StreamsAreKeptUpToTheirLimit) {
    ucc::testkit::FakeDevice dev;
    ASSERT_NE(dev.ops(), nullptr);
    StagingPool pool(dev.ops());
    const uint64_t made = dev.stats()[4];
    const size_t n = StagingPool::kMaxIdleStreams + 1;
    std::vector<void *> s(n, nullptr);
    std::vector<int> device(n, -2);
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(pool.take_stream(&s[i], &device[i]), 0);
        EXPECT_EQ(device[i], 0);  // the fake's current device
    }
    for (size_t i = 0; i < n; ++i) {
        pool.give_stream(s[i], device[i]);  // the last one destroyed
    }
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(pool.take_stream(&s[i], &device[i]), 0);
    }
    EXPECT_EQ(dev.stats()[4] - made, n + 1);
    EXPECT_EQ(pool.stats().streams_reused, StagingPool::kMaxIdleStreams);
    for (size_t i = 0; i < n; ++i) {
        pool.give_stream(s[i], device[i]);
    }
}

}  // namespace
