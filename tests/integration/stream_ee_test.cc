// The CUDA-stream execution engine (UCC_EE_CUDA_STREAM; lib/core/stream_gate.h)
// over UCX, without a GPU: the fake component's streams are worker threads, and
// the test queues "kernels" on them (FakeDevice::launch). A collective triggered
// on a stream starts only after the work queued before it, the work queued after
// it runs only once it ended (its results in place), and the stream goes on when
// a waiting collective times out or its engine is destroyed.
#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "tests/common/fake_device.h"
#include "tests/common/inproc_world.h"
#include "tests/common/scoped_env.h"

#if UCC_WITH_UCX

namespace {

using ucc::testkit::FakeDevice;
using ucc::testkit::InprocWorld;
using ucc::testkit::ScopedEnv;

constexpr uint32_t kRanks = 3;
constexpr size_t kCount = 4096;

// A kernel that waits for the test to open `gate` (at most a minute), then
// writes `values` into the device buffer `dev`.
struct Fill {
    const ucc_cuda_component_t *ops;
    const std::atomic<bool> *gate;
    void *dev;
    std::vector<int32_t> values;

    static void run(void *p) {
        auto *f = static_cast<Fill *>(p);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!f->gate->load() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        f->ops->copy_async(f->dev, f->values.data(), f->values.size() * sizeof(int32_t), nullptr);
    }
};

// A kernel that reads a device buffer and the status of requests as it runs.
struct Read {
    const ucc_cuda_component_t *ops = nullptr;
    const void *dev = nullptr;
    std::vector<ucc_coll_req_h> reqs;
    std::vector<int32_t> got;
    std::vector<ucc_status_t> status_then;
    std::atomic<bool> ran{false};

    void reset(const ucc_cuda_component_t *o, const void *d, std::vector<ucc_coll_req_h> q) {
        ops = o;
        dev = d;
        reqs = std::move(q);
        got.clear();
        status_then.clear();
        ran = false;
    }
    static void run(void *p) {
        auto *r = static_cast<Read *>(p);
        for (ucc_coll_req_h q : r->reqs) {
            r->status_then.push_back(ucc_collective_test(q));
        }
        r->got.resize(kCount);
        r->ops->copy_async(r->got.data(), r->dev, kCount * sizeof(int32_t), nullptr);
        r->ran = true;
    }
};

ucc_coll_args_t allreduce_on_device(void *src, void *dst) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {src, kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
    a.dst.info = {dst, kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
    return a;
}

ucc_ev_t compute_done(ucc_coll_req_h req) {
    ucc_ev_t ev{};
    ev.ev_type = UCC_EVENT_COMPUTE_COMPLETE;
    ev.req = req;
    return ev;
}

// One rank's stream and engine on it.
struct RankStream {
    const ucc_cuda_component_t *ops = nullptr;
    void *stream = nullptr;
    ucc_ee_h ee = nullptr;

    ucc_status_t open(const ucc_cuda_component_t *o, ucc_team_h team) {
        ops = o;
        EXPECT_EQ(ops->stream_create(&stream), 0);
        ucc_ee_params_t p{};
        p.ee_type = UCC_EE_CUDA_STREAM;
        p.ee_context = stream;
        p.ee_context_size = sizeof(stream);
        return ucc_ee_create(team, &p, &ee);
    }
    ~RankStream() {
        if (ee != nullptr) {
            EXPECT_EQ(ucc_ee_destroy(ee), UCC_OK);
        }
        if (stream != nullptr) {
            ops->stream_destroy(stream);
        }
    }
};

class StreamEngine : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_NE(dev_.ops(), nullptr) << "the fake component was not built at " UCC_FAKE_CUDA_DIR;
        ASSERT_EQ(world_.open(), "");
        for (uint32_t r = 0; r < kRanks; ++r) {
            ASSERT_EQ(streams_[r].open(dev_.ops(), world_.ranks()[r].team), UCC_OK);
        }
    }
    // Progresses `rounds` times: nothing may fire while the gate is closed.
    void hold(const std::vector<ucc_coll_req_h> &reqs, int rounds) {
        for (int i = 0; i < rounds; ++i) {
            world_.progress();
        }
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_test(q), UCC_OPERATION_INITIALIZED);
        }
    }
    std::vector<int32_t> values(uint32_t rank, int32_t scale) const {
        std::vector<int32_t> v(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            v[i] = static_cast<int32_t>(i) * static_cast<int32_t>(rank + 1) * scale;
        }
        return v;
    }

    ScopedEnv path_{"UCC_COMPONENT_PATH", UCC_FAKE_CUDA_DIR};
    FakeDevice dev_;
    InprocWorld world_{kRanks};
    RankStream streams_[kRanks];
    std::atomic<bool> gate_{false};
};

