// Tests that need a GPU: the real CUDA component (libucc_cuda.so) on a device.
// scripts/gpu_check.sh runs them on a lent GPU machine; CI has no GPU and only
// builds them (everything here fails, not skips, without a usable device: on the
// machine that runs them, no device is a failure).
//
// * the reduction kernels on the device equal the host's kernels for every
//   datatype and op a device reduces (finite inputs; tails of the grid-stride loop);
// * collectives on device buffers in one process over UCX (UNKNOWN resolved from
//   the pointer, CUDA declared);
// * a collective triggered on a CUDA stream (UCC_EE_CUDA_STREAM) waits for the
//   stream's earlier work and holds back its later work.
#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lib/core/cuda_loader.h"
#include "lib/core/log.h"
#include "lib/dt/dt.h"
#include "tests/common/inproc_world.h"

namespace {

using ucc::testkit::InprocWorld;

class Gpu : public ::testing::Test {
  protected:
    void SetUp() override {
        if (const char *dir = std::getenv("UCC_COMPONENT_PATH")) {
            cuda_.set_search_path(dir);
        }
        ASSERT_TRUE(cuda_.usable(log_)) << cuda_.why(log_);
        ops_ = cuda_.ops(log_);
        ASSERT_EQ(ops_->stream_create(&stream_), 0);
    }
    void TearDown() override {
        if (ops_ != nullptr) {
            for (auto &[kind, p] : owned_) {
                ops_->free(kind, p);
            }
            if (stream_ != nullptr) {
                ops_->stream_destroy(stream_);
            }
        }
    }
    void *alloc(ucc_cuda_alloc_kind_t kind, size_t bytes) {
        void *p = nullptr;
        EXPECT_EQ(ops_->alloc(kind, bytes, &p), 0);
        owned_.emplace_back(kind, p);
        return p;
    }
    void *to_device(const void *host, size_t bytes) {
        void *p = alloc(UCC_CUDA_ALLOC_DEVICE, bytes);
        EXPECT_EQ(ops_->copy_async(p, host, bytes, stream_), 0);
        EXPECT_EQ(ops_->stream_sync(stream_), 0);
        return p;
    }
    template <class T>
    std::vector<T> from_device(const void *dev, size_t n) {
        std::vector<T> v(n);
        EXPECT_EQ(ops_->copy_async(v.data(), dev, n * sizeof(T), stream_), 0);
        EXPECT_EQ(ops_->stream_sync(stream_), 0);
        return v;
    }

    ucc::core::Logger log_;
    ucc::core::CudaComponent cuda_;
    const ucc_cuda_component_t *ops_ = nullptr;
    void *stream_ = nullptr;
    std::vector<std::pair<ucc_cuda_alloc_kind_t, void *>> owned_;
};

// Random elements; floating-point parts with their exponent's top bit cleared
// (finite, magnitudes below 2: sums and products stay finite, no NaN whose
// payload a GPU and a CPU may propagate differently).
std::vector<uint8_t> finite_input(ucc_datatype_t dt, size_t count, uint64_t seed) {
    const size_t es = ucc::dt::size_of(dt);
    std::vector<uint8_t> v(count * es);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (uint8_t &byte : v) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        byte = static_cast<uint8_t>(s >> 24);
    }
    if (ucc::dt::is_float_like(dt)) {
        const size_t part = ucc::dt::is_complex(dt) ? es / 2 : es;
        for (size_t off = 0; off < v.size(); off += part) {
            v[off + part - 1] &= 0xbf;  // little-endian: the sign/exponent byte is last
        }
    }
    return v;
}

TEST_F(Gpu, KernelsEqualTheHostKernelsForEveryTypeAndOp) {
    constexpr size_t kCount = (size_t{1} << 20) + 3;  // many blocks and a tail
    int checked = 0;
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        const size_t bytes = kCount * ucc::dt::size_of(dt);
        const std::vector<uint8_t> a = finite_input(dt, kCount, id * 2 + 1);
        const std::vector<uint8_t> b = finite_input(dt, kCount, id * 2 + 2);
        void *da = nullptr, *db = nullptr, *dd = nullptr;
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            if (!ops_->reduce_supported(dt, op)) {
                continue;
            }
            if (da == nullptr) {
                da = to_device(a.data(), bytes);
                db = to_device(b.data(), bytes);
                dd = alloc(UCC_CUDA_ALLOC_DEVICE, bytes);
            }
            SCOPED_TRACE(std::string(ucc::dt::name(dt)) + " " + ucc::dt::op_name(op));
            std::vector<uint8_t> want(bytes);
            ucc::dt::reduce(dt, op, want.data(), a.data(), b.data(), kCount);
            ASSERT_EQ(ops_->reduce_async(dt, op, dd, da, db, kCount, stream_), 0);
            if (op == UCC_OP_AVG) {
                ucc::dt::avg_finalize(dt, want.data(), kCount, 3);
                ASSERT_EQ(ops_->avg_async(dt, dd, kCount, 3, stream_), 0);
            }
            const std::vector<uint8_t> got = from_device<uint8_t>(dd, bytes);
            ASSERT_EQ(std::memcmp(got.data(), want.data(), bytes), 0);
            // The fold of three inputs in one kernel (the CUDA IPC path's).
            const void *three[3] = {da, db, da};
            std::vector<uint8_t> folded(bytes);
            ucc::dt::reduce(dt, op, folded.data(), a.data(), b.data(), kCount);
            ucc::dt::reduce(dt, op, folded.data(), folded.data(), a.data(), kCount);
            ASSERT_EQ(ops_->reduce_many_async(dt, op, dd, three, 3, kCount, stream_), 0);
            const std::vector<uint8_t> got3 = from_device<uint8_t>(dd, bytes);
            ASSERT_EQ(std::memcmp(got3.data(), folded.data(), bytes), 0) << "the fold";
            checked++;
        }
    }
    EXPECT_EQ(checked, 10 * 11 + 4 * 5 + 2 * 3);
}

