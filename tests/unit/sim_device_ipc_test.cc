// CUDA IPC on simulated ranks (lib/core/device_ipc.h over ipc_device_sim.cc):
// a collective on device memory among ranks of one simulated node (allreduce,
// reduce_scatter, allgather, alltoall, bcast) runs the IPC protocol, reading the peers' buffers
// where they are, and charges each rank what its GPU would take (network keys gpu_lat, gpu_bw,
// gpu_reduce_bw, nvlink_bw) instead of the PCIe staging copies. Results are
// the rank-order fold, bitwise; a timing-only run takes the same virtual time;
// across nodes, or with UCC_DEVICE_IPC=n, the staging is charged again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tests/common/scoped_env.h"
#include "tools/perf/lifecycle.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Job {
    uint32_t ranks = 3;
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_CUDA;
    ucc_reduction_op_t op = UCC_OP_SUM;
    bool inplace = false;
    uint64_t root = 0;
    size_t count = 0;
    std::vector<uint64_t> counts, displs;  // allgatherv's blocks (count unused)
    std::vector<double> took;              // post to completion, per rank
    std::vector<std::vector<double>> got;  // each rank's result
};

// Rank r's input: values whose float64 sum depends on the order of the terms.
double input(uint32_t r, size_t i) {
    const double big = (r % 2 == 0) ? 1e16 : -1e16;
    return (r == 0 ? 0.0 : big) + 1.0 / static_cast<double>(3 + r + i % 7);
}

void rank_body(void *arg) {
    auto *run = static_cast<Job *>(arg);
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    ucc::perf::Lifecycle lc;
    ASSERT_EQ(lc.setup(s), "");
    // count: the vector (allreduce, bcast) or the block (the others).
    const size_t count = run->count;
    const uint32_t n = s.size;
    const ucc_coll_type_t t = run->type;
    const bool by_blocks = t == UCC_COLL_TYPE_REDUCE_SCATTER || t == UCC_COLL_TYPE_ALLTOALL;
    const bool v = t == UCC_COLL_TYPE_ALLGATHERV;
    size_t src_len = v ? run->counts[s.rank] : by_blocks ? count * n : count;
    size_t dst_len =
        t == UCC_COLL_TYPE_ALLGATHER || t == UCC_COLL_TYPE_ALLTOALL ? count * n : count;
    for (uint32_t q = 0; v && q < n; ++q) {
        dst_len = std::max<size_t>(dst_len, run->displs[q] + run->counts[q]);
    }
    std::vector<double> src(src_len);
    for (size_t i = 0; i < src_len; ++i) {
        src[i] = input(s.rank, i);
    }
    std::vector<double> dst(dst_len, 0);
    ucc_coll_args_t a{};
    a.coll_type = t;
    if (t == UCC_COLL_TYPE_BCAST) {
        if (s.rank != run->root) {
            std::fill(src.begin(), src.end(), 0.0);
        }
        a.root = run->root;
        a.src.info = {src.data(), count, UCC_DT_FLOAT64, run->mem};
    } else {
        a.op = run->op;
        a.root = run->root;
        a.src.info = {src.data(), src_len, UCC_DT_FLOAT64, run->mem};
        a.dst.info = {run->inplace ? src.data() : dst.data(), run->inplace ? src_len : dst_len,
                      UCC_DT_FLOAT64, run->mem};
        if (run->inplace) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (v) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
            a.dst.info_v = {dst.data(), run->counts.data(), run->displs.data(), UCC_DT_FLOAT64,
                            run->mem};
        }
    }
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, lc.team), UCC_OK);
    const double t0 = ucc_sim_now();
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    EXPECT_EQ(ucc::perf::wait(req, lc.ctx), UCC_OK);
    run->took[s.rank] = ucc_sim_now() - t0;
    const bool in_src = run->inplace || run->type == UCC_COLL_TYPE_BCAST;
    run->got[s.rank] = in_src ? src : dst;
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    EXPECT_EQ(lc.teardown(), "");
}