// Fill (held by the gate) -> allreduce triggered on the stream -> read. The
// collective may not fire while the fill has not run; the read sees the
// sums, and the request complete, when it runs.
TEST_F(StreamEngine, StartsAfterEarlierWorkAndHoldsBackLaterWork) {
    std::vector<Fill> fills;
    fills.reserve(kRanks);
    std::vector<Read> reads(kRanks);
    std::vector<ucc_coll_req_h> reqs(kRanks, nullptr);
    for (uint32_t r = 0; r < kRanks; ++r) {
        RankStream &s = streams_[r];
        void *src = dev_.make(std::vector<int32_t>(kCount, 0));
        void *dst = dev_.make(std::vector<int32_t>(kCount, -1));
        fills.push_back(Fill{dev_.ops(), &gate_, src, values(r, 1)});
        ASSERT_EQ(dev_.launch(s.stream, &Fill::run, &fills.back()), 0);
        ucc_coll_args_t a = allreduce_on_device(src, dst);
        ASSERT_EQ(ucc_collective_init(&a, &reqs[r], world_.ranks()[r].team), UCC_OK);
        ucc_ev_t ev = compute_done(reqs[r]);
        ASSERT_EQ(ucc_collective_triggered_post(s.ee, &ev), UCC_OK);
        reads[r].reset(dev_.ops(), dst, {reqs[r]});
        ASSERT_EQ(dev_.launch(s.stream, &Read::run, &reads[r]), 0);
    }
    // The post event is there at once (the collective is on the stream);
    // the collective itself waits for the stream.
    for (uint32_t r = 0; r < kRanks; ++r) {
        ucc_ev_t *ev = nullptr;
        ASSERT_EQ(ucc_ee_get_event(streams_[r].ee, &ev), UCC_OK);
        EXPECT_EQ(ev->ev_type, UCC_EVENT_COLLECTIVE_POST);
        EXPECT_EQ(ev->req, reqs[r]);
        EXPECT_EQ(ucc_ee_ack_event(streams_[r].ee, ev), UCC_OK);
    }
    hold(reqs, 2000);
    for (uint32_t r = 0; r < kRanks; ++r) {
        ucc_ev_t *ev = nullptr;
        EXPECT_EQ(ucc_ee_get_event(streams_[r].ee, &ev), UCC_ERR_NOT_FOUND);
        EXPECT_FALSE(reads[r].ran.load());
    }
    gate_ = true;
    ASSERT_TRUE(world_.wait(reqs));
    for (uint32_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(dev_.ops()->stream_sync(streams_[r].stream), 0);
        ASSERT_TRUE(reads[r].ran.load());
        EXPECT_EQ(reads[r].status_then[0], UCC_OK) << "rank " << r;
        EXPECT_EQ(reads[r].got, values(0, 6)) << "rank " << r;  // sum over ranks: 6 i
        ucc_ev_t *ev = nullptr;
        EXPECT_EQ(ucc_ee_get_event(streams_[r].ee, &ev), UCC_ERR_NOT_FOUND);  // one per post
        EXPECT_EQ(ucc_collective_finalize(reqs[r]), UCC_OK);
    }
}

// Two collectives queued on one stream before anything progresses: the
// second reduces the first's result, so it must start after the first ended
// and its result was copied back to the device. A persistent repost runs the
// pair again.
TEST_F(StreamEngine, CollectivesOnOneStreamRunInItsOrder) {
    std::vector<ucc_coll_req_h> first(kRanks, nullptr), second(kRanks, nullptr);
    std::vector<void *> mid(kRanks), out(kRanks), src(kRanks);
    std::vector<Read> between(kRanks), after(kRanks);
    gate_ = true;
    for (uint32_t r = 0; r < kRanks; ++r) {
        src[r] = dev_.make(values(r, 1));
        mid[r] = dev_.make(std::vector<int32_t>(kCount, -1));
        out[r] = dev_.make(std::vector<int32_t>(kCount, -1));
        ucc_coll_args_t a = allreduce_on_device(src[r], mid[r]);
        ucc_coll_args_t b = allreduce_on_device(mid[r], out[r]);
        for (ucc_coll_args_t *x : {&a, &b}) {
            x->mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            x->flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
        }
        ASSERT_EQ(ucc_collective_init(&a, &first[r], world_.ranks()[r].team), UCC_OK);
        ASSERT_EQ(ucc_collective_init(&b, &second[r], world_.ranks()[r].team), UCC_OK);
    }
    for (int round = 0; round < 2; ++round) {
        for (uint32_t r = 0; r < kRanks; ++r) {
            RankStream &s = streams_[r];
            between[r].reset(dev_.ops(), mid[r], {first[r], second[r]});
            after[r].reset(dev_.ops(), out[r], {second[r]});
            ucc_ev_t ev = compute_done(first[r]);
            ASSERT_EQ(ucc_collective_triggered_post(s.ee, &ev), UCC_OK);
            ASSERT_EQ(dev_.launch(s.stream, &Read::run, &between[r]), 0);
            ev = compute_done(second[r]);
            ASSERT_EQ(ucc_collective_triggered_post(s.ee, &ev), UCC_OK);
            ASSERT_EQ(dev_.launch(s.stream, &Read::run, &after[r]), 0);
        }
        std::vector<ucc_coll_req_h> all = first;
        all.insert(all.end(), second.begin(), second.end());
        ASSERT_TRUE(world_.wait(all)) << "round " << round;
        for (uint32_t r = 0; r < kRanks; ++r) {
            ASSERT_EQ(dev_.ops()->stream_sync(streams_[r].stream), 0);
            EXPECT_EQ(between[r].status_then[0], UCC_OK) << "rank " << r;
            EXPECT_EQ(between[r].status_then[1], UCC_OPERATION_INITIALIZED) << "rank " << r;
            EXPECT_EQ(between[r].got, values(0, 6)) << "rank " << r;
            EXPECT_EQ(after[r].status_then[0], UCC_OK) << "rank " << r;
            EXPECT_EQ(after[r].got, values(0, 18)) << "rank " << r;  // 3 ranks x 6 i
        }
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(ucc_collective_finalize(first[r]), UCC_OK);
        EXPECT_EQ(ucc_collective_finalize(second[r]), UCC_OK);
    }
}

