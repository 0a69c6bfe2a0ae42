// Unit tests of the oracle (model/oracle.h): every collective type at N = 1, 2, 3, 5, 8 with every
// root, in place, v-variants with 32/64-bit counts and displacements and gaps between blocks, zero
// counts, UCC in-place reduce_scatter offsets, active sets and generic datatypes. Expected
// final buffers are written out by hand from the semantics (API.md §4.3) and compared, guards
// included, with the buffers after applying the oracle's writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "model/oracle.h"

namespace ucc::model {
namespace {

constexpr int32_t kGuardValue = -7777;  // around every buffer: must never change
constexpr int32_t kBlank = -1;          // initial contents of receive buffers
constexpr size_t kGuard = 4;
constexpr uint32_t kSizes[] = {1, 2, 3, 5, 8};

// A distinct, non-zero value for element i contributed by rank r.
int32_t value(uint32_t r, uint64_t i) {
    return static_cast<int32_t>(1000 * r + i + 1);
}

// One rank's int32 buffer of `size` elements between guard elements.
struct Buf {
    std::vector<int32_t> whole;

    explicit Buf(size_t size = 0, int32_t fill = kBlank) : whole(size + 2 * kGuard, kGuardValue) {
        std::fill(whole.begin() + kGuard, whole.end() - kGuard, fill);
    }
    int32_t *data() { return whole.data() + kGuard; }
    int32_t &operator[](size_t i) { return whole[kGuard + i]; }
};

// A counts or displacements array as the API sees it: uint32_t entries unless `wide`.
struct VArray {
    std::vector<uint32_t> narrow;
    std::vector<uint64_t> wide_entries;
    bool wide;

    VArray(const std::vector<uint64_t> &v, bool is_wide) : wide(is_wide) {
        wide_entries = v;
        narrow.assign(v.begin(), v.end());
    }
    uint64_t *get() {
        return wide ? wide_entries.data() : reinterpret_cast<uint64_t *>(narrow.data());
    }
};

struct Widths {
    bool count64;
    bool displ64;
};
constexpr Widths kWidths[] = {{false, false}, {true, false}, {false, true}, {true, true}};

// Args with every field junk except the ones a test sets (P30: unused fields are never read).
ucc_coll_args_t junk_args(ucc_coll_type_t type) {
    ucc_coll_args_t a;
    std::memset(&a, 0xa5, sizeof a);
    a.mask = 0;
    a.coll_type = type;
    a.error_type = UCC_ERR_TYPE_LOCAL;
    return a;
}

void set_flags(ucc_coll_args_t &a, bool in_place, Widths w = {false, false}) {
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = (in_place ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0) |
              (w.count64 ? UCC_COLL_ARGS_FLAG_COUNT_64BIT : 0) |
              (w.displ64 ? UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT : 0);
}

ucc_coll_buffer_info_t info(void *buffer, uint64_t count, ucc_datatype_t dt = UCC_DT_INT32) {
    return {buffer, count, dt, UCC_MEMORY_TYPE_HOST};
}

ucc_coll_buffer_info_v_t info_v(void *buffer, VArray &counts, VArray &displs,
                                ucc_datatype_t dt = UCC_DT_INT32) {
    return {buffer, counts.get(), displs.get(), dt, UCC_MEMORY_TYPE_HOST};
}

// src of an in-place collective: poison the oracle must not touch (P23).
ucc_coll_buffer_info_t poison() {
    return {reinterpret_cast<void *>(0xdead0000), ~uint64_t{0}, 0xa5a5a5a5a5a5a5a5ull,
            UCC_MEMORY_TYPE_HOST};
}

// Runs the oracle and applies its writes, as a correct collective would leave the buffers.
Expected run(uint32_t n, const std::vector<ucc_coll_args_t> &args) {
    Expected e = expected(n, args);
    EXPECT_EQ(e.writes.size(), n);
    for (const auto &w : e.writes) {
        apply(w);
    }
    EXPECT_EQ(check(e), "");
    return e;
}

void expect_same(std::vector<Buf> &got, std::vector<Buf> &want, const char *what) {
    for (size_t r = 0; r < got.size(); ++r) {
        EXPECT_EQ(got[r].whole, want[r].whole) << what << " of rank " << r;
    }
}

// Gaps between v-blocks: block i starts at sum_{j<i} (counts[j] + gap) + gap.
std::vector<uint64_t> gapped_displacements(const std::vector<uint64_t> &counts, uint64_t gap) {
    std::vector<uint64_t> displs;
    uint64_t at = gap;
    for (uint64_t c : counts) {
        displs.push_back(at);
        at += c + gap;
    }
    return displs;
}

uint64_t extent(const std::vector<uint64_t> &counts, const std::vector<uint64_t> &displs) {
    uint64_t end = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        end = std::max(end, displs[i] + counts[i]);
    }
    return end + 1;  // one trailing element that must stay blank
}

// ---- allgather(v)

TEST(ModelOracle, Allgather) {
    for (uint32_t n : kSizes) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " in_place=" << in_place);
            const uint64_t b = 2;
            std::vector<Buf> src, dst;
            std::vector<ucc_coll_args_t> args;
            for (uint32_t r = 0; r < n; ++r) {
                src.emplace_back(b);
                dst.emplace_back(n * b);
                for (uint64_t k = 0; k < b; ++k) {
                    src[r][k] = value(r, k);
                    if (in_place) {
                        dst[r][r * b + k] = value(r, k);  // own block already in place
                    }
                }
            }
            std::vector<Buf> want = dst, src_before = src;
            for (uint32_t r = 0; r < n; ++r) {
                ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLGATHER);
                set_flags(a, in_place);
                a.src.info = in_place ? poison() : info(src[r].data(), b);
                a.dst.info = info(dst[r].data(), n * b);
                args.push_back(a);
                for (uint32_t i = 0; i < n; ++i) {
                    for (uint64_t k = 0; k < b; ++k) {
                        want[r][i * b + k] = value(i, k);
                    }
                }
            }
            const Expected e = run(n, args);
            expect_same(dst, want, "dst");
            expect_same(src, src_before, "src");
            for (uint32_t r = 0; r < n; ++r) {
                ASSERT_EQ(e.writes[r].size(), 1u);  // one contiguous write (merged blocks)
                EXPECT_EQ(e.writes[r][0].bytes.size(), n * b * 4);
            }
        }
    }
}

