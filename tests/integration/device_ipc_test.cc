// Collectives on CUDA memory within a host through CUDA IPC (lib/core/device_ipc.h),
// without a GPU: ranks over UCX in one process with the fake component
// (tests/fake_cuda), whose "device" memory the CPU cannot touch and whose
// "kernels" reduce it on a stream thread. One process: the ranks read each
// other's buffers at their addresses (nothing is opened); the opening of
// handles across processes runs in tests/tools/perftest_test.sh (ucc_run).
#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tests/common/fake_device.h"
#include "tests/common/inproc_world.h"
#include "tests/common/scoped_env.h"

#if UCC_WITH_UCX

namespace {

using ucc::testkit::FakeDevice;
using ucc::testkit::InprocWorld;
using ucc::testkit::ScopedEnv;

// The fake's counters (tests/fake_cuda/fake_cuda_component.cc).
enum Stat { kPinned = 1, kToHost = 2, kToDevice = 3, kReductions = 8, kDeviceToDevice = 9 };

class DeviceIpc : public ::testing::TestWithParam<uint32_t> {
  protected:
    void SetUp() override {
        ASSERT_NE(dev_.ops(), nullptr) << "the fake component was not built at " UCC_FAKE_CUDA_DIR;
        world_ = std::make_unique<InprocWorld>(GetParam());
        ASSERT_EQ(world_->open(), "");
    }
    uint32_t n() const { return GetParam(); }
    uint64_t stat(Stat s) { return dev_.stats()[s]; }
    // Inits args[r] on every rank, posts them `posts` times to completion.
    void run(std::vector<ucc_coll_args_t> &args, int posts = 1) {
        std::vector<ucc_coll_req_h> reqs(n(), nullptr);
        for (uint32_t r = 0; r < n(); ++r) {
            if (posts > 1) {
                args[r].mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                args[r].flags |= UCC_COLL_ARGS_FLAG_PERSISTENT;
            }
            ASSERT_EQ(ucc_collective_init(&args[r], &reqs[r], world_->ranks()[r].team), UCC_OK);
        }
        for (int p = 0; p < posts; ++p) {
            std::vector<ucc_coll_req_h> copy = reqs;
            ASSERT_TRUE(world_->run(copy));
            for (ucc_coll_req_h q : reqs) {
                ASSERT_EQ(ucc_collective_test(q), UCC_OK);
            }
        }
        for (ucc_coll_req_h q : reqs) {
            EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
        }
    }
    ScopedEnv path_{"UCC_COMPONENT_PATH", UCC_FAKE_CUDA_DIR};
    FakeDevice dev_;
    std::unique_ptr<InprocWorld> world_;
};

// Values whose float sums depend on the order they are added in.
double value(uint32_t rank, size_t i) {
    return (rank % 2 == 0 ? 1e16 : 1.0) * static_cast<double>(i % 7 + 1) + 0.1 * rank;
}

// Out of place and in place, with counts that leave blocks of unequal length
// (and empty ones), persistent re-posts: every rank's result is the rank-order
// fold ((s0 + s1) + s2) ..., bitwise, and nothing crossed to the host.
TEST_P(DeviceIpc, AllreduceIsTheRankOrderFoldBitwiseWithoutHostCopies) {
    for (const size_t count : {size_t{1}, size_t{2}, size_t{1001}, size_t{65536 + 3}}) {
        for (const bool inplace : {false, true}) {
            SCOPED_TRACE(testing::Message() << "count " << count << (inplace ? " in place" : ""));
            std::vector<double> want(count);
            for (size_t i = 0; i < count; ++i) {
                double acc = value(0, i);
                for (uint32_t r = 1; r < n(); ++r) {
                    acc += value(r, i);
                }
                want[i] = acc;
            }
            std::vector<ucc_coll_args_t> args(n());
            std::vector<void *> dst(n());
            for (uint32_t r = 0; r < n(); ++r) {
                std::vector<double> in(count);
                for (size_t i = 0; i < count; ++i) {
                    in[i] = value(r, i);
                }
                ucc_coll_args_t &a = args[r];
                a = {};
                a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
                a.op = UCC_OP_SUM;
                dst[r] = dev_.make(inplace ? in : std::vector<double>(count, -1.0));
                a.dst.info = {dst[r], count, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
                if (inplace) {
                    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                    a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
                } else {
                    a.src.info = {dev_.make(in), count, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
                }
            }
            const uint64_t to_host = stat(kToHost);
            const uint64_t d2d = stat(kDeviceToDevice);
            const uint64_t reductions = stat(kReductions);
            const uint64_t pinned = stat(kPinned);
            run(args, inplace ? 1 : 2);  // (in place, a second post would sum the sums)
            EXPECT_EQ(stat(kToHost), to_host) << "a byte of the vector went through the host";
            const uint64_t posts = inplace ? 1 : 2;
            // Each rank copies the other blocks: (n - 1)/n of the vector, in total
            // (n - 1) vectors per post.
            EXPECT_EQ(stat(kDeviceToDevice) - d2d, posts * (n() - 1) * count * 8);
            EXPECT_LE(stat(kReductions) - reductions, posts * n()) << "one kernel per rank";
            EXPECT_LE(stat(kPinned) - pinned, uint64_t{n()}) << "the counters only";
            for (uint32_t r = 0; r < n(); ++r) {
                const auto got = dev_.read<double>(dst[r], count);
                ASSERT_EQ(std::memcmp(got.data(), want.data(), count * 8), 0)
                    << "rank " << r << ": first element " << got[0] << ", want " << want[0];
            }
        }
    }
}

// AVG divides once at the end; MAX on integers.
TEST_P(DeviceIpc, AvgAndMax) {
    constexpr size_t kCount = 4099;
    std::vector<ucc_coll_args_t> args(n());
    std::vector<void *> avg(n()), max(n());
    for (uint32_t r = 0; r < n(); ++r) {
        std::vector<float> f(kCount);
        std::vector<int64_t> v(kCount);
        for (size_t i = 0; i < kCount; ++i) {
            f[i] = static_cast<float>(r * 3 + i % 5);
            v[i] = static_cast<int64_t>((i + r) % n()) - 5;
        }
        avg[r] = dev_.make(f);
        max[r] = dev_.make(v);
        args[r] = {};
        args[r].coll_type = UCC_COLL_TYPE_ALLREDUCE;
        args[r].op = UCC_OP_AVG;
        args[r].mask = UCC_COLL_ARGS_FIELD_FLAGS;
        args[r].flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        args[r].dst.info = {avg[r], kCount, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_UNKNOWN};
    }
    run(args);
    for (uint32_t r = 0; r < n(); ++r) {
        args[r].op = UCC_OP_MAX;
        args[r].dst.info = {max[r], kCount, UCC_DT_INT64, UCC_MEMORY_TYPE_CUDA};
    }
    run(args);
    for (uint32_t r = 0; r < n(); ++r) {
        const auto a = dev_.read<float>(avg[r], kCount);
        const auto m = dev_.read<int64_t>(max[r], kCount);
        for (size_t i = 0; i < kCount; i += 409) {
            float sum = 0;
            for (uint32_t q = 0; q < n(); ++q) {
                sum += static_cast<float>(q * 3 + i % 5);
            }
            EXPECT_EQ(a[i], sum / static_cast<float>(n())) << "rank " << r << " element " << i;
            EXPECT_EQ(m[i], static_cast<int64_t>(n()) - 6) << "rank " << r << " element " << i;
        }
    }
}

// Bcast: every non-root copies the root's buffer, device to device; persistent.
TEST_P(DeviceIpc, BcastCopiesTheRootsBufferDeviceToDevice) {
    constexpr size_t kBytes = 100'001;
    for (const uint32_t root : {0u, n() - 1}) {
        std::vector<ucc_coll_args_t> args(n());
        std::vector<void *> buf(n());
        for (uint32_t r = 0; r < n(); ++r) {
            std::vector<uint8_t> v(kBytes);
            for (size_t i = 0; i < kBytes; ++i) {
                v[i] = static_cast<uint8_t>(r == root ? i * 7 + 3 : 0xee);
            }
            buf[r] = dev_.make(v);
            args[r] = {};
            args[r].coll_type = UCC_COLL_TYPE_BCAST;
            args[r].root = root;
            args[r].src.info = {buf[r], kBytes, UCC_DT_INT8, UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = stat(kToHost);
        const uint64_t d2d = stat(kDeviceToDevice);
        run(args, 2);
        EXPECT_EQ(stat(kToHost), to_host) << "root " << root;
        EXPECT_EQ(stat(kDeviceToDevice) - d2d, 2 * (n() - 1) * kBytes) << "root " << root;
        for (uint32_t r = 0; r < n(); ++r) {
            const auto got = dev_.read<uint8_t>(buf[r], kBytes);
            for (size_t i = 0; i < kBytes; i += 997) {
                ASSERT_EQ(got[i], static_cast<uint8_t>(i * 7 + 3))
                    << "root " << root << " rank " << r << " byte " << i;
            }
        }
    }
}

// Reduce_scatter: each rank reduces its block from every rank's src, in rank
// order, into its dst (in place: at its offset of the whole vector); the
// other blocks of an in-place dst stay as they were.
TEST_P(DeviceIpc, ReduceScatterIsTheRankOrderFoldOfEachBlock) {
    constexpr size_t kBlock = 1001;
    const size_t total = kBlock * n();
    for (const bool inplace : {false, true}) {
        SCOPED_TRACE(inplace ? "in place" : "out of place");
        std::vector<ucc_coll_args_t> args(n());
        std::vector<void *> dst(n());
        for (uint32_t r = 0; r < n(); ++r) {
            std::vector<double> in(total);
            for (size_t i = 0; i < total; ++i) {
                in[i] = value(r, i);
            }
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTER;
            a.op = UCC_OP_SUM;
            if (inplace) {
                dst[r] = dev_.make(in);
                a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
                a.dst.info = {dst[r], total, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
            } else {
                dst[r] = dev_.make(std::vector<double>(kBlock, -1.0));
                a.src.info = {dev_.make(in), total, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
                a.dst.info = {dst[r], kBlock, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
            }
        }
        const uint64_t to_host = stat(kToHost);
        const uint64_t reductions = stat(kReductions);
        run(args);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
        EXPECT_EQ(stat(kReductions) - reductions, uint64_t{n()}) << "one kernel per rank";
        for (uint32_t r = 0; r < n(); ++r) {
            const auto got = dev_.read<double>(dst[r], inplace ? total : kBlock);
            const size_t at = inplace ? r * kBlock : 0;
            for (size_t i = 0; i < kBlock; ++i) {
                const size_t e = r * kBlock + i;
                double acc = value(0, e);
                for (uint32_t q = 1; q < n(); ++q) {
                    acc += value(q, e);
                }
                ASSERT_EQ(std::memcmp(&got[at + i], &acc, 8), 0)
                    << "rank " << r << " element " << i;
            }
            if (inplace) {
                const size_t other = (r + 1) % n() * kBlock;
                EXPECT_EQ(got[other], value(r, other)) << "rank " << r << ": another block changed";
            }
        }
    }
}

// Allgather (out of place and in place) and alltoall: blocks copied device to
// device from the peers' src, persistent re-posts; nothing through the host.
TEST_P(DeviceIpc, AllgatherAndAlltoallCopyTheBlocksDeviceToDevice) {
    constexpr size_t kBlock = 30'001;  // bytes
    auto byte = [](uint32_t from, uint32_t to, size_t i) {
        return static_cast<uint8_t>(from * 31 + to * 7 + i * 13);
    };
    for (const int kind : {0, 1, 2}) {  // allgather, in place, alltoall
        SCOPED_TRACE(testing::Message() << "kind " << kind);
        const bool alltoall = kind == 2;
        std::vector<ucc_coll_args_t> args(n());
        std::vector<void *> dst(n());
        for (uint32_t r = 0; r < n(); ++r) {
            std::vector<uint8_t> in(alltoall ? kBlock * n() : kBlock);
            for (size_t i = 0; i < in.size(); ++i) {
                in[i] = byte(r, alltoall ? static_cast<uint32_t>(i / kBlock) : 0, i % kBlock);
            }
            std::vector<uint8_t> out(kBlock * n(), 0xee);
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = alltoall ? UCC_COLL_TYPE_ALLTOALL : UCC_COLL_TYPE_ALLGATHER;
            if (kind == 1) {
                std::copy(in.begin(), in.end(), out.begin() + r * kBlock);
                a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
            } else {
                a.src.info = {dev_.make(in), in.size(), UCC_DT_UINT8, UCC_MEMORY_TYPE_CUDA};
            }
            dst[r] = dev_.make(out);
            a.dst.info = {dst[r], out.size(), UCC_DT_UINT8, UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = stat(kToHost);
        const uint64_t d2d = stat(kDeviceToDevice);
        run(args, 2);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
        // Each rank copies n blocks (in place n - 1: its own is there).
        const uint64_t blocks = kind == 1 ? n() - 1 : n();
        EXPECT_EQ(stat(kDeviceToDevice) - d2d, 2 * n() * blocks * kBlock);
        for (uint32_t r = 0; r < n(); ++r) {
            const auto got = dev_.read<uint8_t>(dst[r], kBlock * n());
            for (uint32_t q = 0; q < n(); ++q) {
                for (size_t i = 0; i < kBlock; i += 1009) {
                    ASSERT_EQ(got[q * kBlock + i], byte(q, alltoall ? r : 0, i))
                        << "rank " << r << " block " << q << " byte " << i;
                }
            }
        }
    }
}

// The v-collectives with uneven blocks: allgatherv (gaps in dst that must
// survive; in place too), reduce_scatterv (each block the rank-order fold,
// bitwise; in place too) and alltoallv (each rank's src blocks in reverse
// order, so a peer's block is found only at the displacement its card names).
TEST_P(DeviceIpc, VCollectivesWithUnevenBlocks) {
    const uint32_t n = this->n();
    auto count = [](uint32_t from, uint32_t to) { return uint64_t{100 + 10 * from + to}; };
    auto v = [](uint32_t from, uint32_t to, uint64_t i) {
        return static_cast<int32_t>(from * 1'000'000 + to * 10'000 + i);
    };
    // allgatherv, out of place and in place: block q at displs[q] (5-element gaps).
    for (const bool inplace : {false, true}) {
        SCOPED_TRACE(inplace ? "allgatherv in place" : "allgatherv");
        std::vector<uint64_t> counts(n), displs(n);
        uint64_t total = 0;
        for (uint32_t q = 0; q < n; ++q) {
            counts[q] = count(q, 0);
            displs[q] = total;
            total += counts[q] + 5;
        }
        std::vector<ucc_coll_args_t> args(n);
        std::vector<void *> dst(n);
        for (uint32_t r = 0; r < n; ++r) {
            std::vector<int32_t> mine(counts[r]);
            for (uint64_t i = 0; i < counts[r]; ++i) {
                mine[i] = v(r, 0, i);
            }
            std::vector<int32_t> out(total, -7);
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = UCC_COLL_TYPE_ALLGATHERV;
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
            if (inplace) {
                a.flags |= UCC_COLL_ARGS_FLAG_IN_PLACE;
                std::copy(mine.begin(), mine.end(), out.begin() + displs[r]);
            } else {
                a.src.info = {dev_.make(mine), counts[r], UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
            }
            dst[r] = dev_.make(out);
            a.dst.info_v = {dst[r], counts.data(), displs.data(), UCC_DT_INT32,
                            UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = stat(kToHost);
        run(args);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
        for (uint32_t r = 0; r < n; ++r) {
            const auto got = dev_.read<int32_t>(dst[r], total);
            for (uint32_t q = 0; q < n; ++q) {
                for (uint64_t i = 0; i < counts[q]; ++i) {
                    ASSERT_EQ(got[displs[q] + i], v(q, 0, i)) << "rank " << r << " block " << q;
                }
                ASSERT_EQ(got[displs[q] + counts[q]], -7) << "rank " << r << ": a gap was written";
            }
        }
    }
    // reduce_scatterv, out of place and in place: rank q's block of counts[q]
    // at the prefix of the counts; float64 values whose sum depends on the order.
    for (const bool inplace : {false, true}) {
        SCOPED_TRACE(inplace ? "reduce_scatterv in place" : "reduce_scatterv");
        std::vector<uint32_t> counts(n);
        uint64_t total = 0;
        for (uint32_t q = 0; q < n; ++q) {
            counts[q] = static_cast<uint32_t>(count(q, q) * 3);
            total += counts[q];
        }
        std::vector<ucc_coll_args_t> args(n);
        std::vector<void *> dst(n);
        for (uint32_t r = 0; r < n; ++r) {
            std::vector<double> in(total);
            for (uint64_t i = 0; i < total; ++i) {
                in[i] = value(r, i);
            }
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
            a.op = UCC_OP_SUM;
            if (inplace) {
                dst[r] = dev_.make(in);
                a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
            } else {
                dst[r] = dev_.make(std::vector<double>(counts[r], -1.0));
                a.src.info = {dev_.make(in), total, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
            }
            // (32-bit counts, no displacements: reduce_scatterv takes none.)
            a.dst.info_v = {dst[r], reinterpret_cast<ucc_count_t *>(counts.data()), nullptr,
                            UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = stat(kToHost);
        const uint64_t reductions = stat(kReductions);
        run(args);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
        EXPECT_EQ(stat(kReductions) - reductions, uint64_t{n}) << "one kernel per rank";
        uint64_t first = 0;
        for (uint32_t r = 0; r < n; ++r) {
            const auto got = dev_.read<double>(dst[r], inplace ? total : counts[r]);
            const uint64_t at = inplace ? first : 0;
            for (uint64_t i = 0; i < counts[r]; ++i) {
                double acc = value(0, first + i);
                for (uint32_t q = 1; q < n; ++q) {
                    acc += value(q, first + i);
                }
                ASSERT_EQ(std::memcmp(&got[at + i], &acc, 8), 0)
                    << "rank " << r << " element " << i;
            }
            first += counts[r];
        }
    }
    // alltoallv: rank r sends count(r, q) elements to q, its blocks in src in
    // reverse order of q; it receives them at prefix displacements with gaps.
    {
        SCOPED_TRACE("alltoallv");
        std::vector<std::vector<uint64_t>> sc(n), sd(n), rc(n), rd(n);
        std::vector<uint64_t> src_len(n), dst_len(n);
        std::vector<ucc_coll_args_t> args(n);
        std::vector<void *> dst(n);
        for (uint32_t r = 0; r < n; ++r) {
            sc[r].resize(n);
            sd[r].resize(n);
            rc[r].resize(n);
            rd[r].resize(n);
            uint64_t off = 0;
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t q = n - 1 - k;  // (reverse order)
                sc[r][q] = count(r, q);
                sd[r][q] = off;
                off += sc[r][q];
            }
            src_len[r] = off;
            off = 0;
            for (uint32_t q = 0; q < n; ++q) {
                rc[r][q] = count(q, r);
                rd[r][q] = off;
                off += rc[r][q] + 3;
            }
            dst_len[r] = off;
            std::vector<int32_t> in(src_len[r]);
            for (uint32_t q = 0; q < n; ++q) {
                for (uint64_t i = 0; i < sc[r][q]; ++i) {
                    in[sd[r][q] + i] = v(r, q, i);
                }
            }
            ucc_coll_args_t &a = args[r];
            a = {};
            a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
            a.src.info_v = {dev_.make(in), sc[r].data(), sd[r].data(), UCC_DT_INT32,
                            UCC_MEMORY_TYPE_CUDA};
            dst[r] = dev_.make(std::vector<int32_t>(dst_len[r], -7));
            a.dst.info_v = {dst[r], rc[r].data(), rd[r].data(), UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
        }
        const uint64_t to_host = stat(kToHost);
        run(args, 2);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
        for (uint32_t r = 0; r < n; ++r) {
            const auto got = dev_.read<int32_t>(dst[r], dst_len[r]);
            for (uint32_t q = 0; q < n; ++q) {
                for (uint64_t i = 0; i < rc[r][q]; ++i) {
                    ASSERT_EQ(got[rd[r][q] + i], v(q, r, i)) << "rank " << r << " from " << q;
                }
                ASSERT_EQ(got[rd[r][q] + rc[r][q]], -7) << "rank " << r << ": a gap was written";
            }
        }
    }
}

// Rooted collectives, from the first and the last rank: reduce (each block
// the rank-order fold, written into the root's dst by its owner; the root in
// place too), gather(v) (the root copies the peers' blocks; in place too;
// gatherv's gaps untouched) and scatter(v) (each rank copies its block of
// the root's src; scatterv's blocks in reverse order, so a rank finds its
// own only at the offset the root's card names).
TEST_P(DeviceIpc, RootedCollectivesFromTheFirstAndTheLastRank) {
    const uint32_t n = this->n();
    constexpr size_t kCount = 3001;
    auto v = [](uint32_t from, uint32_t to, uint64_t i) {
        return static_cast<int32_t>(from * 1'000'000 + to * 10'000 + i);
    };
    // Runs args, no byte of it through the host (the checks read the results after).
    auto run_on_device = [this](std::vector<ucc_coll_args_t> &args) {
        const uint64_t to_host = stat(kToHost);
        run(args);
        EXPECT_EQ(stat(kToHost), to_host) << "a byte went through the host";
    };
    for (const uint32_t root : {0u, n - 1}) {
        for (const bool inplace : {false, true}) {
            SCOPED_TRACE(testing::Message() << "root " << root << (inplace ? " in place" : ""));
            // reduce
            std::vector<ucc_coll_args_t> args(n);
            void *out = nullptr;
            for (uint32_t r = 0; r < n; ++r) {
                std::vector<double> in(kCount);
                for (size_t i = 0; i < kCount; ++i) {
                    in[i] = value(r, i);
                }
                ucc_coll_args_t &a = args[r];
                a = {};
                a.coll_type = UCC_COLL_TYPE_REDUCE;
                a.op = UCC_OP_SUM;
                a.root = root;
                if (r == root) {
                    out = dev_.make(inplace ? in : std::vector<double>(kCount, -1.0));
                    a.dst.info = {out, kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
                }
                if (r == root && inplace) {
                    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                    a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
                } else {
                    a.src.info = {dev_.make(in), kCount, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_CUDA};
                }
            }
            const uint64_t reductions = stat(kReductions);
            run_on_device(args);
            EXPECT_EQ(stat(kReductions) - reductions, uint64_t{n}) << "reduce: one kernel per rank";
            const auto got = dev_.read<double>(out, kCount);
            for (size_t i = 0; i < kCount; ++i) {
                double acc = value(0, i);
                for (uint32_t q = 1; q < n; ++q) {
                    acc += value(q, i);
                }
                ASSERT_EQ(std::memcmp(&got[i], &acc, 8), 0) << "reduce element " << i;
            }
            // gather and gatherv (gaps of 2 elements)
            for (const bool vee : {false, true}) {
                std::vector<uint64_t> counts(n), displs(n);
                uint64_t total = 0;
                for (uint32_t q = 0; q < n; ++q) {
                    counts[q] = vee ? 50 + 7 * q : kCount;
                    displs[q] = total;
                    total += counts[q] + (vee ? 2 : 0);
                }
                for (uint32_t r = 0; r < n; ++r) {
                    std::vector<int32_t> mine(counts[r]);
                    for (uint64_t i = 0; i < counts[r]; ++i) {
                        mine[i] = v(r, 0, i);
                    }
                    ucc_coll_args_t &a = args[r];
                    a = {};
                    a.coll_type = vee ? UCC_COLL_TYPE_GATHERV : UCC_COLL_TYPE_GATHER;
                    a.root = root;
                    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                    a.flags =
                        UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
                    if (r == root) {
                        std::vector<int32_t> all(total, -7);
                        if (inplace) {
                            std::copy(mine.begin(), mine.end(), all.begin() + displs[r]);
                            a.flags |= UCC_COLL_ARGS_FLAG_IN_PLACE;
                        }
                        out = dev_.make(all);
                        if (vee) {
                            a.dst.info_v = {out, counts.data(), displs.data(), UCC_DT_INT32,
                                            UCC_MEMORY_TYPE_CUDA};
                        } else {
                            a.dst.info = {out, total, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
                        }
                    }
                    if (r != root || !inplace) {
                        a.src.info = {dev_.make(mine), counts[r], UCC_DT_INT32,
                                      UCC_MEMORY_TYPE_CUDA};
                    }
                }
                run_on_device(args);
                const auto all = dev_.read<int32_t>(out, total);
                for (uint32_t q = 0; q < n; ++q) {
                    for (uint64_t i = 0; i < counts[q]; i += 13) {
                        ASSERT_EQ(all[displs[q] + i], v(q, 0, i)) << "gather block " << q;
                    }
                    if (vee) {
                        ASSERT_EQ(all[displs[q] + counts[q]], -7) << "a gap was written";
                    }
                }
            }
            // scatter and scatterv (the root's blocks in reverse order)
            for (const bool vee : {false, true}) {
                std::vector<uint64_t> counts(n), displs(n);
                uint64_t total = 0;
                for (uint32_t k = 0; k < n; ++k) {
                    const uint32_t q = vee ? n - 1 - k : k;
                    counts[q] = vee ? 60 + 11 * q : kCount;
                    displs[q] = total;
                    total += counts[q];
                }
                std::vector<void *> dst(n, nullptr);
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t &a = args[r];
                    a = {};
                    a.coll_type = vee ? UCC_COLL_TYPE_SCATTERV : UCC_COLL_TYPE_SCATTER;
                    a.root = root;
                    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                    a.flags =
                        UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
                    if (r == root) {
                        std::vector<int32_t> all(total);
                        for (uint32_t q = 0; q < n; ++q) {
                            for (uint64_t i = 0; i < counts[q]; ++i) {
                                all[displs[q] + i] = v(root, q, i);
                            }
                        }
                        void *src = dev_.make(all);
                        if (vee) {
                            a.src.info_v = {src, counts.data(), displs.data(), UCC_DT_INT32,
                                            UCC_MEMORY_TYPE_CUDA};
                        } else {
                            a.src.info = {src, total, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
                        }
                        if (inplace) {
                            a.flags |= UCC_COLL_ARGS_FLAG_IN_PLACE;
                            continue;
                        }
                    }
                    dst[r] = dev_.make(std::vector<int32_t>(counts[r], -7));
                    a.dst.info = {dst[r], counts[r], UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
                }
                run_on_device(args);
                for (uint32_t r = 0; r < n; ++r) {
                    if (dst[r] == nullptr) {
                        continue;
                    }
                    const auto got = dev_.read<int32_t>(dst[r], counts[r]);
                    for (uint64_t i = 0; i < counts[r]; ++i) {
                        ASSERT_EQ(got[i], v(root, r, i)) << "scatter to rank " << r;
                    }
                }
            }
        }
    }
}

// A reduce whose root's dst is host memory: the root's card says so, every
// member stages, and the result is still right.
TEST_P(DeviceIpc, ARootsHostDestinationStagesEveryMember) {
    constexpr size_t kCount = 777;
    const uint32_t root = n() - 1;
    std::vector<ucc_coll_args_t> args(n());
    std::vector<int64_t> out(kCount, -1);
    for (uint32_t r = 0; r < n(); ++r) {
        ucc_coll_args_t &a = args[r];
        a = {};
        a.coll_type = UCC_COLL_TYPE_REDUCE;
        a.op = UCC_OP_SUM;
        a.root = root;
        a.src.info = {dev_.make(std::vector<int64_t>(kCount, r + 1)), kCount, UCC_DT_INT64,
                      UCC_MEMORY_TYPE_CUDA};
        if (r == root) {
            a.dst.info = {out.data(), kCount, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        }
    }
    const uint64_t to_host = stat(kToHost);
    const uint64_t reductions = stat(kReductions);
    run(args);
    EXPECT_GE(stat(kToHost) - to_host, uint64_t{n()} * kCount * 8) << "every member staged";
    EXPECT_EQ(stat(kReductions), reductions) << "no kernel";
    EXPECT_EQ(out, std::vector<int64_t>(kCount, int64_t{n()} * (n() + 1) / 2));
}

// A (datatype, op) the kernels lack, and DEVICE_IPC=n, stage through the host.
TEST_P(DeviceIpc, UnsupportedReductionsAndTheSwitchStage) {
    constexpr size_t kCount = 512;
    for (const bool off : {false, true}) {
        ScopedEnv knob("UCC_DEVICE_IPC", off ? "n" : "y");
        InprocWorld world(n());
        ASSERT_EQ(world.open(), "");
        std::vector<ucc_coll_req_h> reqs(n(), nullptr);
        std::vector<void *> buf(n());
        for (uint32_t r = 0; r < n(); ++r) {
            ucc_coll_args_t a = {};
            a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
            a.op = off ? UCC_OP_SUM : UCC_OP_BOR;  // (the fake's kernels have no BOR)
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
            buf[r] = dev_.make(std::vector<int32_t>(kCount, 1 << r));
            a.dst.info = {buf[r], kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_CUDA};
            ASSERT_EQ(ucc_collective_init(&a, &reqs[r], world.ranks()[r].team), UCC_OK);
        }
        const uint64_t to_host = stat(kToHost);
        const uint64_t reductions = stat(kReductions);
        std::vector<ucc_coll_req_h> copy = reqs;
        ASSERT_TRUE(world.run(copy));
        for (uint32_t r = 0; r < n(); ++r) {
            EXPECT_EQ(ucc_collective_test(reqs[r]), UCC_OK);
            EXPECT_EQ(ucc_collective_finalize(reqs[r]), UCC_OK);
            const int32_t want = (1 << n()) - 1;  // (SUM and BOR alike here)
            EXPECT_EQ(dev_.read<int32_t>(buf[r], kCount)[kCount - 1], want) << "rank " << r;
        }
        EXPECT_GE(stat(kToHost) - to_host, uint64_t{n()} * kCount * 4) << "staged";
        EXPECT_EQ(stat(kReductions), reductions) << "no kernel";
    }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DeviceIpc, ::testing::Values(2u, 3u, 5u),
                         [](const testing::TestParamInfo<uint32_t> &i) {
                             return std::to_string(i.param) + "ranks";
                         });

}  // namespace

#endif  // UCC_WITH_UCX
