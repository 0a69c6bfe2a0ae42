// Regression: a collective triggered on a CUDA stream let the stream's later
// work run (the gate's `done` word written) before the request's status was
// UCC_OK, so a kernel queued after it could read UCC_INPROGRESS. The status is
// now final before the stream goes on. The race is short; the test repeats it
// many times with the stream's wait reacting at once (the fake spins before it
// sleeps), and each kernel after the collective must see it complete.
#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

#include <cstdint>
#include <vector>

#include "tests/common/fake_device.h"
#include "tests/common/inproc_world.h"
#include "tests/common/scoped_env.h"

#if UCC_WITH_UCX

namespace {

constexpr size_t kCount = 64;
constexpr uint32_t kRanks = 3;
constexpr int kPerBatch = 50;
// The race needs many tries; the sanitizers' unoptimised build looks for
// memory errors on the path, which a few batches reach.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kBatches = 2;
#else
constexpr int kBatches = 20;
#endif

// A "kernel": the request's status when the stream reaches it.
struct StatusRead {
    ucc_coll_req_h req = nullptr;
    ucc_status_t then = UCC_OPERATION_INITIALIZED;
    static void run(void *p) {
        auto *s = static_cast<StatusRead *>(p);
        s->then = ucc_collective_test(s->req);
    }
};

TEST(Regress, StreamWorkAfterATriggeredCollectiveSeesItComplete) {
    ucc::testkit::ScopedEnv path{"UCC_COMPONENT_PATH", UCC_FAKE_CUDA_DIR};
    ucc::testkit::FakeDevice dev;
    ASSERT_NE(dev.ops(), nullptr);
    ucc::testkit::InprocWorld world{kRanks};
    ASSERT_EQ(world.open(), "");
    void *stream[kRanks] = {};
    ucc_ee_h ee[kRanks] = {};
    void *src[kRanks] = {};
    void *dst[kRanks] = {};
    for (uint32_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(dev.ops()->stream_create(&stream[r]), 0);
        ucc_ee_params_t p{};
        p.ee_type = UCC_EE_CUDA_STREAM;
        p.ee_context = stream[r];
        p.ee_context_size = sizeof(void *);
        ASSERT_EQ(ucc_ee_create(world.ranks()[r].team, &p, &ee[r]), UCC_OK);
        src[r] = dev.make(std::vector<int32_t>(kCount, 1));
        dst[r] = dev.make(std::vector<int32_t>(kCount, 0));
    }
    int early = 0;
    for (int batch = 0; batch < kBatches; ++batch) {
        // kPerBatch collectives queued on each stream, a kernel after each.
        std::vector<ucc_coll_req_h> reqs(kRanks * kPerBatch, nullptr);
        std::vector<StatusRead> reads(kRanks * kPerBatch);
        for (int i = 0; i < kPerBatch; ++i) {
            for (uint32_t r = 0; r < kRanks; ++r) {
                const size_t k = static_cast<size_t>(i) * kRanks + r;
                ucc_coll_args_t a{};
                a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
                a.op = UCC_OP_SUM;
                a.src.info = {src[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
                a.dst.info = {dst[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
                ASSERT_EQ(ucc_collective_init(&a, &reqs[k], world.ranks()[r].team), UCC_OK);
                ucc_ev_t ev{};
                ev.ev_type = UCC_EVENT_COMPUTE_COMPLETE;
                ev.req = reqs[k];
                ASSERT_EQ(ucc_collective_triggered_post(ee[r], &ev), UCC_OK);
                reads[k].req = reqs[k];
                ASSERT_EQ(dev.launch(stream[r], &StatusRead::run, &reads[k]), 0);
            }
        }
        ASSERT_TRUE(world.wait(reqs)) << "batch " << batch;
        for (uint32_t r = 0; r < kRanks; ++r) {
            ASSERT_EQ(dev.ops()->stream_sync(stream[r]), 0);
        }
        for (size_t k = 0; k < reqs.size(); ++k) {
            early += reads[k].then != UCC_OK;
            EXPECT_EQ(ucc_collective_finalize(reqs[k]), UCC_OK);
        }
    }
    EXPECT_EQ(early, 0) << "kernels that ran before their collective's status was final, of "
                        << kRanks * kPerBatch * kBatches;
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(ucc_ee_destroy(ee[r]), UCC_OK);
        dev.ops()->stream_destroy(stream[r]);
    }
}

}  // namespace

#endif  // UCC_WITH_UCX