TEST(ModelOracle, AllgatherHandComputedN3) {
    int32_t s0[] = {1, 2}, s1[] = {3, 4}, s2[] = {5, 6};
    int32_t d[3][6] = {};
    int32_t *src[] = {s0, s1, s2};
    std::vector<ucc_coll_args_t> args;
    for (int r = 0; r < 3; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLGATHER);
        a.src.info = info(src[r], 2);
        a.dst.info = info(d[r], 6);
        args.push_back(a);
    }
    run(3, args);
    for (auto &row : d) {
        EXPECT_EQ(std::vector<int32_t>(row, row + 6), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
    }
}

TEST(ModelOracle, Allgatherv) {
    for (uint32_t n : kSizes) {
        for (Widths w : kWidths) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message() << "n=" << n << " count64=" << w.count64
                                                << " displ64=" << w.displ64 << " ip=" << in_place);
                std::vector<uint64_t> counts(n);
                for (uint32_t i = 0; i < n; ++i) {
                    counts[i] = i % 3;  // 0, 1, 2, 0, ...: zero-count ranks included
                }
                const std::vector<uint64_t> displs = gapped_displacements(counts, 1);
                const uint64_t size = extent(counts, displs);
                std::vector<Buf> src, dst;
                std::vector<VArray> c, d;
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    src.emplace_back(counts[r]);
                    dst.emplace_back(size);
                    c.emplace_back(counts, w.count64);
                    d.emplace_back(displs, w.displ64);
                    for (uint64_t k = 0; k < counts[r]; ++k) {
                        src[r][k] = value(r, k);
                        if (in_place) {
                            dst[r][displs[r] + k] = value(r, k);
                        }
                    }
                }
                std::vector<Buf> want = dst;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLGATHERV);
                    set_flags(a, in_place, w);
                    a.src.info = in_place ? poison() : info(src[r].data(), counts[r]);
                    a.dst.info_v = info_v(dst[r].data(), c[r], d[r]);
                    args.push_back(a);
                    for (uint32_t i = 0; i < n; ++i) {
                        for (uint64_t k = 0; k < counts[i]; ++k) {
                            want[r][displs[i] + k] = value(i, k);  // gaps stay kBlank
                        }
                    }
                }
                run(n, args);
                expect_same(dst, want, "dst");
            }
        }
    }
}

// ---- allreduce, reduce

TEST(ModelOracle, AllreduceHandComputedN3) {
    int32_t x[3][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    int32_t y[3][3] = {};
    std::vector<ucc_coll_args_t> args;
    for (int r = 0; r < 3; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
        a.src.info = info(x[r], 3);
        a.dst.info = info(y[r], 3);
        a.op = UCC_OP_SUM;
        args.push_back(a);
    }
    run(3, args);
    for (auto &row : y) {
        EXPECT_EQ(std::vector<int32_t>(row, row + 3), (std::vector<int32_t>{12, 15, 18}));
    }
}

TEST(ModelOracle, Allreduce) {
    for (uint32_t n : kSizes) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " in_place=" << in_place);
            const uint64_t count = 3;
            std::vector<Buf> src, dst;
            for (uint32_t r = 0; r < n; ++r) {
                src.emplace_back(count);
                dst.emplace_back(count);
                for (uint64_t i = 0; i < count; ++i) {
                    (in_place ? dst : src)[r][i] = value(r, i);
                }
            }
            std::vector<Buf> want = dst;
            std::vector<ucc_coll_args_t> args;
            for (uint32_t r = 0; r < n; ++r) {
                ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
                set_flags(a, in_place);
                a.src.info = in_place ? poison() : info(src[r].data(), count);
                a.dst.info = info(dst[r].data(), count);
                a.op = UCC_OP_MAX;
                args.push_back(a);
                for (uint64_t i = 0; i < count; ++i) {
                    want[r][i] = value(n - 1, i);  // the largest rank's values are the largest
                }
            }
            run(n, args);
            expect_same(dst, want, "dst");
        }
    }
}

TEST(ModelOracle, ReduceEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "n=" << n << " root=" << root << " ip=" << in_place);
                const uint64_t count = 2;
                std::vector<Buf> src, dst;
                int32_t sum[2] = {0, 0};
                for (uint32_t r = 0; r < n; ++r) {
                    src.emplace_back(count);
                    dst.emplace_back(count);
                    const bool input_in_dst = in_place && r == root;
                    for (uint64_t i = 0; i < count; ++i) {
                        (input_in_dst ? dst : src)[r][i] = value(r, i);
                        sum[i] += value(r, i);
                    }
                }
                std::vector<Buf> want = dst;
                want[root][0] = sum[0];
                want[root][1] = sum[1];
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_REDUCE);
                    set_flags(a, in_place);  // IN_PLACE means nothing at a non-root
                    a.root = root;
                    a.op = UCC_OP_SUM;
                    a.src.info = (in_place && r == root) ? poison() : info(src[r].data(), count);
                    // A non-root's dst is ignored: give it a real buffer that must not change.
                    a.dst.info = info(dst[r].data(), count);
                    args.push_back(a);
                }
                const Expected e = run(n, args);
                expect_same(dst, want, "dst");
                for (uint32_t r = 0; r < n; ++r) {
                    EXPECT_EQ(e.writes[r].empty(), r != root);
                }
            }
        }
    }
}

// ---- alltoall(v)

TEST(ModelOracle, Alltoall) {
    for (uint32_t n : kSizes) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " in_place=" << in_place);
            const uint64_t b = 2;  // elements per pair; count = n * b (total)
            std::vector<Buf> src, dst;
            for (uint32_t r = 0; r < n; ++r) {
                src.emplace_back(n * b);
                dst.emplace_back(n * b);
                for (uint64_t i = 0; i < n * b; ++i) {
                    (in_place ? dst : src)[r][i] = value(r, i);  // block j goes to rank j
                }
            }
            std::vector<Buf> want = dst;
            std::vector<ucc_coll_args_t> args;
            for (uint32_t j = 0; j < n; ++j) {
                ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLTOALL);
                set_flags(a, in_place);
                a.src.info = in_place ? poison() : info(src[j].data(), n * b);
                a.dst.info = info(dst[j].data(), n * b);
                args.push_back(a);
                for (uint32_t i = 0; i < n; ++i) {
                    for (uint64_t k = 0; k < b; ++k) {
                        want[j][i * b + k] = value(i, j * b + k);  // block i from rank i
                    }
                }
            }
            run(n, args);
            expect_same(dst, want, "dst");
        }
    }
}