TEST_F(Gpu, CollectivesOnDeviceBuffersInOneProcess) {
    constexpr uint32_t kRanks = 2;
    constexpr size_t kCount = 1 << 18;
    InprocWorld world(kRanks);
    ASSERT_EQ(world.open(), "");
    std::vector<ucc_coll_req_h> reqs(kRanks, nullptr);
    std::vector<void *> dst(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<float> v(kCount, static_cast<float>(r + 1));
        void *src = to_device(v.data(), kCount * sizeof(float));
        dst[r] = alloc(UCC_CUDA_ALLOC_DEVICE, kCount * sizeof(float));
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        // Rank 0 leaves the memory type for the library to find out.
        const ucc_memory_type_t m = r == 0 ? UCC_MEMORY_TYPE_UNKNOWN : UCC_MEMORY_TYPE_CUDA;
        a.src.info = {src, kCount, UCC_DT_FLOAT32, m};
        a.dst.info = {dst[r], kCount, UCC_DT_FLOAT32, m};
        ASSERT_EQ(ucc_collective_init(&a, &reqs[r], world.ranks()[r].team), UCC_OK);
    }
    ASSERT_TRUE(world.run(reqs));
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(from_device<float>(dst[r], kCount), std::vector<float>(kCount, 3.0f));
        EXPECT_EQ(ucc_collective_finalize(reqs[r]), UCC_OK);
    }
}

// Held earlier work (a wait on a word the test sets), then a copy that writes
// the collective's input; the triggered allreduce; a copy of its result queued
// after it. Nothing fires while the earlier work is held; the later copy sees
// the sums.
TEST_F(Gpu, StreamEngineOrdersATriggeredCollective) {
    constexpr uint32_t kRanks = 2;
    constexpr size_t kCount = 1 << 16;
    const size_t bytes = kCount * sizeof(int32_t);
    InprocWorld world(kRanks);
    ASSERT_EQ(world.open(), "");
    auto *gate = static_cast<uint32_t *>(alloc(UCC_CUDA_ALLOC_HOST_PINNED, sizeof(uint32_t)));
    *gate = 0;
    std::vector<void *> streams(kRanks), outs(kRanks);
    std::vector<ucc_ee_h> ees(kRanks);
    std::vector<ucc_coll_req_h> reqs(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(ops_->stream_create(&streams[r]), 0);
        ucc_ee_params_t p{};
        p.ee_type = UCC_EE_CUDA_STREAM;
        p.ee_context = streams[r];
        p.ee_context_size = sizeof(void *);
        ASSERT_EQ(ucc_ee_create(world.ranks()[r].team, &p, &ees[r]), UCC_OK);
        auto *in = static_cast<int32_t *>(alloc(UCC_CUDA_ALLOC_HOST_PINNED, bytes));
        for (size_t i = 0; i < kCount; ++i) {
            in[i] = static_cast<int32_t>(i) * static_cast<int32_t>(r + 1);
        }
        void *src = alloc(UCC_CUDA_ALLOC_DEVICE, bytes);
        void *dst = alloc(UCC_CUDA_ALLOC_DEVICE, bytes);
        outs[r] = alloc(UCC_CUDA_ALLOC_HOST_PINNED, bytes);
        std::memset(outs[r], 0xff, bytes);
        ASSERT_EQ(ops_->stream_wait_value(streams[r], gate, 1), 0);
        ASSERT_EQ(ops_->copy_async(src, in, bytes, streams[r]), 0);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {src, kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
        a.dst.info = {dst, kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
        ASSERT_EQ(ucc_collective_init(&a, &reqs[r], world.ranks()[r].team), UCC_OK);
        ucc_ev_t ev{};
        ev.ev_type = UCC_EVENT_COMPUTE_COMPLETE;
        ev.req = reqs[r];
        ASSERT_EQ(ucc_collective_triggered_post(ees[r], &ev), UCC_OK);
        ucc_ev_t *posted = nullptr;
        ASSERT_EQ(ucc_ee_get_event(ees[r], &posted), UCC_OK);
        EXPECT_EQ(posted->ev_type, UCC_EVENT_COLLECTIVE_POST);
        ucc_ee_ack_event(ees[r], posted);
        ASSERT_EQ(ops_->copy_async(outs[r], dst, bytes, streams[r]), 0);
    }
    for (int i = 0; i < 20000; ++i) {
        world.progress();
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(ucc_collective_test(reqs[r]), UCC_OPERATION_INITIALIZED);
        EXPECT_EQ(ops_->stream_query(streams[r]), UCC_CUDA_NOT_READY);
    }
    __atomic_store_n(gate, 1u, __ATOMIC_RELEASE);
    ASSERT_TRUE(world.wait(reqs));
    for (uint32_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(ops_->stream_sync(streams[r]), 0);
        const auto *out = static_cast<const int32_t *>(outs[r]);
        for (size_t i = 0; i < kCount; i += 101) {
            ASSERT_EQ(out[i], static_cast<int32_t>(i) * 3) << "rank " << r << " element " << i;
        }
        EXPECT_EQ(ucc_collective_finalize(reqs[r]), UCC_OK);
        EXPECT_EQ(ucc_ee_destroy(ees[r]), UCC_OK);
        EXPECT_EQ(ops_->stream_destroy(streams[r]), 0);
    }
}

}  // namespace
