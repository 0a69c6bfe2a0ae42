// Collectives on CUDA memory over UCX, without a GPU: the fake component
// (tests/fake_cuda) stands in for libucc_cuda.so, its device memory unreadable by
// the CPU. Every collective here gets device buffers and must stage them through
// pinned host copies (lib/core/device_staging.h): results equal the host's, parts
// of a destination the collective does not write come back unchanged, nothing of
// the library touches device memory directly (that would be a segmentation fault),
// and what cannot run is refused at init with UCC_ERR_NOT_SUPPORTED.
#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

#include <algorithm>
#include <cstring>
#include <numeric>
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

// Ranks over UCX with the fake component; `pipeline`: UCC_DEVICE_PIPELINE.
class DeviceWorld : public ::testing::Test {
  protected:
    // (The staging under test: allreduce within the host would go through
    // CUDA IPC, tests/integration/device_ipc_test.cc.)
    explicit DeviceWorld(const char *pipeline) : pipeline_("UCC_DEVICE_PIPELINE", pipeline) {}
    void SetUp() override {
        ASSERT_NE(dev_.ops(), nullptr) << "the fake component was not built at " UCC_FAKE_CUDA_DIR;
        ASSERT_EQ(world_.open(), "");
    }
    // Inits args[r] on every rank, runs them to completion, finalizes.
    void run(std::vector<ucc_coll_args_t> &args, int posts = 1) {
        std::vector<ucc_coll_req_h> reqs(kRanks, nullptr);
        for (uint32_t r = 0; r < kRanks; ++r) {
            if (posts > 1) {
                args[r].mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                args[r].flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
            }
            ASSERT_EQ(ucc_collective_init(&args[r], &reqs[r], world_.ranks()[r].team), UCC_OK)
                << "rank " << r;
        }
        for (int p = 0; p < posts; ++p) {
            std::vector<ucc_coll_req_h> copy = reqs;
            ASSERT_TRUE(world_.run(copy));
            for (ucc_coll_req_h q : reqs) {
                ASSERT_EQ(ucc_collective_test(q), UCC_OK);
            }
        }
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
        }
    }
    ScopedEnv path_{"UCC_COMPONENT_PATH", UCC_FAKE_CUDA_DIR};
    ScopedEnv ipc_{"UCC_DEVICE_IPC", "n"};
    ScopedEnv pipeline_;
    FakeDevice dev_;
    InprocWorld world_{kRanks};
};

// The default chunking (4 MiB): the buffers here stage whole.
class DeviceMemory : public DeviceWorld {
  protected:
    DeviceMemory() : DeviceWorld("4M") {}
};

