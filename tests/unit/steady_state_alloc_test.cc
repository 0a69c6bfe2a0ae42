// A collective in steady state allocates nothing: re-posting a persistent
// request takes its coroutine frames, transfers and request lists from the
// context's pool and its scratch from the request (lib/util/pool.h). Checked
// by counting operator new calls (the library's C++ allocations) while two
// UCX contexts of this process run collectives against each other; and the
// pieces underneath (Pool, SmallVector, frames from a FrameSource) directly.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "lib/util/pool.h"
#include "lib/util/small_vector.h"
#include "lib/util/task.h"
#include "tests/common/inproc_world.h"
#include "ucc/api/ucc.h"

namespace {
std::atomic<uint64_t> g_news{0};
}  // namespace

// Replaces the global allocation functions of this test binary to count them.
void *operator new(size_t n) {
    g_news.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(n == 0 ? 1 : n)) {
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, size_t) noexcept {
    std::free(p);
}
// The nothrow and array forms too: left to the runtime they would allocate
// with ASan's operator new and free here (std::stable_sort's temporary
// buffer does), which ASan reports as a mismatch.
void *operator new(size_t n, const std::nothrow_t &) noexcept {
    g_news.fetch_add(1, std::memory_order_relaxed);
    return std::malloc(n == 0 ? 1 : n);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
    std::free(p);
}
void *operator new[](size_t n) {
    return ::operator new(n);
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept {
    return ::operator new(n, t);
}
void operator delete[](void *p) noexcept {
    std::free(p);
}
void operator delete[](void *p, size_t) noexcept {
    std::free(p);
}

namespace ucc {
namespace {

TEST(Pool, ReusesBlocksOfAClassAndKeepsAtMostKKeep) {
    Pool pool;
    void *a = pool.allocate(100);  // the 128-byte class
    pool.deallocate(a, 100);
    EXPECT_EQ(pool.kept(), 1u);
    EXPECT_EQ(pool.allocate(120), a);  // same class: the same block back
    EXPECT_EQ(pool.kept(), 0u);
    pool.deallocate(a, 120);
    void *b = pool.allocate(200);  // another class
    EXPECT_NE(b, a);
    pool.deallocate(b, 200);
    std::vector<void *> many;
    for (uint32_t i = 0; i < Pool::kKeep + 10; ++i) {
        many.push_back(pool.allocate(64));
    }
    for (void *p : many) {
        pool.deallocate(p, 64);
    }
    EXPECT_EQ(pool.kept(), Pool::kKeep + 2);  // 64 kept of 64 B's class, a and b
    void *big = pool.allocate(Pool::block_bytes(Pool::kClasses - 1) + 1);
    pool.deallocate(big, Pool::block_bytes(Pool::kClasses - 1) + 1);
    EXPECT_EQ(pool.kept(), Pool::kKeep + 2);  // beyond the classes: the heap's
    EXPECT_EQ(Pool::size_class(1), 0u);
    EXPECT_EQ(Pool::size_class(Pool::kStep), 0u);
    EXPECT_EQ(Pool::size_class(Pool::kStep + 1), 1u);
    EXPECT_EQ(Pool::size_class(1024), Pool::kFine - 1);
    EXPECT_EQ(Pool::size_class(1025), Pool::kFine);
    EXPECT_EQ(Pool::size_class(4096), Pool::kClasses - 1);
    EXPECT_EQ(Pool::size_class(4097), Pool::kClasses);
    EXPECT_EQ(Pool::size_class(1280), Pool::kFine);
    EXPECT_EQ(Pool::size_class(1281), Pool::kFine + 1);
    // Every size fits its class, with under 64 B to spare up to 1 KiB and
    // under 256 B up to 2 KiB.
    for (size_t b = 1; b <= 4096; ++b) {
        const size_t c = Pool::size_class(b);
        ASSERT_GE(Pool::block_bytes(c), b);
        ASSERT_TRUE(c == 0 || Pool::block_bytes(c - 1) < b) << b;
        if (b <= 1024) {
            ASSERT_LT(Pool::block_bytes(c) - b, Pool::kStep) << b;
        } else if (b <= 2048) {
            ASSERT_LT(Pool::block_bytes(c) - b, 256u) << b;
        }
    }
}

// The room a pool reserves serves its first blocks in order (a context's
// first request, frames and transfers, side by side), its blocks come back
// to its free lists like any other, and it goes back to the heap with the
// pool's release, or with its last block when one outlives the release.
TEST(Pool, ReservedRoomServesTheFirstBlocksInOrder) {
    Pool pool;
    pool.reserve(1024);
    auto *a = static_cast<char *>(pool.allocate(100));  // a 128-byte block
    auto *b = static_cast<char *>(pool.allocate(200));  // 256
    EXPECT_EQ(b, a + 128);
    void *c = pool.allocate(1000);  // 640 bytes left: from the heap
    EXPECT_TRUE(static_cast<char *>(c) < a || static_cast<char *>(c) >= a + 1024);
    auto *d = static_cast<char *>(pool.allocate(64));
    EXPECT_EQ(d, b + Pool::block_bytes(Pool::size_class(200)));
    pool.deallocate(a, 100);
    EXPECT_EQ(pool.allocate(128), a);  // back from the free list
    pool.deallocate(a, 128);
    pool.deallocate(c, 1000);
    pool.deallocate(d, 64);
    pool.release();  // b is still out: the room stays until it comes back
    b[199] = 1;
    pool.deallocate(b, 200);
    void *e = pool.allocate(64);  // after a release: the heap
    pool.deallocate(e, 64);
    pool.release();
    // Blocks that remember their pool.
    Pool other;
    other.reserve(512);
    void *f = Pool::allocate_in(&other, 100);
    void *g = Pool::allocate_in(nullptr, 100);
    Pool::deallocate_in(f, 100);
    Pool::deallocate_in(g, 100);
    EXPECT_EQ(other.kept(), 1u);
}

TEST(SmallVector, KeepsValuesInlineThenOnTheHeap) {
    SmallVector<uint32_t, 4> v;
    EXPECT_TRUE(v.empty());
    for (uint32_t i = 0; i < 4; ++i) {
        v.push_back(i * 10);
    }
    const uint32_t *inline_data = v.data();
    for (uint32_t i = 4; i < 37; ++i) {
        v.push_back(i * 10);
    }
    EXPECT_NE(v.data(), inline_data);
    ASSERT_EQ(v.size(), 37u);
    SmallVector<uint32_t, 4> copy = v;
    for (uint32_t i = 0; i < 37; ++i) {
        EXPECT_EQ(v[i], i * 10);
        EXPECT_EQ(copy[i], i * 10);
    }
    uint32_t sum = 0;
    for (uint32_t x : copy) {
        sum += x;
    }
    EXPECT_EQ(sum, 10u * 36 * 37 / 2);
}

struct Source : FrameSource {};

Task count_to(Source &src, int n, int *out) {
    (void)src;
    for (int i = 0; i < n; ++i) {
        ++*out;
    }
    co_return UCC_OK;
}

TEST(Frames, ComeFromTheSourcesPoolAndGoBackToIt) {
    Pool pool;
    Source src;
    src.frame_pool = &pool;
    int n = 0;
    {
        Task t = count_to(src, 3, &n);
        t.start(nullptr);
        EXPECT_TRUE(t.done());
    }
    EXPECT_EQ(n, 3);
    ASSERT_EQ(pool.kept(), 1u);  // the frame, back on its free list
    const uint64_t before = g_news.load();
    {
        Task t = count_to(src, 2, &n);
        t.start(nullptr);
    }
    EXPECT_EQ(g_news.load(), before);  // the second frame reused the first's block
    EXPECT_EQ(n, 5);
    src.frame_pool = nullptr;  // no pool: the heap
    {
        Task t = count_to(src, 1, &n);
        t.start(nullptr);
    }
    EXPECT_EQ(g_news.load(), before + 1);
}

#ifdef UCC_WITH_UCX

TEST(SteadyState, PersistentCollectivesOverUcxAllocateNothing) {
    constexpr uint32_t kRanks = 2;
    testkit::InprocWorld world(kRanks);
    ASSERT_EQ(world.open(), "");
    std::vector<testkit::InprocRank> &ranks = world.ranks();
    struct Case {
        ucc_coll_type_t type;
        uint64_t count;  // float32 elements per block
    };
    // Small and rendezvous-sized messages (tag matching without a posted
    // receive, UCX requests, scratch).
    const Case cases[] = {
        {UCC_COLL_TYPE_BARRIER, 0},         {UCC_COLL_TYPE_ALLREDUCE, 2},
        {UCC_COLL_TYPE_ALLREDUCE, 1 << 16}, {UCC_COLL_TYPE_BCAST, 2},
        {UCC_COLL_TYPE_BCAST, 1 << 16},     {UCC_COLL_TYPE_ALLGATHER, 2},
        {UCC_COLL_TYPE_ALLTOALL, 2},        {UCC_COLL_TYPE_REDUCE_SCATTER, 2},
        {UCC_COLL_TYPE_REDUCE, 2},          {UCC_COLL_TYPE_GATHER, 2},
        {UCC_COLL_TYPE_SCATTER, 2},         {UCC_COLL_TYPE_FANIN, 0},
        {UCC_COLL_TYPE_FANOUT, 0},
    };
    for (const Case &c : cases) {
        std::vector<std::vector<float>> src(kRanks, std::vector<float>(c.count * kRanks + 1, 1));
        std::vector<std::vector<float>> dst(kRanks, std::vector<float>(c.count * kRanks + 1, 0));
        std::vector<ucc_coll_req_h> reqs(kRanks);
        for (uint32_t r = 0; r < kRanks; ++r) {
            ucc_coll_args_t a{};
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
            a.coll_type = c.type;
            a.op = UCC_OP_SUM;
            a.root = 0;
            uint64_t src_count = c.count;
            uint64_t dst_count = c.count;
            if (c.type == UCC_COLL_TYPE_ALLTOALL || c.type == UCC_COLL_TYPE_REDUCE_SCATTER ||
                c.type == UCC_COLL_TYPE_SCATTER) {
                src_count = c.count * kRanks;
            }
            if (c.type == UCC_COLL_TYPE_ALLGATHER || c.type == UCC_COLL_TYPE_ALLTOALL ||
                c.type == UCC_COLL_TYPE_GATHER) {
                dst_count = c.count * kRanks;
            }
            a.src.info = {src[r].data(), src_count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {dst[r].data(), dst_count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
            ASSERT_EQ(ucc_collective_init(&a, &reqs[r], ranks[r].team), UCC_OK)
                << "type " << c.type;
        }
        for (int i = 0; i < 20; ++i) {  // warm-up: endpoints, pools, UCX's own
            ASSERT_TRUE(world.run(reqs)) << "type " << c.type;
        }
        const uint64_t before = g_news.load();
        for (int i = 0; i < 200; ++i) {
            ASSERT_TRUE(world.run(reqs)) << "type " << c.type;
        }
        EXPECT_EQ(g_news.load() - before, 0u)
            << "type " << c.type << " count " << c.count << ": operator new calls in 200 re-posts";
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
        }
    }
}

#endif  // UCC_WITH_UCX

}  // namespace
}  // namespace ucc