TEST(ModelOracle, Alltoallv) {
    for (uint32_t n : kSizes) {
        for (Widths w : kWidths) {
            SCOPED_TRACE(testing::Message()
                         << "n=" << n << " count64=" << w.count64 << " displ64=" << w.displ64);
            // i sends (i + 2j) % 3 elements to j: an asymmetric pattern with zero counts.
            auto c = [](uint32_t i, uint32_t j) { return uint64_t{(i + 2 * j) % 3}; };
            std::vector<Buf> src, dst;
            std::vector<VArray> sc, sd, rc, rd;
            std::vector<std::vector<uint64_t>> rdispls(n);
            for (uint32_t r = 0; r < n; ++r) {
                std::vector<uint64_t> send_counts(n), recv_counts(n);
                for (uint32_t p = 0; p < n; ++p) {
                    send_counts[p] = c(r, p);
                    recv_counts[p] = c(p, r);
                }
                const auto send_displs = gapped_displacements(send_counts, 1);
                rdispls[r] = gapped_displacements(recv_counts, 2);
                src.emplace_back(extent(send_counts, send_displs));
                dst.emplace_back(extent(recv_counts, rdispls[r]));
                for (uint32_t p = 0; p < n; ++p) {
                    for (uint64_t k = 0; k < send_counts[p]; ++k) {
                        src[r][send_displs[p] + k] = value(r, 10 * p + k);
                    }
                }
                sc.emplace_back(send_counts, w.count64);
                sd.emplace_back(send_displs, w.displ64);
                rc.emplace_back(recv_counts, w.count64);
                rd.emplace_back(rdispls[r], w.displ64);
            }
            std::vector<Buf> want = dst;
            std::vector<ucc_coll_args_t> args;
            for (uint32_t j = 0; j < n; ++j) {
                ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLTOALLV);
                set_flags(a, false, w);
                a.src.info_v = info_v(src[j].data(), sc[j], sd[j]);
                a.dst.info_v = info_v(dst[j].data(), rc[j], rd[j]);
                args.push_back(a);
                for (uint32_t i = 0; i < n; ++i) {
                    for (uint64_t k = 0; k < c(i, j); ++k) {
                        want[j][rdispls[j][i] + k] = value(i, 10 * j + k);
                    }
                }
            }
            run(n, args);
            expect_same(dst, want, "dst");
        }
    }
}

TEST(ModelOracle, AlltoallvInPlace) {
    for (uint32_t n : kSizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        // In place, dst's layout describes both directions, so counts must be symmetric.
        auto c = [](uint32_t i, uint32_t j) { return uint64_t{(i + j) % 3}; };
        std::vector<Buf> dst;
        std::vector<VArray> counts, displs;
        std::vector<std::vector<uint64_t>> d(n);
        for (uint32_t r = 0; r < n; ++r) {
            std::vector<uint64_t> cr(n);
            for (uint32_t p = 0; p < n; ++p) {
                cr[p] = c(r, p);
            }
            d[r] = gapped_displacements(cr, 1);
            dst.emplace_back(extent(cr, d[r]));
            for (uint32_t p = 0; p < n; ++p) {
                for (uint64_t k = 0; k < cr[p]; ++k) {
                    dst[r][d[r][p] + k] = value(r, 10 * p + k);  // outgoing to p
                }
            }
            counts.emplace_back(cr, false);
            displs.emplace_back(d[r], true);
        }
        std::vector<Buf> want = dst;
        std::vector<ucc_coll_args_t> args;
        for (uint32_t j = 0; j < n; ++j) {
            ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLTOALLV);
            set_flags(a, true, {false, true});
            a.src.info = poison();
            a.dst.info_v = info_v(dst[j].data(), counts[j], displs[j]);
            args.push_back(a);
            for (uint32_t i = 0; i < n; ++i) {
                for (uint64_t k = 0; k < c(i, j); ++k) {
                    want[j][d[j][i] + k] = value(i, 10 * j + k);  // incoming from i
                }
            }
        }
        run(n, args);
        expect_same(dst, want, "dst");
    }
}

// ---- synchronisation only

TEST(ModelOracle, BarrierFaninFanoutWriteNothing) {
    for (uint32_t n : kSizes) {
        for (ucc_coll_type_t type :
             {UCC_COLL_TYPE_BARRIER, UCC_COLL_TYPE_FANIN, UCC_COLL_TYPE_FANOUT}) {
            std::vector<ucc_coll_args_t> args;
            for (uint32_t r = 0; r < n; ++r) {
                ucc_coll_args_t a = junk_args(type);
                a.root = n - 1;
                args.push_back(a);
            }
            const Expected e = expected(n, args);
            ASSERT_EQ(e.writes.size(), n);
            EXPECT_EQ(total_bytes(e), 0u);
            for (const auto &w : e.writes) {
                EXPECT_TRUE(w.empty());
            }
        }
    }
}

// ---- bcast

TEST(ModelOracle, BcastEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (bool in_place : {false, true}) {  // IN_PLACE has no effect (P24)
                SCOPED_TRACE(testing::Message()
                             << "n=" << n << " root=" << root << " ip=" << in_place);
                std::vector<Buf> buf;
                for (uint32_t r = 0; r < n; ++r) {
                    buf.emplace_back(3);
                }
                for (uint64_t i = 0; i < 3; ++i) {
                    buf[root][i] = value(root, i);
                }
                std::vector<Buf> want = buf;
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_BCAST);
                    set_flags(a, in_place);
                    a.root = root;
                    a.src.info = info(buf[r].data(), 3);
                    args.push_back(a);
                    want[r] = want[root];
                }
                const Expected e = run(n, args);
                expect_same(buf, want, "buffer");
                EXPECT_TRUE(e.writes[root].empty());  // the root's buffer is never written
            }
        }
    }
}