Job simulate(Job run, const std::string &network, bool timing_only = false) {
    run.took.assign(run.ranks, -1);
    run.got.assign(run.ranks, {});
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_TIMING_ONLY;
    p.n_ranks = run.ranks;
    p.flags = UCC_SIM_FLAG_QUIET;
    p.network = network.c_str();
    p.timing_only = timing_only ? 1 : 0;
    EXPECT_EQ(ucc_sim_run(&p, rank_body, &run), UCC_OK);
    return run;
}

// The inputs folded in rank order, ((x0 + x1) + x2) + ..., as the IPC
// protocol's kernels do; AVG divides the fold once.
std::vector<double> fold(uint32_t ranks, size_t count, ucc_reduction_op_t op) {
    std::vector<double> want(count);
    for (size_t i = 0; i < count; ++i) {
        double acc = input(0, i);
        for (uint32_t r = 1; r < ranks; ++r) {
            acc += input(r, i);
        }
        want[i] = op == UCC_OP_AVG ? acc / ranks : acc;
    }
    return want;
}

bool same_bits(const std::vector<double> &x, const std::vector<double> &y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * 8) == 0;
}

constexpr const char *kNode = "hdr,jitter=0";  // 8 ranks per node: one node
constexpr const char *kGpu = ",gpu_lat=4us,gpu_reduce_bw=1TB/s,nvlink_bw=400GB/s,gpu_bw=2TB/s";
constexpr const char *kPcie = ",pcie_lat=10us,pcie_bw=25GB/s";
// Device work whose costs the tests below compute.
constexpr const char *kEven = ",gpu_lat=4us,gpu_reduce_bw=1TB/s,nvlink_bw=2TB/s,gpu_bw=2TB/s";

TEST(SimDeviceIpc, AllreduceFoldsInRankOrderBitwiseOutOfPlaceAndInPlace) {
    for (uint32_t ranks : {3u, 5u}) {
        for (bool inplace : {false, true}) {
            for (size_t count : {size_t{1}, size_t{4}, size_t{1001}}) {
                Job r;
                r.ranks = ranks;
                r.inplace = inplace;
                r.count = count;
                const Job out = simulate(r, std::string(kNode) + kGpu);
                const std::vector<double> want = fold(ranks, count, UCC_OP_SUM);
                for (uint32_t q = 0; q < ranks; ++q) {
                    EXPECT_TRUE(same_bits(out.got[q], want))
                        << ranks << " ranks, in place " << inplace << ", count " << count
                        << ", rank " << q;
                }
            }
        }
    }
}

TEST(SimDeviceIpc, AverageDividesTheFoldOnce) {
    Job r;
    r.ranks = 5;
    r.op = UCC_OP_AVG;
    r.count = 777;
    const Job out = simulate(r, std::string(kNode) + kGpu);
    for (uint32_t q = 0; q < r.ranks; ++q) {
        EXPECT_TRUE(same_bits(out.got[q], fold(r.ranks, r.count, UCC_OP_AVG))) << "rank " << q;
    }
}

TEST(SimDeviceIpc, BcastCopiesTheRootsBufferFromTheFirstAndTheLastRank) {
    for (uint64_t root : {uint64_t{0}, uint64_t{4}}) {
        Job r;
        r.ranks = 5;
        r.type = UCC_COLL_TYPE_BCAST;
        r.root = root;
        r.count = 3000;
        const Job out = simulate(r, std::string(kNode) + kGpu);
        std::vector<double> want(r.count);
        for (size_t i = 0; i < r.count; ++i) {
            want[i] = input(static_cast<uint32_t>(root), i);
        }
        for (uint32_t q = 0; q < r.ranks; ++q) {
            EXPECT_TRUE(same_bits(out.got[q], want)) << "root " << root << ", rank " << q;
        }
    }
}