TEST_F(DeviceMemory, AllreduceOnDeviceBuffersOutOfPlaceAndInPlace) {
    constexpr size_t kCount = 10000;
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<void *> src(kRanks), dst(kRanks), inplace(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<int32_t> v(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            v[i] = static_cast<int32_t>(i * (r + 1));
        }
        src[r] = dev_.make(v);
        dst[r] = dev_.make(std::vector<int32_t>(kCount, -1));
        inplace[r] = dev_.make(v);
        ucc_coll_args_t &a = args[r];
        a = {};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {src[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
        a.dst.info = {dst[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
    }
    run(args);
    for (uint32_t r = 0; r < kRanks; ++r) {
        const auto got = dev_.read<int32_t>(dst[r], kCount);
        for (size_t i = 0; i < kCount; i += 997) {
            ASSERT_EQ(got[i], static_cast<int32_t>(i * 6)) << "rank " << r << " element " << i;
        }
        // In place, the memory type left for the library to find out (UNKNOWN).
        ucc_coll_args_t &a = args[r];
        a = {};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_MAX;
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        a.dst.info = {inplace[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_UNKNOWN};
    }
    run(args);
    for (uint32_t r = 0; r < kRanks; ++r) {
        const auto got = dev_.read<int32_t>(inplace[r], kCount);
        EXPECT_EQ(got[kCount - 1], static_cast<int32_t>((kCount - 1) * kRanks));
        EXPECT_EQ(got[0], 0);
    }
}

// What crossed the link: each rank's input off the device and its result onto it.
TEST_F(DeviceMemory, StagingCopiesTheExtentsOnceEachWay) {
    constexpr size_t kCount = 4096;
    std::vector<ucc_coll_args_t> args(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_SUM;
        args[r].src.info = {dev_.make(std::vector<int64_t>(kCount, r)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
        args[r].dst.info = {dev_.make(std::vector<int64_t>(kCount, 0)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
    }
    const uint64_t to_host = dev_.stats()[2];
    const uint64_t to_device = dev_.stats()[3];
    const uint64_t pinned = dev_.stats()[1];
    run(args, 2);
    EXPECT_EQ(dev_.stats()[2] - to_host, 2 * kRanks * kCount * 8);    // src, at each post
    EXPECT_EQ(dev_.stats()[3] - to_device, 2 * kRanks * kCount * 8);  // dst, at each completion
    EXPECT_EQ(dev_.stats()[1] - pinned, 2 * kRanks);                  // src and dst, once
    EXPECT_EQ(dev_.read<int64_t>(args[1].dst.info.buffer, kCount), std::vector<int64_t>(kCount, 3));
}

// Requests made after earlier ones were freed take their pinned copies and
// streams from the library's pool (lib/core/staging_pool.h): the second
// round allocates nothing and gets the same sums.
TEST_F(DeviceMemory, LaterRequestsReuseThePinnedCopiesAndStreams) {
    constexpr size_t kCount = 4096;
    std::vector<ucc_coll_args_t> args(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_SUM;
        args[r].src.info = {dev_.make(std::vector<int64_t>(kCount, r + 1)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
        args[r].dst.info = {dev_.make(std::vector<int64_t>(kCount, 0)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
    }
    const uint64_t pinned = dev_.stats()[1];
    const uint64_t streams = dev_.stats()[4];
    run(args);
    EXPECT_EQ(dev_.stats()[1] - pinned, 2 * kRanks);  // src and dst on each rank
    EXPECT_EQ(dev_.stats()[4] - streams, kRanks);
    for (int round = 0; round < 3; ++round) {
        run(args);
    }
    EXPECT_EQ(dev_.stats()[1] - pinned, 2 * kRanks) << "later requests allocated pinned memory";
    EXPECT_EQ(dev_.stats()[4] - streams, kRanks) << "later requests created streams";
    EXPECT_EQ(dev_.read<int64_t>(args[2].dst.info.buffer, kCount), std::vector<int64_t>(kCount, 6));
}

TEST_F(DeviceMemory, BcastWritesTheDeviceBufferOfNonRoots) {
    constexpr size_t kCount = 3000;
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<void *> buf(kRanks);
    std::vector<double> root_data(kCount);
    std::iota(root_data.begin(), root_data.end(), 0.5);
    for (uint32_t r = 0; r < kRanks; ++r) {
        buf[r] = r == 1 ? dev_.make(root_data) : dev_.make(std::vector<double>(kCount, -2.0));
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_BCAST;
        args[r].root = 1;
        args[r].src.info = {buf[r], kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
    }
    run(args, 2);  // and once more, persistent
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(dev_.read<double>(buf[r], kCount), root_data) << "rank " << r;
    }
}

// Displacements leave gaps in dst: they come back as they were on the device.
TEST_F(DeviceMemory, AllgathervKeepsTheGapsOfItsDeviceDestination) {
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<void *> dst(kRanks);
    std::vector<std::vector<int64_t>> src(kRanks);
    ucc_count_t counts[kRanks] = {5, 0, 7};
    ucc_aint_t displs[kRanks] = {20, 3, 0};
    constexpr size_t kExtent = 25;
    for (uint32_t r = 0; r < kRanks; ++r) {
        src[r].assign(counts[r], 100 * (r + 1));
        dst[r] = dev_.make(std::vector<int64_t>(kExtent, -7));
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLGATHERV;
        args[r].mask = UCC_COLL_ARGS_FIELD_FLAGS;
        args[r].flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
        // The source on the host, the destination on the device.
        args[r].src.info = {src[r].data(), counts[r], UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        args[r].dst.info_v = {dst[r], counts, displs, UCC_DT_INT64, UCC_MEMORY_TYPE_CUDA};
    }
    run(args);
    std::vector<int64_t> want(kExtent, -7);
    for (uint32_t p = 0; p < kRanks; ++p) {
        for (uint64_t i = 0; i < counts[p]; ++i) {
            want[displs[p] + i] = 100 * (p + 1);
        }
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(dev_.read<int64_t>(dst[r], kExtent), want) << "rank " << r;
    }
}

TEST_F(DeviceMemory, AlltoallFromTheDeviceToTheHostAndReduceToARoot) {
    constexpr size_t kBlock = 64;
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<std::vector<uint16_t>> host_dst(kRanks, std::vector<uint16_t>(kBlock * kRanks));
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<uint16_t> s(kBlock * kRanks);
        for (size_t i = 0; i < s.size(); ++i) {
            s[i] = static_cast<uint16_t>(r * 1000 + i);
        }
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLTOALL;
        args[r].src.info = {dev_.make(s), kBlock * kRanks, UCC_DT_UINT16, UCC_MEMORY_TYPE_CUDA};
        args[r].dst.info = {host_dst[r].data(), kBlock * kRanks, UCC_DT_UINT16,
                            UCC_MEMORY_TYPE_HOST};
    }
    run(args);
    for (uint32_t r = 0; r < kRanks; ++r) {
        for (uint32_t p = 0; p < kRanks; ++p) {
            EXPECT_EQ(host_dst[r][p * kBlock + 1],
                      static_cast<uint16_t>(p * 1000 + r * kBlock + 1));
        }
    }
    std::vector<void *> dst(kRanks, nullptr);
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<float> s(kBlock, static_cast<float>(r) + 0.25f);
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_REDUCE;
        args[r].root = 2;
        args[r].op = UCC_OP_SUM;
        args[r].src.info = {dev_.make(s), kBlock, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_UNKNOWN};
        if (r == 2) {
            dst[r] = dev_.make(std::vector<float>(kBlock, 0.0f));
            args[r].dst.info = {dst[r], kBlock, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_UNKNOWN};
        }
    }
    run(args);
    EXPECT_EQ(dev_.read<float>(dst[2], kBlock), std::vector<float>(kBlock, 3.75f));
}

// Managed memory is read and written by the CPU where it is: no staging.
TEST_F(DeviceMemory, ManagedMemoryRunsWithoutStaging) {
    constexpr size_t kCount = 512;
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<int32_t *> buf(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        void *p = nullptr;
        ASSERT_EQ(dev_.ops()->alloc(UCC_CUDA_ALLOC_MANAGED, kCount * 4, &p), 0);
        buf[r] = static_cast<int32_t *>(p);
        std::fill(buf[r], buf[r] + kCount, static_cast<int32_t>(r + 1));
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_PROD;
        args[r].mask = UCC_COLL_ARGS_FIELD_FLAGS;
        args[r].flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        args[r].dst.info = {p, kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_UNKNOWN};
    }
    run(args);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(buf[r][kCount - 1], 6);
        dev_.ops()->free(UCC_CUDA_ALLOC_MANAGED, buf[r]);
    }
}

// What cannot run is refused at init, with the team still usable.
TEST_F(DeviceMemory, RefusedAtInit) {
    std::vector<int32_t> host(16, 1);
    void *d = dev_.make(host);
    ucc_team_h team = world_.ranks()[0].team;
    ucc_coll_req_h req = nullptr;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {d, 16, UCC_DT_INT32, UCC_MEMORY_TYPE_ROCM};
    a.dst.info = {host.data(), 16, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    EXPECT_EQ(ucc_collective_init(&a, &req, team), UCC_ERR_NOT_SUPPORTED);
    // One-sided collectives need a GPU-aware transport.
    a.coll_type = UCC_COLL_TYPE_ALLTOALL;
    a.src.info = {d, 3, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
    a.dst.info = {host.data(), 3, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER;
    a.flags = UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS;
    uint64_t work[64] = {};
    a.global_work_buffer = work;
    EXPECT_NE(ucc_collective_init(&a, &req, team), UCC_OK);
}

// Without a usable device (or without a component) CUDA memory is refused.
TEST(DeviceMemoryUnusable, NoDeviceOrNoComponentRefusesCudaMemory) {
    for (const char *path : {UCC_FAKE_CUDA_DIR, "/nonexistent-ucc-components"}) {
        ScopedEnv p("UCC_COMPONENT_PATH", path);
        ScopedEnv none("FAKE_CUDA_DEVICES", "0");
        InprocWorld world(2);
        ASSERT_EQ(world.open(), "");
        std::vector<int32_t> host(16, 1);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {host.data(), 8, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
        a.dst.info = {host.data() + 8, 8, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        for (uint32_t r = 0; r < 2; ++r) {  // both: a refused init takes its sequence number
            EXPECT_EQ(ucc_collective_init(&a, &req, world.ranks()[r].team), UCC_ERR_NOT_SUPPORTED)
                << path;
        }
        // UNKNOWN host memory is host memory.
        a.src.info = {host.data(), 8, UCC_DT_INT32, UCC_MEMORY_TYPE_UNKNOWN};
        std::vector<int32_t> out0(8), out1(8);
        std::vector<ucc_coll_req_h> reqs(2, nullptr);
        std::vector<int32_t> *outs[2] = {&out0, &out1};
        for (uint32_t r = 0; r < 2; ++r) {
            a.dst.info = {outs[r]->data(), 8, UCC_DT_INT32, UCC_MEMORY_TYPE_UNKNOWN};
            ASSERT_EQ(ucc_collective_init(&a, &reqs[r], world.ranks()[r].team), UCC_OK);
        }
        ASSERT_TRUE(world.run(reqs));
        EXPECT_EQ(out1, std::vector<int32_t>(8, 2));
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
        }
    }
}

// Pipelined staging (lib/core/device_pipeline.h) with 64 KiB chunks: the
// results are those of a whole staging, every byte crosses the link once
// each way, and each chunk's copies are marked by stream writes (in and out).
class DevicePipeline : public DeviceWorld {
  protected:
    DevicePipeline() : DeviceWorld("64K") {}
    uint64_t writes() { return dev_.stats()[5]; }
};

TEST_F(DevicePipeline, AllreduceInChunksOutOfPlaceInPlaceAndPersistent) {
    constexpr size_t kCount = 100'003;  // 13 chunks of 8,192 int64, the last shorter
    constexpr uint64_t kChunks = (kCount + 8191) / 8192;
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<void *> inplace(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<int64_t> in(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            in[i] = static_cast<int64_t>(i * (r + 1));
        }
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_SUM;
        args[r].src.info = {dev_.make(in), kCount, UCC_DT_INT64, UCC_MEMORY_TYPE_CUDA};
        args[r].dst.info = {dev_.make(std::vector<int64_t>(kCount, -1)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
        inplace[r] = dev_.make(in);
    }
    std::vector<int64_t> want(kCount);
    for (size_t i = 0; i < kCount; ++i) {
        want[i] = static_cast<int64_t>(i * 6);  // 1 + 2 + 3
    }
    const uint64_t to_host = dev_.stats()[2], to_device = dev_.stats()[3], w = writes();
    run(args, 2);                                       // persistent: two posts
    EXPECT_EQ(writes() - w, 2 * 2 * kChunks * kRanks);  // per post, rank and chunk: in, out
    EXPECT_EQ(dev_.stats()[2] - to_host, 2 * kRanks * kCount * 8);
    EXPECT_EQ(dev_.stats()[3] - to_device, 2 * kRanks * kCount * 8);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(dev_.read<int64_t>(args[r].dst.info.buffer, kCount), want) << r;
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
        args[r].mask = UCC_COLL_ARGS_FIELD_FLAGS;
        args[r].flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        args[r].dst.info.buffer = inplace[r];
    }
    run(args);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(dev_.read<int64_t>(inplace[r], kCount), want) << r;
    }
}

TEST_F(DevicePipeline, BcastAndReduceInChunks) {
    constexpr size_t kCount = 50'000;  // doubles: 7 chunks of 8,192
    std::vector<double> root_data(kCount);
    std::iota(root_data.begin(), root_data.end(), 0.25);
    std::vector<ucc_coll_args_t> args(kRanks);
    std::vector<void *> buf(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        buf[r] = r == 2 ? dev_.make(root_data) : dev_.make(std::vector<double>(kCount, -2.0));
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_BCAST;
        args[r].root = 2;
        args[r].src.info = {buf[r], kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
    }
    const uint64_t w = writes();
    run(args);
    EXPECT_GT(writes() - w, 0u);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(dev_.read<double>(buf[r], kCount), root_data) << r;
    }
    // Reduce (max) to rank 0: only the root has a destination.
    void *out = dev_.make(std::vector<double>(kCount, 0.0));
    for (uint32_t r = 0; r < kRanks; ++r) {
        std::vector<double> in(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            in[i] = static_cast<double>((i + r) % 5);
        }
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_REDUCE;
        args[r].op = UCC_OP_MAX;
        args[r].root = 0;
        args[r].src.info = {dev_.make(in), kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
        if (r == 0) {
            args[r].dst.info = {out, kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
        }
    }
    run(args);
    std::vector<double> want(kCount);
    for (size_t i = 0; i < kCount; ++i) {
        want[i] = static_cast<double>(std::max({i % 5, (i + 1) % 5, (i + 2) % 5}));
    }
    EXPECT_EQ(dev_.read<double>(out, kCount), want);
}

// Block collectives in chunks of every block (64 KiB over the 3 blocks of
// the larger side): each chunk's pieces cross in one 2D copy each way, the
// collective runs on the packed pieces, and the results are a whole
// staging's; every byte crosses the link once each way.
TEST_F(DevicePipeline, AllgatherAlltoallAndReduceScatterInChunksOfEveryBlock) {
    constexpr size_t kBlock = 20'003;                             // int64 per block
    constexpr uint64_t kElems = (64 << 10) / (kRanks * 8);        // 2,730 per block and chunk
    constexpr uint64_t kChunks = (kBlock + kElems - 1) / kElems;  // 8, the last shorter
    auto v = [](uint32_t from, uint32_t to, size_t i) {
        return static_cast<int64_t>(from * 1'000'000'000 + to * 1'000'000 + i);
    };
    enum Kind { kAllgather, kAllgatherInPlace, kAlltoall, kReduceScatter, kReduceScatterInPlace };
    for (const Kind kind :
         {kAllgather, kAllgatherInPlace, kAlltoall, kReduceScatter, kReduceScatterInPlace}) {
        SCOPED_TRACE(testing::Message() << "kind " << kind);
        const bool inplace = kind == kAllgatherInPlace || kind == kReduceScatterInPlace;
        const bool rs = kind == kReduceScatter || kind == kReduceScatterInPlace;
        const bool a2a = kind == kAlltoall;
        const size_t src_len = rs || a2a ? kBlock * kRanks : kBlock;
        const size_t dst_len = rs && !inplace ? kBlock : kBlock * kRanks;
        std::vector<ucc_coll_args_t> args(kRanks);
        std::vector<void *> dst(kRanks);
        for (uint32_t r = 0; r < kRanks; ++r) {
            std::vector<int64_t> in(src_len);
            for (size_t i = 0; i < src_len; ++i) {
                in[i] = v(r, static_cast<uint32_t>(i / kBlock), i % kBlock);
            }
            std::vector<int64_t> out(dst_len, -1);
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = rs    ? UCC_COLL_TYPE_REDUCE_SCATTER
                          : a2a ? UCC_COLL_TYPE_ALLTOALL
                                : UCC_COLL_TYPE_ALLGATHER;
            a.op = UCC_OP_SUM;
            if (inplace) {
                out = rs ? in : out;
                if (!rs) {
                    std::copy(in.begin(), in.end(), out.begin() + r * kBlock);
                }
                a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
            } else {
                a.src.info = {dev_.make(in), src_len, UCC_DT_INT64, UCC_MEMORY_TYPE_CUDA};
            }
            dst[r] = dev_.make(out);
            a.dst.info = {dst[r], dst_len, UCC_DT_INT64, UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = dev_.stats()[2], to_device = dev_.stats()[3], w = writes();
        const uint64_t copies2d = dev_.stats()[10];
        run(args);
        EXPECT_EQ(writes() - w, 2 * kChunks * kRanks);  // per rank and chunk: in, out
        EXPECT_GE(dev_.stats()[10] - copies2d, kChunks * kRanks) << "the pieces in 2D copies";
        const uint64_t in_bytes = inplace ? dst_len * 8 : src_len * 8;
        EXPECT_EQ(dev_.stats()[2] - to_host, kRanks * in_bytes);
        EXPECT_EQ(dev_.stats()[3] - to_device, kRanks * dst_len * 8);
        for (uint32_t r = 0; r < kRanks; ++r) {
            const auto got = dev_.read<int64_t>(dst[r], dst_len);
            for (size_t i = 0; i < dst_len; ++i) {
                const auto q = static_cast<uint32_t>(i / kBlock);
                const size_t j = i % kBlock;
                int64_t want = 0;
                if (rs) {
                    if (inplace && q != r) {
                        want = v(r, q, j);  // (the other blocks as they were)
                    } else {
                        for (uint32_t p = 0; p < kRanks; ++p) {
                            want += v(p, r, j);
                        }
                    }
                } else {
                    want = v(q, a2a ? r : 0, j);
                }
                ASSERT_EQ(got[i], want) << "rank " << r << " element " << i;
            }
        }
    }
}

// Below two chunks, the post stages whole: no stream write.
TEST_F(DevicePipeline, SmallAndOtherCollectivesStageWhole) {
    constexpr size_t kCount = 12'000;  // 96 KB: one chunk and a half
    std::vector<ucc_coll_args_t> args(kRanks);
    for (uint32_t r = 0; r < kRanks; ++r) {
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_SUM;
        args[r].src.info = {dev_.make(std::vector<int64_t>(kCount, r)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
        args[r].dst.info = {dev_.make(std::vector<int64_t>(kCount, 0)), kCount, UCC_DT_INT64,
                            UCC_MEMORY_TYPE_CUDA};
    }
    const uint64_t w = writes();
    run(args);
    EXPECT_EQ(writes(), w);
    EXPECT_EQ(dev_.read<int64_t>(args[0].dst.info.buffer, kCount), std::vector<int64_t>(kCount, 3));
}

}  // namespace

#endif