TEST(ModelOracle, BcastActiveSetWithNegativeStride) {
    struct Case {
        uint32_t n;
        uint64_t start;
        int64_t stride;
        uint64_t size;
        uint64_t root;
        std::vector<uint32_t> members;
    };
    const std::vector<Case> cases = {
        {8, 5, -3, 4, 7, {2, 4, 5, 7}},     // 5, 2, -1 = 7, 4
        {5, 0, -1, 5, 3, {0, 1, 2, 3, 4}},  // 0, 4, 3, 2, 1
        {8, 6, 3, 2, 1, {1, 6}},            // a send/recv pair: 6, 9 = 1
        {3, 1, -7, 3, 1, {0, 1, 2}},        // -7 = 2 (mod 3): 1, 0, 2
        {5, 2, 0, 1, 2, {2}},               // a set of one
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(testing::Message() << "n=" << c.n << " start=" << c.start
                                        << " stride=" << c.stride << " size=" << c.size);
        std::vector<Buf> buf;
        for (uint32_t r = 0; r < c.n; ++r) {
            buf.emplace_back(2);
        }
        buf[c.root][0] = 42;
        buf[c.root][1] = 43;
        std::vector<Buf> want = buf;
        std::vector<ucc_coll_args_t> args;
        for (uint32_t r = 0; r < c.n; ++r) {
            const bool member = std::count(c.members.begin(), c.members.end(), r) != 0;
            ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_BCAST);
            if (!member) {
                a.coll_type = static_cast<ucc_coll_type_t>(0);  // ignored: need not call at all
                args.push_back(a);
                continue;
            }
            a.mask = UCC_COLL_ARGS_FIELD_ACTIVE_SET;
            a.active_set.start = c.start;
            a.active_set.stride = c.stride;
            a.active_set.size = c.size;
            a.root = c.root;
            a.src.info = info(buf[r].data(), 2);
            args.push_back(a);
            want[r] = want[c.root];
        }
        const Expected e = run(c.n, args);
        expect_same(buf, want, "buffer");
        for (uint32_t r = 0; r < c.n; ++r) {
            const bool member = std::count(c.members.begin(), c.members.end(), r) != 0;
            EXPECT_EQ(e.writes[r].empty(), !member || r == c.root) << "rank " << r;
        }
    }
}

// Active sets on other types: the plain collective among the members renumbered by set position
// (block i of a layout is member i's), non-members untouched (API.md §4.12; docs/status.md,
// Active sets).
TEST(ModelOracle, ActiveSetRenumbersEveryLayout) {
    const uint32_t n = 8;
    const std::vector<uint32_t> members = {5, 2, 7};  // (5, -3, 3): positions 0, 1, 2
    auto on_set = [&](ucc_coll_type_t type, uint32_t r) {
        ucc_coll_args_t a = junk_args(type);
        if (std::find(members.begin(), members.end(), r) == members.end()) {
            a.coll_type = static_cast<ucc_coll_type_t>(0);  // non-members do not call
            return a;
        }
        a.mask = UCC_COLL_ARGS_FIELD_ACTIVE_SET;
        a.active_set.start = 5;
        a.active_set.stride = -3;
        a.active_set.size = 3;
        return a;
    };
    const uint64_t b = 2;

    // Allgather: member at position j receives block i = member i's src, in set order.
    {
        std::vector<Buf> src, dst;
        for (uint32_t r = 0; r < n; ++r) {
            src.emplace_back(b);
            dst.emplace_back(3 * b);
            for (uint64_t k = 0; k < b; ++k) {
                src[r][k] = value(r, k);
            }
        }
        std::vector<Buf> want = dst;
        std::vector<ucc_coll_args_t> args;
        for (uint32_t r = 0; r < n; ++r) {
            ucc_coll_args_t a = on_set(UCC_COLL_TYPE_ALLGATHER, r);
            if (a.mask != 0) {
                a.src.info = info(src[r].data(), b);
                a.dst.info = info(dst[r].data(), 3 * b);
                for (uint32_t i = 0; i < 3; ++i) {
                    for (uint64_t k = 0; k < b; ++k) {
                        want[r][i * b + k] = value(members[i], k);
                    }
                }
            }
            args.push_back(a);
        }
        const Expected e = run(n, args);
        expect_same(dst, want, "allgather dst");
        for (uint32_t r : {0u, 1u, 3u, 4u, 6u}) {
            EXPECT_TRUE(e.writes[r].empty()) << "non-member " << r;
        }
    }

    // Reduce (SUM) rooted at team rank 7 (position 2): only its dst, members' inputs only.
    {
        std::vector<Buf> src, dst;
        for (uint32_t r = 0; r < n; ++r) {
            src.emplace_back(b);
            dst.emplace_back(b);
            for (uint64_t k = 0; k < b; ++k) {
                src[r][k] = value(r, k);
            }
        }
        std::vector<Buf> want = dst;
        for (uint64_t k = 0; k < b; ++k) {
            want[7][k] = value(5, k) + value(2, k) + value(7, k);
        }
        std::vector<ucc_coll_args_t> args;
        for (uint32_t r = 0; r < n; ++r) {
            ucc_coll_args_t a = on_set(UCC_COLL_TYPE_REDUCE, r);
            if (a.mask != 0) {
                a.root = 7;
                a.op = UCC_OP_SUM;
                a.src.info = info(src[r].data(), b);
                a.dst.info = r == 7 ? info(dst[r].data(), b) : info(nullptr, 0);
            }
            args.push_back(a);
        }
        run(n, args);
        expect_same(dst, want, "reduce dst");
        // The root named by its set position (2) is not a member: refused.
        for (uint32_t m : members) {
            args[m].root = 2;
        }
        EXPECT_THROW(expected(n, args), std::invalid_argument);
    }

    // Gatherv at team rank 2 (position 1): counts and displacements indexed by set position.
    {
        std::vector<uint64_t> counts = {1, 3, 2};
        std::vector<uint64_t> displs = gapped_displacements(counts, 1);
        VArray c(counts, false), d(displs, false);
        std::vector<Buf> src, dst;
        for (uint32_t r = 0; r < n; ++r) {
            src.emplace_back(3);
            dst.emplace_back(displs.back() + counts.back() + 1);
            for (uint64_t k = 0; k < 3; ++k) {
                src[r][k] = value(r, k);
            }
        }
        std::vector<Buf> want = dst;
        for (uint32_t i = 0; i < 3; ++i) {
            for (uint64_t k = 0; k < counts[i]; ++k) {
                want[2][displs[i] + k] = value(members[i], k);
            }
        }
        std::vector<ucc_coll_args_t> args;
        for (uint32_t r = 0; r < n; ++r) {
            ucc_coll_args_t a = on_set(UCC_COLL_TYPE_GATHERV, r);
            if (a.mask != 0) {
                const uint64_t pos = static_cast<uint64_t>(
                    std::find(members.begin(), members.end(), r) - members.begin());
                a.root = 2;
                a.src.info = info(src[r].data(), counts[pos]);
                if (r == 2) {
                    a.dst.info_v = info_v(dst[r].data(), c, d);
                }
            }
            args.push_back(a);
        }
        run(n, args);
        expect_same(dst, want, "gatherv dst");
    }

    // Members must agree: a member with another type (or no active set) is refused.
    {
        std::vector<ucc_coll_args_t> args;
        for (uint32_t r = 0; r < n; ++r) {
            args.push_back(on_set(UCC_COLL_TYPE_BARRIER, r));
        }
        EXPECT_EQ(total_bytes(expected(n, args)), 0u);
        args[7].coll_type = UCC_COLL_TYPE_FANIN;
        EXPECT_THROW(expected(n, args), std::invalid_argument);
        args[7] = junk_args(UCC_COLL_TYPE_BARRIER);  // no active set
        EXPECT_THROW(expected(n, args), std::invalid_argument);
    }
}