// Out of place, equal blocks: each rank reduces its block from the n inputs
// in one kernel (gpu_lat + its traffic, (n + 1) blocks, at 3 x gpu_reduce_bw,
// or its n - 1 peers' blocks at nvlink_bw, whichever is longer) and copies
// the n - 1 other blocks from their owners (gpu_lat + block / nvlink_bw
// each). Every rank pays the same, so the barriers pass it on unchanged.
TEST(SimDeviceIpc, EachRankPaysItsReductionsAndPeerCopies) {
    Job r;
    r.ranks = 4;
    r.count = 4 * 1000;
    const double block = 1000 * 8;
    const double n1 = r.ranks - 1;
    const double kernel = std::max((n1 + 2) * block / 3e12, n1 * block / 2e12);
    const double want = 4e-6 + kernel + n1 * (4e-6 + block / 2e12);
    const Job unpaid = simulate(r, kNode);
    const Job paid = simulate(r, std::string(kNode) + kEven);
    for (uint32_t q = 0; q < r.ranks; ++q) {
        EXPECT_NEAR(paid.took[q] - unpaid.took[q], want, 1e-12) << "rank " << q;
    }
}

// A non-root copies the root's buffer; the root waits for them in the
// closing barrier, less than a copy.
TEST(SimDeviceIpc, BcastPaysOnePeerCopy) {
    Job r;
    r.ranks = 3;
    r.type = UCC_COLL_TYPE_BCAST;
    r.root = 1;
    r.count = 1 << 16;
    const double want = 4e-6 + r.count * 8 / 400e9;
    const Job unpaid = simulate(r, kNode);
    const Job paid = simulate(r, std::string(kNode) + kGpu);
    for (uint32_t q = 0; q < r.ranks; ++q) {
        const double extra = paid.took[q] - unpaid.took[q];
        if (q == r.root) {
            EXPECT_GT(extra, want / 2) << "the root";
            EXPECT_LT(extra, want) << "the root";
        } else {
            EXPECT_NEAR(extra, want, want / 100) << "rank " << q;
        }
    }
}

// Reduce_scatter, allgather and alltoall: every rank's result by definition
// (reductions as the rank-order fold, bitwise), and each rank's device work:
// one kernel folding its block from n inputs, or n copies of a block (n - 1
// from peers).
TEST(SimDeviceIpc, ReduceScatterAllgatherAndAlltoall) {
    constexpr size_t kBlock = 500;
    constexpr double kBytes = kBlock * 8;
    for (const ucc_coll_type_t t :
         {UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL}) {
        Job r;
        r.ranks = 5;
        r.type = t;
        r.count = kBlock;
        const Job unpaid = simulate(r, kNode);
        const Job paid = simulate(r, std::string(kNode) + kEven);
        const double n = r.ranks;
        const double kernel = std::max((n + 1) * kBytes / 3e12, (n - 1) * kBytes / 2e12);
        const double want =
            t == UCC_COLL_TYPE_REDUCE_SCATTER ? 4e-6 + kernel : n * (4e-6 + kBytes / 2e12);
        for (uint32_t q = 0; q < r.ranks; ++q) {
            SCOPED_TRACE(testing::Message() << "type " << t << ", rank " << q);
            EXPECT_NEAR(paid.took[q] - unpaid.took[q], want, 1e-12);
            std::vector<double> expect;
            if (t == UCC_COLL_TYPE_REDUCE_SCATTER) {
                for (size_t i = 0; i < kBlock; ++i) {
                    double acc = input(0, q * kBlock + i);
                    for (uint32_t p = 1; p < r.ranks; ++p) {
                        acc += input(p, q * kBlock + i);
                    }
                    expect.push_back(acc);
                }
            } else {
                for (uint32_t p = 0; p < r.ranks; ++p) {
                    for (size_t i = 0; i < kBlock; ++i) {
                        const size_t at = t == UCC_COLL_TYPE_ALLTOALL ? q * kBlock + i : i;
                        expect.push_back(input(p, at));
                    }
                }
            }
            EXPECT_TRUE(same_bits(paid.got[q], expect));
        }
    }
}