// A triggered collective that times out before its stream gets there, and one
// whose engine is destroyed while it waits: each ends without running, and
// the work queued after it on the stream runs.
TEST_F(StreamEngine, TimeoutAndDestroyLetTheStreamGoOn) {
    void *src = dev_.make(values(0, 1));
    void *dst = dev_.make(std::vector<int32_t>(kCount, -1));
    Fill fill{dev_.ops(), &gate_, src, values(0, 2)};
    RankStream &s = streams_[0];
    ASSERT_EQ(dev_.launch(s.stream, &Fill::run, &fill), 0);
    ucc_coll_args_t a = allreduce_on_device(src, dst);
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
    a.timeout = 0.05;
    ucc_coll_req_h timed = nullptr, cancelled = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &timed, world_.ranks()[0].team), UCC_OK);
    ucc_ev_t ev = compute_done(timed);
    ASSERT_EQ(ucc_collective_triggered_post(s.ee, &ev), UCC_OK);
    Read read;
    read.reset(dev_.ops(), dst, {timed});
    ASSERT_EQ(dev_.launch(s.stream, &Read::run, &read), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (ucc_collective_test(timed) == UCC_OPERATION_INITIALIZED &&
           std::chrono::steady_clock::now() < deadline) {
        world_.progress();
    }
    ASSERT_EQ(ucc_collective_test(timed), UCC_ERR_TIMED_OUT);
    gate_ = true;
    ASSERT_EQ(dev_.ops()->stream_sync(s.stream), 0);
    EXPECT_TRUE(read.ran.load());
    EXPECT_EQ(read.got, std::vector<int32_t>(kCount, -1));  // it never ran
    EXPECT_EQ(ucc_collective_finalize(timed), UCC_OK);

    // Rank 1's engine destroyed with a collective waiting behind held work.
    gate_ = false;
    RankStream &t = streams_[1];
    Fill hold_it{dev_.ops(), &gate_, src, values(0, 2)};
    ASSERT_EQ(dev_.launch(t.stream, &Fill::run, &hold_it), 0);
    a = allreduce_on_device(src, dst);
    ASSERT_EQ(ucc_collective_init(&a, &cancelled, world_.ranks()[1].team), UCC_OK);
    ev = compute_done(cancelled);
    ASSERT_EQ(ucc_collective_triggered_post(t.ee, &ev), UCC_OK);
    Read later;
    later.reset(dev_.ops(), dst, {});
    ASSERT_EQ(dev_.launch(t.stream, &Read::run, &later), 0);
    ASSERT_EQ(ucc_ee_destroy(t.ee), UCC_OK);
    t.ee = nullptr;
    EXPECT_EQ(ucc_collective_test(cancelled), UCC_ERR_CANCELED);
    gate_ = true;
    ASSERT_EQ(dev_.ops()->stream_sync(t.stream), 0);
    EXPECT_TRUE(later.ran.load());
    EXPECT_EQ(ucc_collective_finalize(cancelled), UCC_OK);
}

// Without a usable device (or without a component) a stream engine is refused.
TEST(StreamEngineUnusable, NoDeviceOrNoComponentRefusesTheEngine) {
    for (const char *path : {UCC_FAKE_CUDA_DIR, "/nonexistent-ucc-components"}) {
        ScopedEnv p("UCC_COMPONENT_PATH", path);
        ScopedEnv none("FAKE_CUDA_DEVICES", "0");
        InprocWorld world(1);
        ASSERT_EQ(world.open(), "");
        ucc_ee_params_t params{};
        params.ee_type = UCC_EE_CUDA_STREAM;
        ucc_ee_h ee = nullptr;
        EXPECT_EQ(ucc_ee_create(world.ranks()[0].team, &params, &ee), UCC_ERR_NOT_SUPPORTED)
            << path;
        params.ee_type = UCC_EE_ROCM_STREAM;
        EXPECT_EQ(ucc_ee_create(world.ranks()[0].team, &params, &ee), UCC_ERR_NOT_SUPPORTED);
    }
}

}  // namespace

#endif