// ---- gather(v)

TEST(ModelOracle, GatherEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "n=" << n << " root=" << root << " ip=" << in_place);
                const uint64_t b = 2;
                std::vector<Buf> src, dst;
                for (uint32_t r = 0; r < n; ++r) {
                    src.emplace_back(b);
                    dst.emplace_back(n * b);
                    for (uint64_t k = 0; k < b; ++k) {
                        src[r][k] = value(r, k);
                    }
                }
                if (in_place) {
                    for (uint64_t k = 0; k < b; ++k) {
                        dst[root][root * b + k] = value(root, k);
                    }
                }
                std::vector<Buf> want = dst;
                for (uint32_t i = 0; i < n; ++i) {
                    for (uint64_t k = 0; k < b; ++k) {
                        want[root][i * b + k] = value(i, k);
                    }
                }
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_GATHER);
                    set_flags(a, in_place);
                    a.root = root;
                    a.src.info = (in_place && r == root) ? poison() : info(src[r].data(), b);
                    if (r == root) {
                        a.dst.info = info(dst[r].data(), n * b);
                    }  // else: dst stays junk; it is not used at a non-root
                    args.push_back(a);
                }
                const Expected e = run(n, args);
                expect_same(dst, want, "dst");
                for (uint32_t r = 0; r < n; ++r) {
                    EXPECT_EQ(e.writes[r].empty(), r != root);
                }
            }
        }
    }
}

TEST(ModelOracle, GathervEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (Widths w : kWidths) {
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << "n=" << n << " root=" << root << " count64=" << w.count64
                                 << " displ64=" << w.displ64 << " ip=" << in_place);
                    std::vector<uint64_t> counts(n);
                    for (uint32_t i = 0; i < n; ++i) {
                        counts[i] = (i + root) % 3;
                    }
                    // Blocks in reverse rank order, with gaps of 2.
                    std::vector<uint64_t> displs(n);
                    uint64_t at = 2;
                    for (uint32_t i = n; i-- > 0;) {
                        displs[i] = at;
                        at += counts[i] + 2;
                    }
                    VArray c(counts, w.count64), d(displs, w.displ64);
                    std::vector<Buf> src;
                    for (uint32_t r = 0; r < n; ++r) {
                        src.emplace_back(counts[r]);
                        for (uint64_t k = 0; k < counts[r]; ++k) {
                            src[r][k] = value(r, k);
                        }
                    }
                    std::vector<Buf> dst(1, Buf(at));
                    if (in_place) {
                        for (uint64_t k = 0; k < counts[root]; ++k) {
                            dst[0][displs[root] + k] = value(root, k);
                        }
                    }
                    std::vector<Buf> want = dst;
                    for (uint32_t i = 0; i < n; ++i) {
                        for (uint64_t k = 0; k < counts[i]; ++k) {
                            want[0][displs[i] + k] = value(i, k);
                        }
                    }
                    std::vector<ucc_coll_args_t> args;
                    for (uint32_t r = 0; r < n; ++r) {
                        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_GATHERV);
                        set_flags(a, in_place, w);
                        a.root = root;
                        a.src.info =
                            (in_place && r == root) ? poison() : info(src[r].data(), counts[r]);
                        if (r == root) {
                            a.dst.info_v = info_v(dst[0].data(), c, d);
                        }
                        args.push_back(a);
                    }
                    run(n, args);
                    expect_same(dst, want, "root dst");
                }
            }
        }
    }
}

// ---- scatter(v)

TEST(ModelOracle, ScatterEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "n=" << n << " root=" << root << " ip=" << in_place);
                const uint64_t b = 2;
                Buf src(n * b);
                for (uint64_t i = 0; i < n * b; ++i) {
                    src[i] = value(root, i);
                }
                std::vector<Buf> dst;
                for (uint32_t r = 0; r < n; ++r) {
                    dst.emplace_back(b);
                }
                std::vector<Buf> want = dst;
                for (uint32_t r = 0; r < n; ++r) {
                    if (!(in_place && r == root)) {  // in place: nothing is written at the root
                        for (uint64_t k = 0; k < b; ++k) {
                            want[r][k] = value(root, r * b + k);
                        }
                    }
                }
                const Buf src_before = src;
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_SCATTER);
                    set_flags(a, in_place);
                    a.root = root;
                    if (r == root) {
                        a.src.info = info(src.data(), n * b);
                    }
                    // In place, the root's dst is ignored: it still points at a real buffer here,
                    // which must not change.
                    a.dst.info = info(dst[r].data(), b);
                    args.push_back(a);
                }
                const Expected e = run(n, args);
                expect_same(dst, want, "dst");
                EXPECT_EQ(src.whole, src_before.whole);
                EXPECT_EQ(e.writes[root].empty(), in_place);
            }
        }
    }
}

