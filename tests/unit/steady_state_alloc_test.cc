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
#include <thread>
#include <vector>

#include "lib/util/pool.h"
#include "lib/util/small_vector.h"
#include "lib/util/task.h"
#include "tests/common/inproc_oob.h"
#include "ucc/api/ucc.h"

namespace {
std::atomic<uint64_t> g_news{0};
}  // namespace

// GCC takes the replaced functions below for a malloc/delete mix where it
// inlines them; they are a matched pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#pragma GCC diagnostic ignored "-Wpragmas"

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
    EXPECT_EQ(pool.kept(), Pool::kKeep + 2);  // 64 kept of class 0, a and b
    void *big = pool.allocate(Pool::block_bytes(Pool::kClasses - 1) + 1);
    pool.deallocate(big, Pool::block_bytes(Pool::kClasses - 1) + 1);
    EXPECT_EQ(pool.kept(), Pool::kKeep + 2);  // beyond the classes: the heap's
    EXPECT_EQ(Pool::size_class(1), 0u);
    EXPECT_EQ(Pool::size_class(64), 0u);
    EXPECT_EQ(Pool::size_class(65), 1u);
    EXPECT_EQ(Pool::size_class(4096), Pool::kClasses - 1);
    EXPECT_EQ(Pool::size_class(4097), Pool::kClasses);
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

struct Rank {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    std::string error;
};

void open_rank(testkit::OobMember *member, Rank *r) {
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        r->error = "lib config";
        return;
    }
    ucc_status_t st = ucc_init(&lp, lcfg, &r->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        r->error = "ucc_init";
        return;
    }
    ucc_context_config_h cfg;
    ucc_context_config_read(r->lib, nullptr, &cfg);
    ucc_context_config_modify(cfg, nullptr, "TLS", "ucx");
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = testkit::inproc_oob(member);
    st = ucc_context_create(r->lib, &cp, cfg, &r->ctx);
    ucc_context_config_release(cfg);
    if (st != UCC_OK) {
        r->error = std::string("context: ") + ucc_status_string(st);
        return;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = member->rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_team_create_post(&r->ctx, 1, &tp, &r->team) != UCC_OK) {
        r->error = "team post";
        return;
    }
    for (int i = 0; i < 10'000'000; ++i) {
        st = ucc_team_create_test(r->team);
        if (st != UCC_INPROGRESS) {
            break;
        }
        ucc_context_progress(r->ctx);
    }
    if (st != UCC_OK) {
        r->error = std::string("team: ") + ucc_status_string(st);
    }
}

// Posts `req[i]` on every rank and drives both contexts until all completed.
bool run_once(std::vector<Rank> &ranks, std::vector<ucc_coll_req_h> &reqs) {
    for (ucc_coll_req_h q : reqs) {
        if (ucc_collective_post(q) != UCC_OK) {
            return false;
        }
    }
    for (int spin = 0; spin < 10'000'000; ++spin) {
        bool all = true;
        for (size_t i = 0; i < ranks.size(); ++i) {
            const ucc_status_t st = ucc_collective_test(reqs[i]);
            if (st < 0) {
                return false;
            }
            all &= st == UCC_OK;
            ucc_context_progress(ranks[i].ctx);
        }
        if (all) {
            return true;
        }
    }
    return false;
}

TEST(SteadyState, PersistentCollectivesOverUcxAllocateNothing) {
    constexpr uint32_t kRanks = 2;
    testkit::InprocOob oob(kRanks);
    std::vector<testkit::OobMember> members;
    for (uint32_t r = 0; r < kRanks; ++r) {
        members.push_back({&oob, r});
    }
    std::vector<Rank> ranks(kRanks);
    {
        std::vector<std::thread> threads;
        for (uint32_t r = 0; r < kRanks; ++r) {
            threads.emplace_back([&, r] { open_rank(&members[r], &ranks[r]); });
        }
        for (std::thread &t : threads) {
            t.join();
        }
    }
    for (const Rank &r : ranks) {
        ASSERT_EQ(r.error, "");
    }
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
            ASSERT_TRUE(run_once(ranks, reqs)) << "type " << c.type;
        }
        const uint64_t before = g_news.load();
        for (int i = 0; i < 200; ++i) {
            ASSERT_TRUE(run_once(ranks, reqs)) << "type " << c.type;
        }
        EXPECT_EQ(g_news.load() - before, 0u)
            << "type " << c.type << " count " << c.count << ": operator new calls in 200 re-posts";
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
        }
    }
    for (Rank &r : ranks) {
        for (int i = 0; i < 1'000'000 && ucc_team_destroy(r.team) == UCC_INPROGRESS; ++i) {
            for (Rank &o : ranks) {
                ucc_context_progress(o.ctx);
            }
        }
    }
    for (Rank &r : ranks) {
        EXPECT_EQ(ucc_context_destroy(r.ctx), UCC_OK);
        EXPECT_EQ(ucc_finalize(r.lib), UCC_OK);
    }
}

#endif  // UCC_WITH_UCX

}  // namespace
}  // namespace ucc
