// CUDA device memory on simulated ranks: each rank's clock pays what a real
// transport's staging copies cost (lib/core/device_staging.h), pcie_lat +
// bytes / pcie_bw per copy: the inputs at the post, the outputs when the
// collective completes. Host memory, or a network without PCIe costs, pays
// nothing for them. A pipelined post (lib/core/device_pipeline.h) waits for
// one chunk's copies each way (a block collective's chunk: a piece of every
// block).
#include <gtest/gtest.h>

#include <vector>

#include "tests/common/scoped_env.h"
#include "tools/perf/lifecycle.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 2;
constexpr size_t kCount = 1024;  // float32: 4 KiB

struct Outcome {
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;  // or ALLGATHER (count: the block)
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_HOST;
    bool inplace = false;
    size_t count = kCount;
    std::vector<double> took = std::vector<double>(kRanks, -1);  // post to completion
    std::vector<float> got = std::vector<float>(kRanks, 0);
};

void rank_body(void *arg) {
    auto *run = static_cast<Outcome *>(arg);
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    ucc::perf::Lifecycle lc;
    ASSERT_EQ(lc.setup(s), "");
    const size_t count = run->count;
    const size_t dst_len = run->type == UCC_COLL_TYPE_ALLGATHER ? count * s.size : count;
    std::vector<float> src(count, 1.0f + static_cast<float>(s.rank));
    std::vector<float> dst(dst_len, 0);
    ucc_coll_args_t a{};
    a.coll_type = run->type;
    a.op = UCC_OP_SUM;
    a.src.info = {src.data(), count, UCC_DT_FLOAT32, run->mem};
    a.dst.info = {run->inplace ? src.data() : dst.data(), dst_len, UCC_DT_FLOAT32, run->mem};
    if (run->inplace) {
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
    }
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, lc.team), UCC_OK);
    const double t0 = ucc_sim_now();
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    EXPECT_EQ(ucc::perf::wait(req, lc.ctx), UCC_OK);
    run->took[s.rank] = ucc_sim_now() - t0;
    run->got[s.rank] = run->inplace ? src[count - 1] : dst[count - 1];
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    EXPECT_EQ(lc.teardown(), "");
}

Outcome simulate(const char *network, ucc_memory_type_t mem, bool inplace, size_t count = kCount,
                 ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE) {
    Outcome run;
    run.type = type;
    run.mem = mem;
    run.inplace = inplace;
    run.count = count;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_NETWORK;
    p.n_ranks = kRanks;
    p.flags = UCC_SIM_FLAG_QUIET;
    p.network = network;
    EXPECT_EQ(ucc_sim_run(&p, rank_body, &run), UCC_OK);
    return run;
}

constexpr const char *kPcie = "hdr,ppn=1,jitter=0,pcie_lat=8us,pcie_bw=25GB/s";
constexpr double kCopy = 8e-6 + 4096 / 25e9;  // one copy of the 4 KiB buffer

TEST(SimDeviceCopies, EachStagingCopyCostsPcieLatencyPlusBytesOverBandwidth) {
    const Outcome host = simulate(kPcie, UCC_MEMORY_TYPE_HOST, false);
    const Outcome cuda = simulate(kPcie, UCC_MEMORY_TYPE_CUDA, false);
    const Outcome managed = simulate(kPcie, UCC_MEMORY_TYPE_CUDA_MANAGED, false);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(host.got[r], 3.0f);
        EXPECT_EQ(cuda.got[r], 3.0f);  // (the payload still moves: labels only)
        // src to the host at the post, dst back at the completion.
        EXPECT_NEAR(cuda.took[r] - host.took[r], 2 * kCopy, 1e-12) << "rank " << r;
        // Managed memory is read where it is: no copies, as on a real transport.
        EXPECT_NEAR(managed.took[r], host.took[r], 1e-12) << "rank " << r;
    }
}

TEST(SimDeviceCopies, InPlaceCopiesTheBufferInAndOut) {
    const Outcome host = simulate(kPcie, UCC_MEMORY_TYPE_HOST, true);
    const Outcome cuda = simulate(kPcie, UCC_MEMORY_TYPE_CUDA, true);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(cuda.got[r], 3.0f);
        EXPECT_NEAR(cuda.took[r] - host.took[r], 2 * kCopy, 1e-12) << "rank " << r;
    }
}

// 3,000,000 float32 (12 MB) in 4 MiB chunks (DEVICE_PIPELINE's default): the
// post waits for one chunk in and one out, not the whole buffer each way.
TEST(SimDeviceCopies, APipelinedPostWaitsForOneChunkEachWay) {
    constexpr size_t kBig = 3'000'000;
    constexpr double kChunk = 8e-6 + (4 << 20) / 25e9;
    constexpr double kWhole = 8e-6 + kBig * 4 / 25e9;
    const Outcome host = simulate(kPcie, UCC_MEMORY_TYPE_HOST, false, kBig);
    const Outcome piped = simulate(kPcie, UCC_MEMORY_TYPE_CUDA, false, kBig);
    Outcome whole;
    {
        ucc::testkit::ScopedEnv off("UCC_DEVICE_PIPELINE", "0");
        whole = simulate(kPcie, UCC_MEMORY_TYPE_CUDA, false, kBig);
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(piped.got[r], 3.0f);
        EXPECT_NEAR(piped.took[r] - host.took[r], 2 * kChunk, 1e-12) << "rank " << r;
        EXPECT_NEAR(whole.took[r] - host.took[r], 2 * kWhole, 1e-12) << "rank " << r;
    }
}

// A block collective's chunk is 4 MiB on its larger side: allgather's dst
// holds both ranks' blocks, so a chunk carries 2 MiB of each block; the post
// waits for one chunk of src in (2 MiB) and one of dst out (4 MiB).
TEST(SimDeviceCopies, APipelinedAllgatherWaitsForOneChunkOfEachSide) {
    constexpr size_t kBig = 3'000'000;  // float32 per block: 12 MB
    constexpr double kIn = 8e-6 + (2 << 20) / 25e9;
    constexpr double kOut = 8e-6 + (4 << 20) / 25e9;
    const auto ag = UCC_COLL_TYPE_ALLGATHER;
    const Outcome host = simulate(kPcie, UCC_MEMORY_TYPE_HOST, false, kBig, ag);
    const Outcome piped = simulate(kPcie, UCC_MEMORY_TYPE_CUDA, false, kBig, ag);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(piped.got[r], 1.0f);  // (element count - 1: the end of rank 0's block)
        EXPECT_NEAR(piped.took[r] - host.took[r], kIn + kOut, 1e-12) << "rank " << r;
    }
}

TEST(SimDeviceCopies, ANetworkWithoutPcieCostsChargesNothing) {
    const Outcome host = simulate("hdr,ppn=1,jitter=0", UCC_MEMORY_TYPE_HOST, false);
    const Outcome cuda = simulate("hdr,ppn=1,jitter=0", UCC_MEMORY_TYPE_CUDA, false);
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(cuda.took[r], host.took[r]) << "rank " << r;
    }
}

}  // namespace