TEST(ModelOracle, ScattervEveryRoot) {
    for (uint32_t n : kSizes) {
        for (uint32_t root = 0; root < n; ++root) {
            for (Widths w : kWidths) {
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << "n=" << n << " root=" << root << " count64=" << w.count64
                                 << " displ64=" << w.displ64 << " ip=" << in_place);
                    std::vector<uint64_t> counts(n);
                    for (uint32_t i = 0; i < n; ++i) {
                        counts[i] = 1 + i % 3;
                    }
                    counts[n / 2] = 0;  // one zero-count rank
                    const std::vector<uint64_t> displs = gapped_displacements(counts, 3);
                    VArray c(counts, w.count64), d(displs, w.displ64);
                    Buf src(extent(counts, displs));
                    for (uint32_t i = 0; i < n; ++i) {
                        for (uint64_t k = 0; k < counts[i]; ++k) {
                            src[displs[i] + k] = value(i, k);  // the block meant for rank i
                        }
                    }
                    std::vector<Buf> dst;
                    for (uint32_t r = 0; r < n; ++r) {
                        dst.emplace_back(counts[r]);
                    }
                    std::vector<Buf> want = dst;
                    for (uint32_t r = 0; r < n; ++r) {
                        if (!(in_place && r == root)) {
                            for (uint64_t k = 0; k < counts[r]; ++k) {
                                want[r][k] = value(r, k);
                            }
                        }
                    }
                    std::vector<ucc_coll_args_t> args;
                    for (uint32_t r = 0; r < n; ++r) {
                        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_SCATTERV);
                        set_flags(a, in_place, w);
                        a.root = root;
                        if (r == root) {
                            a.src.info_v = info_v(src.data(), c, d);
                        }
                        if (!(in_place && r == root)) {
                            a.dst.info = info(dst[r].data(), counts[r]);
                        }
                        args.push_back(a);
                    }
                    run(n, args);
                    expect_same(dst, want, "dst");
                }
            }
        }
    }
}

// ---- reduce_scatter(v)

TEST(ModelOracle, ReduceScatter) {
    for (uint32_t n : kSizes) {
        for (bool in_place : {false, true}) {
            SCOPED_TRACE(testing::Message() << "n=" << n << " in_place=" << in_place);
            const uint64_t b = 2, total = n * b;
            std::vector<int32_t> sum(total, 0);
            std::vector<Buf> src, dst;
            for (uint32_t r = 0; r < n; ++r) {
                src.emplace_back(total);
                dst.emplace_back(in_place ? total : b);
                for (uint64_t i = 0; i < total; ++i) {
                    (in_place ? dst : src)[r][i] = value(r, i);
                    sum[i] += value(r, i);
                }
            }
            std::vector<Buf> want = dst;
            std::vector<ucc_coll_args_t> args;
            for (uint32_t r = 0; r < n; ++r) {
                ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_REDUCE_SCATTER);
                set_flags(a, in_place);
                a.op = UCC_OP_SUM;
                a.src.info = in_place ? poison() : info(src[r].data(), total);
                a.dst.info = info(dst[r].data(), in_place ? total : b);
                args.push_back(a);
                // UCC semantics (P10): in place, rank r's block lands at offset r * b; the rest
                // of its dst keeps its input values.
                const uint64_t offset = in_place ? r * b : 0;
                for (uint64_t k = 0; k < b; ++k) {
                    want[r][offset + k] = sum[r * b + k];
                }
            }
            run(n, args);
            expect_same(dst, want, "dst");
        }
    }
}

TEST(ModelOracle, ReduceScatterInPlaceHandComputedN2) {
    // rank 0: {1, 2, 3, 4}, rank 1: {10, 20, 30, 40}; the sum is {11, 22, 33, 44}.
    // Rank 0 keeps {11, 22, 3, 4}; rank 1 gets its block at offset 2: {10, 20, 33, 44}.
    int32_t d0[] = {1, 2, 3, 4}, d1[] = {10, 20, 30, 40};
    int32_t *d[] = {d0, d1};
    std::vector<ucc_coll_args_t> args;
    for (int r = 0; r < 2; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_REDUCE_SCATTER);
        set_flags(a, true);
        a.op = UCC_OP_SUM;
        a.src.info = poison();
        a.dst.info = info(d[r], 4);
        args.push_back(a);
    }
    run(2, args);
    EXPECT_EQ(std::vector<int32_t>(d0, d0 + 4), (std::vector<int32_t>{11, 22, 3, 4}));
    EXPECT_EQ(std::vector<int32_t>(d1, d1 + 4), (std::vector<int32_t>{10, 20, 33, 44}));
}

TEST(ModelOracle, ReduceScatterv) {
    for (uint32_t n : kSizes) {
        for (bool count64 : {false, true}) {
            for (bool in_place : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "n=" << n << " count64=" << count64 << " in_place=" << in_place);
                std::vector<uint64_t> counts(n);
                for (uint32_t i = 0; i < n; ++i) {
                    counts[i] = (i + 1) % 3;  // 1, 2, 0, 1, ...
                }
                std::vector<uint64_t> prefix(n + 1, 0);
                for (uint32_t i = 0; i < n; ++i) {
                    prefix[i + 1] = prefix[i] + counts[i];
                }
                const uint64_t total = prefix[n];
                std::vector<int32_t> sum(total, 0);
                std::vector<Buf> src, dst;
                std::vector<VArray> c;
                for (uint32_t r = 0; r < n; ++r) {
                    src.emplace_back(total);
                    dst.emplace_back(in_place ? total : counts[r] + 1);
                    for (uint64_t i = 0; i < total; ++i) {
                        (in_place ? dst : src)[r][i] = value(r, i);
                        sum[i] += value(r, i);
                    }
                    c.emplace_back(counts, count64);
                }
                std::vector<Buf> want = dst;
                std::vector<ucc_coll_args_t> args;
                for (uint32_t r = 0; r < n; ++r) {
                    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_REDUCE_SCATTERV);
                    set_flags(a, in_place, {count64, false});
                    a.op = UCC_OP_SUM;
                    a.src.info = in_place ? poison() : info(src[r].data(), total);
                    a.dst.info_v.buffer = dst[r].data();
                    a.dst.info_v.counts = c[r].get();
                    // displacements stay junk: reduce_scatterv has none
                    a.dst.info_v.datatype = UCC_DT_INT32;
                    a.dst.info_v.mem_type = UCC_MEMORY_TYPE_HOST;
                    args.push_back(a);
                    const uint64_t offset = in_place ? prefix[r] : 0;
                    for (uint64_t k = 0; k < counts[r]; ++k) {
                        want[r][offset + k] = sum[prefix[r] + k];
                    }
                }
                run(n, args);
                expect_same(dst, want, "dst");
            }
        }
    }
}