// Allgatherv with uneven blocks: every rank copies every block (n - 1 from
// peers, its own locally), whatever their lengths; the result by definition
// (the untouched gaps 0).
TEST(SimDeviceIpc, AllgathervCopiesEveryBlockWhateverItsLength) {
    Job r;
    r.type = UCC_COLL_TYPE_ALLGATHERV;
    r.counts = {100, 2000, 30};
    r.displs = {2040, 0, 2005};
    const Job unpaid = simulate(r, kNode);
    const Job paid = simulate(r, std::string(kNode) + kEven);
    double want = 0;
    std::vector<double> expect(2140, 0);
    for (uint32_t q = 0; q < 3; ++q) {
        want += 4e-6 + static_cast<double>(r.counts[q] * 8) / 2e12;
        for (uint64_t i = 0; i < r.counts[q]; ++i) {
            expect[r.displs[q] + i] = input(q, i);
        }
    }
    for (uint32_t q = 0; q < 3; ++q) {
        EXPECT_NEAR(paid.took[q] - unpaid.took[q], want, 1e-12) << "rank " << q;
        EXPECT_TRUE(same_bits(paid.got[q], expect)) << "rank " << q;
    }
}

// Reduce: each rank folds its block from every rank's src into the root's
// dst, one kernel of count/n elements, then the closing barrier.
TEST(SimDeviceIpc, ReduceFoldsEachBlockIntoTheRootsBuffer) {
    Job r;
    r.ranks = 4;
    r.type = UCC_COLL_TYPE_REDUCE;
    r.root = 3;
    r.count = 4 * 1000;
    const double block = 1000 * 8;
    const double want = 4e-6 + std::max(5 * block / 3e12, 3 * block / 2e12);
    const Job unpaid = simulate(r, kNode);
    const Job paid = simulate(r, std::string(kNode) + kEven);
    EXPECT_TRUE(same_bits(paid.got[3], fold(4, r.count, UCC_OP_SUM)));
    for (uint32_t q = 0; q < r.ranks; ++q) {
        EXPECT_NEAR(paid.took[q] - unpaid.took[q], want, 1e-12) << "rank " << q;
    }
}

// Over IPC nothing is staged: PCIe costs do not apply. Across nodes (one
// rank per node), or with UCC_DEVICE_IPC=n, the staging's two copies do.
TEST(SimDeviceIpc, StagingIsChargedOnlyWhereIpcDoesNotApply) {
    Job r;
    r.ranks = 3;
    r.count = 3000;
    const double copy = 10e-6 + r.count * 8 / 25e9;
    const Job ipc = simulate(r, std::string(kNode) + kGpu);
    const Job ipc_pcie = simulate(r, std::string(kNode) + kGpu + kPcie);
    Job host = r;
    host.mem = UCC_MEMORY_TYPE_HOST;
    const Job host_node = simulate(host, std::string(kNode) + kPcie);
    Job off;
    {
        ucc::testkit::ScopedEnv no("UCC_DEVICE_IPC", "n");
        off = simulate(r, std::string(kNode) + kGpu + kPcie);
    }
    const Job spread = simulate(r, std::string(kNode) + ",ppn=1" + kGpu + kPcie);
    const Job host_spread = simulate(host, std::string(kNode) + ",ppn=1" + kPcie);
    for (uint32_t q = 0; q < r.ranks; ++q) {
        EXPECT_EQ(ipc_pcie.took[q], ipc.took[q]) << "rank " << q;
        EXPECT_NE(ipc.took[q], host_node.took[q]) << "rank " << q;  // (the IPC protocol ran)
        EXPECT_NEAR(off.took[q] - host_node.took[q], 2 * copy, 1e-12) << "rank " << q;
        EXPECT_NEAR(spread.took[q] - host_spread.took[q], 2 * copy, 1e-12) << "rank " << q;
    }
}

TEST(SimDeviceIpc, ATimingOnlyRunTakesTheSameVirtualTime) {
    Job r;
    r.ranks = 5;
    r.inplace = true;
    r.count = 100'000;
    const Job full = simulate(r, std::string(kNode) + kGpu);
    const Job timing = simulate(r, std::string(kNode) + kGpu, true);
    for (uint32_t q = 0; q < r.ranks; ++q) {
        EXPECT_EQ(timing.took[q], full.took[q]) << "rank " << q;
    }
}

}  // namespace