// ---- zero counts (P12)

TEST(ModelOracle, ZeroCountsWriteNothing) {
    for (uint32_t n : kSizes) {
        SCOPED_TRACE(testing::Message() << "n=" << n);
        std::vector<ucc_coll_args_t> allreduce, allgather, bcast, alltoallv, reduce_scatter;
        std::vector<uint64_t> zeros(n, 0);
        VArray zc(zeros, false), zd(zeros, false);
        for (uint32_t r = 0; r < n; ++r) {
            ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
            a.op = UCC_OP_SUM;
            a.src.info = info(nullptr, 0);
            a.dst.info = info(nullptr, 0);
            allreduce.push_back(a);
            a.coll_type = UCC_COLL_TYPE_ALLGATHER;
            allgather.push_back(a);
            a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTER;
            reduce_scatter.push_back(a);
            a.coll_type = UCC_COLL_TYPE_BCAST;
            a.root = 0;
            bcast.push_back(a);
            ucc_coll_args_t v = junk_args(UCC_COLL_TYPE_ALLTOALLV);
            v.src.info_v = info_v(nullptr, zc, zd);
            v.dst.info_v = info_v(nullptr, zc, zd);
            alltoallv.push_back(v);
        }
        for (const auto *args : {&allreduce, &allgather, &bcast, &alltoallv, &reduce_scatter}) {
            const Expected e = expected(n, *args);
            EXPECT_EQ(total_bytes(e), 0u);
            for (const auto &w : e.writes) {
                EXPECT_TRUE(w.empty());
            }
        }
    }
}

// ---- generic contiguous datatypes

struct Triple {
    int32_t a, b, c;
};

struct alignas(8) GenericDt {
    ucc_generic_dt_ops_t ops;
    void *context;
};

ucc_status_t triple_sum(const ucc_reduce_cb_params_t *p) {
    const auto *x = static_cast<const Triple *>(p->src1);
    const auto *y = static_cast<const Triple *>(p->src2);
    auto *out = static_cast<Triple *>(p->dst);
    for (size_t i = 0; i < p->count; ++i) {
        out[i] = {x[i].a + y[i].a, x[i].b * y[i].b, x[i].c > y[i].c ? x[i].c : y[i].c};
    }
    ++*static_cast<int *>(p->cb_ctx);
    return UCC_OK;
}

TEST(ModelOracle, GenericDatatype) {
    int calls = 0;
    GenericDt g{};
    g.ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    g.ops.contig_size = sizeof(Triple);
    g.ops.reduce.cb = triple_sum;
    g.ops.reduce.cb_ctx = &calls;
    const auto dt = reinterpret_cast<ucc_datatype_t>(&g) | UCC_DATATYPE_GENERIC;

    // Allreduce over 3 ranks: (a sum, b product, c max).
    Triple x[3] = {{1, 2, 3}, {10, 3, -5}, {100, 4, 7}};
    Triple y[3] = {};
    std::vector<ucc_coll_args_t> args;
    for (int r = 0; r < 3; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
        a.src.info = info(&x[r], 1, dt);
        a.dst.info = info(&y[r], 1, dt);
        args.push_back(a);  // op stays junk: it is ignored for generic datatypes
    }
    run(3, args);
    for (const Triple &t : y) {
        EXPECT_EQ(t.a, 111);
        EXPECT_EQ(t.b, 24);
        EXPECT_EQ(t.c, 7);
    }
    EXPECT_EQ(calls, 2);

    // Allgather moves whole 12-byte elements.
    Triple s[2] = {{1, 2, 3}, {4, 5, 6}};
    Triple d[2][2] = {};
    args.clear();
    for (int r = 0; r < 2; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLGATHER);
        a.src.info = info(&s[r], 1, dt);
        a.dst.info = info(d[r], 2, dt);
        args.push_back(a);
    }
    run(2, args);
    for (auto &row : d) {
        EXPECT_EQ(row[0].a, 1);
        EXPECT_EQ(row[0].c, 3);
        EXPECT_EQ(row[1].b, 5);
        EXPECT_EQ(row[1].c, 6);
    }
}

TEST(ModelOracle, DifferentDatatypesOfEqualSizeMoveBytes) {
    // Data movement moves bytes: a float32 source into an int32 receive buffer is fine.
    float f[2] = {1.5f, -2.0f};
    int32_t d[2][2] = {};
    std::vector<ucc_coll_args_t> args;
    for (int r = 0; r < 2; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLGATHER);
        a.src.info = info(&f[r], 1, UCC_DT_FLOAT32);
        a.dst.info = info(d[r], 2, UCC_DT_INT32);
        args.push_back(a);
    }
    run(2, args);
    float back[2];
    std::memcpy(back, d[1], sizeof back);
    EXPECT_EQ(back[0], 1.5f);
    EXPECT_EQ(back[1], -2.0f);
}

TEST(ModelOracle, Float128ReductionZeroesPadding) {
    // Single rank: the result is x_0, written with its padding zeroed (documented decision).
    unsigned char src[16], dst[16];
    std::memset(src, 0xab, sizeof src);
    const long double v = 2.5L;
    std::memcpy(src, &v, 10);
    std::memset(dst, 0x11, sizeof dst);
    ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
    a.op = UCC_OP_SUM;
    a.src.info = info(src, 1, UCC_DT_FLOAT128);
    a.dst.info = info(dst, 1, UCC_DT_FLOAT128);
    run(1, {a});
    EXPECT_EQ(std::memcmp(dst, src, 10), 0);
    for (int k = 10; k < 16; ++k) {
        EXPECT_EQ(dst[k], 0);
    }
}

// ---- argument sets the oracle refuses (CONFORMANCE P44)

TEST(ModelOracle, RefusesInconsistentArguments) {
    int32_t x[2][4] = {}, y[2][4] = {};
    auto allreduce = [&](uint64_t count1) {
        std::vector<ucc_coll_args_t> args;
        for (int r = 0; r < 2; ++r) {
            ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
            a.op = UCC_OP_SUM;
            a.src.info = info(x[r], r == 1 ? count1 : 2);
            a.dst.info = info(y[r], r == 1 ? count1 : 2);
            args.push_back(a);
        }
        return args;
    };
    EXPECT_NO_THROW(expected(2, allreduce(2)));
    EXPECT_THROW(expected(2, allreduce(3)), std::invalid_argument);  // counts differ
    auto args = allreduce(2);
    args[1].op = UCC_OP_PROD;
    EXPECT_THROW(expected(2, args), std::invalid_argument);  // ops differ
    args = allreduce(2);
    args[1].coll_type = UCC_COLL_TYPE_ALLGATHER;
    EXPECT_THROW(expected(2, args), std::invalid_argument);          // types differ
    EXPECT_THROW(expected(3, allreduce(2)), std::invalid_argument);  // args.size() != n

    // Bcast: a receiver's size differs from the root's; roots differ.
    std::vector<ucc_coll_args_t> bcast;
    for (int r = 0; r < 2; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_BCAST);
        a.root = 0;
        a.src.info = info(x[r], r == 0 ? 2 : 3);
        bcast.push_back(a);
    }
    EXPECT_THROW(expected(2, bcast), std::invalid_argument);
    bcast[1].src.info.count = 2;
    EXPECT_NO_THROW(expected(2, bcast));
    bcast[1].root = 1;
    EXPECT_THROW(expected(2, bcast), std::invalid_argument);
    bcast[0].root = bcast[1].root = 2;
    EXPECT_THROW(expected(2, bcast), std::invalid_argument);  // root >= n

    // Gatherv with overlapping receive blocks.
    std::vector<uint64_t> counts = {2, 2}, displs = {0, 1};
    VArray c(counts, true), d(displs, true);
    std::vector<ucc_coll_args_t> gatherv;
    for (int r = 0; r < 2; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_GATHERV);
        set_flags(a, false, {true, true});
        a.root = 0;
        a.src.info = info(x[r], 2);
        a.dst.info_v = info_v(y[0], c, d);
        gatherv.push_back(a);
    }
    EXPECT_THROW(expected(2, gatherv), std::invalid_argument);
}

// ---- scale: 1,024 ranks x 64 KiB must be cheap enough for harnesses (no timing assertion).

TEST(ModelOracle, ScalesTo1024RanksOf64KiB) {
    const uint32_t n = 1024;
    const uint64_t count = 64 * 1024 / sizeof(float);
    std::vector<std::vector<float>> src(n, std::vector<float>(count));
    std::vector<std::vector<float>> dst(n, std::vector<float>(count));
    for (uint32_t r = 0; r < n; ++r) {
        for (uint64_t i = 0; i < count; ++i) {
            src[r][i] = static_cast<float>((r + i) % 7);
        }
    }
    std::vector<ucc_coll_args_t> args;
    for (uint32_t r = 0; r < n; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLREDUCE);
        a.op = UCC_OP_SUM;
        a.src.info = info(src[r].data(), count, UCC_DT_FLOAT32);
        a.dst.info = info(dst[r].data(), count, UCC_DT_FLOAT32);
        args.push_back(a);
    }
    const Expected e = expected(n, args);
    EXPECT_EQ(total_bytes(e), size_t{n} * count * sizeof(float));
    float first;
    std::memcpy(&first, e.writes[5][0].bytes.data(), sizeof first);
    // sum over r of (r % 7) for r < 1024: 146 full cycles of 21, plus 0 + 1 = 3067.
    EXPECT_EQ(first, 3067.0f);

    // Alltoall of 64 KiB per rank: 64-byte blocks.
    args.clear();
    for (uint32_t r = 0; r < n; ++r) {
        ucc_coll_args_t a = junk_args(UCC_COLL_TYPE_ALLTOALL);
        a.src.info = info(src[r].data(), count, UCC_DT_FLOAT32);
        a.dst.info = info(dst[r].data(), count, UCC_DT_FLOAT32);
        args.push_back(a);
    }
    const Expected t = expected(n, args);
    EXPECT_EQ(total_bytes(t), size_t{n} * count * sizeof(float));
    // Rank 3's block from rank 1000 is rank 1000's block 3: elements 48.. of its src.
    float got;
    std::memcpy(&got, t.writes[3][0].bytes.data() + 1000 * 64, sizeof got);
    EXPECT_EQ(got, src[1000][48]);
}

// ---- harness helpers

TEST(ModelOracle, ExpectedImageAndCheck) {
    int32_t buf[6] = {0, 1, 2, 3, 4, 5};
    int32_t seven = 7, eight = 8;
    std::vector<Write> writes;
    writes.push_back({&buf[1], std::vector<uint8_t>(4)});
    std::memcpy(writes[0].bytes.data(), &seven, 4);
    writes.push_back({&buf[4], std::vector<uint8_t>(4)});
    std::memcpy(writes[1].bytes.data(), &eight, 4);
    const std::vector<uint8_t> image = expected_image(&buf[2], 12, writes);  // buf[2..5)
    int32_t img[3];
    std::memcpy(img, image.data(), sizeof img);
    EXPECT_EQ(img[0], 2);
    EXPECT_EQ(img[1], 3);
    EXPECT_EQ(img[2], 8);
    EXPECT_NE(check(writes), "");
    apply(writes);
    EXPECT_EQ(check(writes), "");
    EXPECT_EQ(buf[1], 7);
    EXPECT_EQ(buf[4], 8);
}

}  // namespace
}  // namespace ucc::model
