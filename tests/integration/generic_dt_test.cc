// Generic datatypes (ucc_dt_create_generic) through collectives on the
// simulator:
//  * a contiguous type (CONTIG, 8-byte {int32 count; float peak}) with a user
//    reduction on allreduce, reduce, reduce_scatter and reduce_scatterv, and
//    moved by allgather;
//  * a pack/unpack-only type (two int32 values with a 4-byte hole between
//    elements, 12 bytes in memory, 8 packed, packed in chunks of at most 20
//    bytes) moved by bcast, allgather(v), alltoall(v), gather(v) and
//    scatter(v), holes untouched, persistent re-posts with new inputs;
//  * reductions on the pack/unpack type are UCC_ERR_NOT_SUPPORTED at init.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "tools/perf/lifecycle.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

// ---- the contiguous type with a user reduction: count adds up, peak is the max.
struct Stat {
    int32_t count;
    float peak;
};
static_assert(sizeof(Stat) == 8);

ucc_status_t reduce_stat(const ucc_reduce_cb_params_t *p) {
    const auto *a = static_cast<const Stat *>(p->src1);
    const auto *b = static_cast<const Stat *>(p->src2);
    auto *d = static_cast<Stat *>(p->dst);
    for (uint64_t i = 0; i < p->count; ++i) {
        d[i] = Stat{a[i].count + b[i].count, std::max(a[i].peak, b[i].peak)};
    }
    return UCC_OK;
}

ucc_datatype_t make_stat_type() {
    ucc_generic_dt_ops_t ops{};
    ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    ops.contig_size = sizeof(Stat);
    ops.reduce.cb = reduce_stat;
    ucc_datatype_t dt = 0;
    EXPECT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    return dt;
}

Stat stat_of(uint32_t rank, uint64_t i) {
    return Stat{static_cast<int32_t>(rank * 100 + i), static_cast<float>((rank * 7 + i * 3) % 11)};
}

// ---- the pack/unpack type: element = int32 a, int32 b, 4-byte hole.
constexpr size_t kElem = 12;   // bytes in memory
constexpr size_t kPacked = 8;  // packed bytes
constexpr uint8_t kHole = 0xEE;

struct PackState {
    uint8_t *buf;
    size_t count;
};

void *start_pack(void *, const void *buffer, size_t count) {
    return new PackState{static_cast<uint8_t *>(const_cast<void *>(buffer)), count};
}
void *start_unpack(void *, void *buffer, size_t count) {
    return new PackState{static_cast<uint8_t *>(buffer), count};
}
size_t packed_size(void *state) {
    return static_cast<PackState *>(state)->count * kPacked;
}
size_t mem_offset(size_t packed_offset) {
    return packed_offset / kPacked * kElem + packed_offset % kPacked;
}
size_t pack(void *state, size_t offset, void *dest, size_t max_length) {
    const auto *s = static_cast<PackState *>(state);
    const size_t n = std::min<size_t>({max_length, 20, s->count * kPacked - offset});
    for (size_t k = 0; k < n; ++k) {
        static_cast<uint8_t *>(dest)[k] = s->buf[mem_offset(offset + k)];
    }
    return n;
}
ucc_status_t unpack(void *state, size_t offset, const void *src, size_t length) {
    const auto *s = static_cast<PackState *>(state);
    if (offset + length > s->count * kPacked) {
        return UCC_ERR_INVALID_PARAM;
    }
    for (size_t k = 0; k < length; ++k) {
        s->buf[mem_offset(offset + k)] = static_cast<const uint8_t *>(src)[k];
    }
    return UCC_OK;
}
void finish(void *state) {
    delete static_cast<PackState *>(state);
}

ucc_status_t reduce_pairs(const ucc_reduce_cb_params_t *) {
    return UCC_OK;
}

// `with_reduce`: also a reduction callback (which collectives still cannot
// use on a pack/unpack type).
ucc_datatype_t make_pair_type(bool with_reduce = false) {
    ucc_generic_dt_ops_t ops{};
    if (with_reduce) {
        ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
        ops.flags = UCC_GENERIC_DT_OPS_FLAG_REDUCE;
        ops.reduce.cb = reduce_pairs;
    }
    ops.start_pack = start_pack;
    ops.start_unpack = start_unpack;
    ops.packed_size = packed_size;
    ops.pack = pack;
    ops.unpack = unpack;
    ops.finish = finish;
    ucc_datatype_t dt = 0;
    EXPECT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    return dt;
}

// A buffer of `elems` pair elements with every hole set to kHole.
struct Pairs {
    std::vector<uint8_t> mem;
    explicit Pairs(size_t elems) : mem(elems * kElem, kHole) {}
    void set(size_t i, int32_t a, int32_t b) {
        std::memcpy(&mem[i * kElem], &a, 4);
        std::memcpy(&mem[i * kElem + 4], &b, 4);
    }
    int32_t a(size_t i) const {
        int32_t v;
        std::memcpy(&v, &mem[i * kElem], 4);
        return v;
    }
    int32_t b(size_t i) const {
        int32_t v;
        std::memcpy(&v, &mem[i * kElem + 4], 4);
        return v;
    }
    bool holes_intact() const {
        for (size_t i = 0; i * kElem < mem.size(); ++i) {
            for (size_t k = 8; k < kElem; ++k) {
                if (mem[i * kElem + k] != kHole) {
                    return false;
                }
            }
        }
        return true;
    }
    void *data() { return mem.data(); }
};

// Value of element j of rank r's contribution.
int32_t va(uint32_t r, size_t j) {
    return static_cast<int32_t>(1000 * r + j);
}
int32_t vb(uint32_t r, size_t j) {
    return -static_cast<int32_t>(7 * r + 3 * j);
}

// Runs `body(rank, env, errors)` on n simulated ranks with a team of all;
// every string body appends is a failure.
void run_ranks(uint32_t n, const std::function<void(uint32_t, ucc::testkit::RankEnv &,
                                                    std::vector<std::string> &)> &body) {
    std::vector<std::vector<std::string>> errors(n);
    ucc::sim::ClusterParams cp;
    cp.n_ranks = n;
    cp.seed = 11;
    std::string err;
    ASSERT_EQ(ucc::net::parse_network("hdr", &cp.net, &err), UCC_OK);
    const ucc::sim::RunResult run = ucc::sim::run(cp, [&](uint32_t r) {
        ucc::testkit::RankEnv env;
        ucc::testkit::EnvParams p;
        p.log_level = "FATAL";
        std::string e = ucc::testkit::setup(p, r, n, &env);
        if (e.empty()) {
            body(r, env, errors[r]);
        } else {
            errors[r].push_back(e);
        }
        e = ucc::testkit::teardown(&env);
        if (!e.empty()) {
            errors[r].push_back(e);
        }
    });
    ASSERT_EQ(run.status, UCC_OK) << run.report;
    for (uint32_t r = 0; r < n; ++r) {
        for (const std::string &e : errors[r]) {
            ADD_FAILURE() << "rank " << r << ": " << e;
        }
    }
}

// Init, post, wait, finalize; the status it ended with.
ucc_status_t run_coll(ucc::testkit::RankEnv &env, ucc_coll_args_t &args) {
    return ucc::perf::run_collective(&args, env.team, env.ctx);
}

#define EXPECT_AT(errs, cond, what) \
    do {                            \
        if (!(cond)) {              \
            (errs).push_back(what); \
        }                           \
    } while (0)

TEST(GenericDt, ContiguousUserReductionOnAllreduceAndReduce) {
    const ucc_datatype_t dt = make_stat_type();
    const uint32_t n = 5;
    const uint64_t count = 9;
    run_ranks(n, [&](uint32_t r, ucc::testkit::RankEnv &env, std::vector<std::string> &errs) {
        std::vector<Stat> src(count);
        for (uint64_t i = 0; i < count; ++i) {
            src[i] = stat_of(r, i);
        }
        auto want = [&](uint64_t i) {
            Stat s{0, 0};
            for (uint32_t k = 0; k < n; ++k) {
                s = Stat{s.count + stat_of(k, i).count, std::max(s.peak, stat_of(k, i).peak)};
            }
            return s;
        };
        std::vector<Stat> dst(count, Stat{-1, -1});
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_MAX;  // ignored for generic types
        a.src.info = {src.data(), count, dt, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst.data(), count, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, a) == UCC_OK, "allreduce failed");
        for (uint64_t i = 0; i < count; ++i) {
            EXPECT_AT(errs, dst[i].count == want(i).count && dst[i].peak == want(i).peak,
                      "allreduce element " + std::to_string(i));
        }
        // Reduce to root 2, in place at the root.
        std::vector<Stat> io = src;
        ucc_coll_args_t b{};
        b.coll_type = UCC_COLL_TYPE_REDUCE;
        b.root = 2;
        b.src.info = {src.data(), count, dt, UCC_MEMORY_TYPE_HOST};
        b.dst.info = {r == 2 ? io.data() : nullptr, r == 2 ? count : 0, dt, UCC_MEMORY_TYPE_HOST};
        if (r == 2) {
            b.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            b.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        EXPECT_AT(errs, run_coll(env, b) == UCC_OK, "reduce failed");
        if (r == 2) {
            for (uint64_t i = 0; i < count; ++i) {
                EXPECT_AT(errs, io[i].count == want(i).count && io[i].peak == want(i).peak,
                          "reduce element " + std::to_string(i));
            }
        }
    });
    ucc_dt_destroy(dt);
}

TEST(GenericDt, ContiguousUserReductionOnReduceScatterAndV) {
    const ucc_datatype_t dt = make_stat_type();
    const uint32_t n = 4;
    const std::vector<uint32_t> counts = {2, 0, 3, 1};  // reduce_scatterv blocks
    const uint64_t total = 6;
    const uint64_t block = 3;  // reduce_scatter: per rank
    run_ranks(n, [&](uint32_t r, ucc::testkit::RankEnv &env, std::vector<std::string> &errs) {
        auto want = [&](uint64_t i) {
            Stat s{0, 0};
            for (uint32_t k = 0; k < n; ++k) {
                s = Stat{s.count + stat_of(k, i).count, std::max(s.peak, stat_of(k, i).peak)};
            }
            return s;
        };
        std::vector<Stat> src(block * n);
        for (uint64_t i = 0; i < src.size(); ++i) {
            src[i] = stat_of(r, i);
        }
        std::vector<Stat> dst(block, Stat{-1, -1});
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTER;
        a.src.info = {src.data(), block * n, dt, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst.data(), block, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, a) == UCC_OK, "reduce_scatter failed");
        for (uint64_t i = 0; i < block; ++i) {
            const Stat w = want(r * block + i);
            EXPECT_AT(errs, dst[i].count == w.count && dst[i].peak == w.peak,
                      "reduce_scatter element " + std::to_string(i));
        }
        std::vector<Stat> vsrc(total);
        for (uint64_t i = 0; i < total; ++i) {
            vsrc[i] = stat_of(r, i);
        }
        std::vector<Stat> vdst(std::max<uint32_t>(counts[r], 1), Stat{-1, -1});
        std::vector<uint32_t> c = counts;
        ucc_coll_args_t v{};
        v.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
        v.src.info = {vsrc.data(), total, dt, UCC_MEMORY_TYPE_HOST};
        v.dst.info_v = {vdst.data(), reinterpret_cast<ucc_count_t *>(c.data()), nullptr, dt,
                        UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, v) == UCC_OK, "reduce_scatterv failed");
        uint64_t off = 0;
        for (uint32_t k = 0; k < r; ++k) {
            off += counts[k];
        }
        for (uint64_t i = 0; i < counts[r]; ++i) {
            const Stat w = want(off + i);
            EXPECT_AT(errs, vdst[i].count == w.count && vdst[i].peak == w.peak,
                      "reduce_scatterv element " + std::to_string(i));
        }
    });
    ucc_dt_destroy(dt);
}

TEST(GenericDt, PackUnpackTypeMovedByBcastAllgatherAlltoall) {
    const ucc_datatype_t dt = make_pair_type();
    const uint32_t n = 4;
    const size_t B = 3;  // elements per block
    run_ranks(n, [&](uint32_t r, ucc::testkit::RankEnv &env, std::vector<std::string> &errs) {
        // Bcast from root 1, persistent, new root inputs on the second post.
        Pairs buf(5);
        ucc_coll_args_t bc{};
        bc.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        bc.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
        bc.coll_type = UCC_COLL_TYPE_BCAST;
        bc.root = 1;
        bc.src.info = {buf.data(), 5, dt, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        EXPECT_AT(errs, ucc_collective_init(&bc, &req, env.team) == UCC_OK, "bcast init");
        for (int post = 0; post < 2 && req != nullptr; ++post) {
            for (size_t j = 0; j < 5; ++j) {
                buf.set(j, r == 1 ? va(post, j) : -1, r == 1 ? vb(post, j) : -1);
            }
            ucc_status_t st = ucc_collective_post(req);
            if (st == UCC_OK) {
                while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                    ucc_context_progress(env.ctx);
                }
            }
            EXPECT_AT(errs, st == UCC_OK, "bcast post " + std::to_string(post));
            for (size_t j = 0; j < 5; ++j) {
                EXPECT_AT(errs, buf.a(j) == va(post, j) && buf.b(j) == vb(post, j),
                          "bcast element " + std::to_string(j));
            }
            EXPECT_AT(errs, buf.holes_intact(), "bcast wrote into a hole");
        }
        if (req != nullptr) {
            ucc_collective_finalize(req);
        }
        // Allgather.
        Pairs src(B);
        for (size_t j = 0; j < B; ++j) {
            src.set(j, va(r, j), vb(r, j));
        }
        Pairs dst(B * n);
        ucc_coll_args_t ag{};
        ag.coll_type = UCC_COLL_TYPE_ALLGATHER;
        ag.src.info = {src.data(), B, dt, UCC_MEMORY_TYPE_HOST};
        ag.dst.info = {dst.data(), B * n, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, ag) == UCC_OK, "allgather failed");
        for (uint32_t k = 0; k < n; ++k) {
            for (size_t j = 0; j < B; ++j) {
                EXPECT_AT(errs, dst.a(k * B + j) == va(k, j) && dst.b(k * B + j) == vb(k, j),
                          "allgather block " + std::to_string(k));
            }
        }
        EXPECT_AT(errs, dst.holes_intact() && src.holes_intact(), "allgather wrote into a hole");
        // Alltoall: block k of rank r's src goes to rank k's block r.
        Pairs asrc(B * n);
        for (uint32_t k = 0; k < n; ++k) {
            for (size_t j = 0; j < B; ++j) {
                asrc.set(k * B + j, va(r, k * B + j), vb(r, k * B + j));
            }
        }
        Pairs adst(B * n);
        ucc_coll_args_t aa{};
        aa.coll_type = UCC_COLL_TYPE_ALLTOALL;
        aa.src.info = {asrc.data(), B * n, dt, UCC_MEMORY_TYPE_HOST};
        aa.dst.info = {adst.data(), B * n, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, aa) == UCC_OK, "alltoall failed");
        for (uint32_t k = 0; k < n; ++k) {
            for (size_t j = 0; j < B; ++j) {
                EXPECT_AT(
                    errs,
                    adst.a(k * B + j) == va(k, r * B + j) && adst.b(k * B + j) == vb(k, r * B + j),
                    "alltoall block " + std::to_string(k));
            }
        }
        EXPECT_AT(errs, adst.holes_intact(), "alltoall wrote into a hole");
    });
    ucc_dt_destroy(dt);
}

TEST(GenericDt, PackUnpackTypeMovedByVCollectivesGatherAndScatter) {
    const ucc_datatype_t dt = make_pair_type();
    const uint32_t n = 4;
    const std::vector<uint32_t> counts = {2, 0, 1, 3};
    const std::vector<uint32_t> displs = {1, 3, 4, 6};  // gaps at 0, 3 and 5
    const size_t extent = 9;
    run_ranks(n, [&](uint32_t r, ucc::testkit::RankEnv &env, std::vector<std::string> &errs) {
        // Allgatherv with gaps: elements outside the blocks keep their contents.
        Pairs src(3);
        for (size_t j = 0; j < 3; ++j) {
            src.set(j, va(r, j), vb(r, j));
        }
        Pairs dst(extent);
        for (size_t j = 0; j < extent; ++j) {
            dst.set(j, 77, 78);
        }
        std::vector<uint32_t> c = counts;
        std::vector<uint32_t> d = displs;
        ucc_coll_args_t av{};
        av.coll_type = UCC_COLL_TYPE_ALLGATHERV;
        av.src.info = {src.data(), counts[r], dt, UCC_MEMORY_TYPE_HOST};
        av.dst.info_v = {dst.data(), reinterpret_cast<ucc_count_t *>(c.data()),
                         reinterpret_cast<ucc_aint_t *>(d.data()), dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, av) == UCC_OK, "allgatherv failed");
        std::vector<bool> covered(extent, false);
        for (uint32_t k = 0; k < n; ++k) {
            for (size_t j = 0; j < counts[k]; ++j) {
                covered[displs[k] + j] = true;
                EXPECT_AT(errs,
                          dst.a(displs[k] + j) == va(k, j) && dst.b(displs[k] + j) == vb(k, j),
                          "allgatherv block " + std::to_string(k));
            }
        }
        for (size_t j = 0; j < extent; ++j) {
            EXPECT_AT(errs, covered[j] || (dst.a(j) == 77 && dst.b(j) == 78),
                      "allgatherv wrote element " + std::to_string(j) + " outside every block");
        }
        EXPECT_AT(errs, dst.holes_intact(), "allgatherv wrote into a hole");
        // Gather to root 3 and scatter back from root 0.
        const size_t B = 2;
        Pairs gsrc(B);
        for (size_t j = 0; j < B; ++j) {
            gsrc.set(j, va(r, j), vb(r, j));
        }
        Pairs gdst(B * n);
        ucc_coll_args_t g{};
        g.coll_type = UCC_COLL_TYPE_GATHER;
        g.root = 3;
        g.src.info = {gsrc.data(), B, dt, UCC_MEMORY_TYPE_HOST};
        g.dst.info = {r == 3 ? gdst.data() : nullptr, r == 3 ? B * n : 0, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, g) == UCC_OK, "gather failed");
        if (r == 3) {
            for (uint32_t k = 0; k < n; ++k) {
                for (size_t j = 0; j < B; ++j) {
                    EXPECT_AT(errs, gdst.a(k * B + j) == va(k, j) && gdst.b(k * B + j) == vb(k, j),
                              "gather block " + std::to_string(k));
                }
            }
        }
        Pairs ssrc(B * n);
        for (size_t j = 0; j < B * n; ++j) {
            ssrc.set(j, va(9, j), vb(9, j));
        }
        Pairs sdst(B);
        ucc_coll_args_t sc{};
        sc.coll_type = UCC_COLL_TYPE_SCATTER;
        sc.root = 0;
        sc.src.info = {ssrc.data(), B * n, dt, UCC_MEMORY_TYPE_HOST};
        sc.dst.info = {sdst.data(), B, dt, UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, sc) == UCC_OK, "scatter failed");
        for (size_t j = 0; j < B; ++j) {
            EXPECT_AT(errs, sdst.a(j) == va(9, r * B + j) && sdst.b(j) == vb(9, r * B + j),
                      "scatter element " + std::to_string(j));
        }
        // Alltoallv: rank r sends j+1 elements to rank j... (counts[j] from each).
        std::vector<uint32_t> sc_counts(n), sc_displs(n), rc_counts(n), rc_displs(n);
        uint32_t so = 0, ro = 0;
        for (uint32_t k = 0; k < n; ++k) {
            sc_counts[k] = (r + k) % 3;
            sc_displs[k] = so;
            so += sc_counts[k];
            rc_counts[k] = (k + r) % 3;
            rc_displs[k] = ro + 1;  // one element of gap before each block
            ro += rc_counts[k] + 1;
        }
        Pairs vsrc(std::max<uint32_t>(so, 1));
        for (uint32_t j = 0; j < so; ++j) {
            vsrc.set(j, va(r, j), vb(r, j));
        }
        Pairs vdst(ro + 1);
        ucc_coll_args_t vv{};
        vv.coll_type = UCC_COLL_TYPE_ALLTOALLV;
        vv.src.info_v = {vsrc.data(), reinterpret_cast<ucc_count_t *>(sc_counts.data()),
                         reinterpret_cast<ucc_aint_t *>(sc_displs.data()), dt,
                         UCC_MEMORY_TYPE_HOST};
        vv.dst.info_v = {vdst.data(), reinterpret_cast<ucc_count_t *>(rc_counts.data()),
                         reinterpret_cast<ucc_aint_t *>(rc_displs.data()), dt,
                         UCC_MEMORY_TYPE_HOST};
        EXPECT_AT(errs, run_coll(env, vv) == UCC_OK, "alltoallv failed");
        for (uint32_t k = 0; k < n; ++k) {
            // Rank k's block for r starts at its displacement sum over peers < r.
            uint32_t k_off = 0;
            for (uint32_t q = 0; q < r; ++q) {
                k_off += (k + q) % 3;
            }
            for (uint32_t j = 0; j < rc_counts[k]; ++j) {
                EXPECT_AT(errs,
                          vdst.a(rc_displs[k] + j) == va(k, k_off + j) &&
                              vdst.b(rc_displs[k] + j) == vb(k, k_off + j),
                          "alltoallv block from rank " + std::to_string(k));
            }
        }
        EXPECT_AT(errs, vdst.holes_intact(), "alltoallv wrote into a hole");
    });
    ucc_dt_destroy(dt);
}

TEST(GenericDt, ReductionOnAPackUnpackTypeIsNotSupported) {
    const ucc_datatype_t dt = make_pair_type(true);
    run_ranks(2, [&](uint32_t, ucc::testkit::RankEnv &env, std::vector<std::string> &errs) {
        Pairs src(2);
        Pairs dst(2);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.src.info = {src.data(), 2, dt, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst.data(), 2, dt, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        const ucc_status_t st = ucc_collective_init(&a, &req, env.team);
        EXPECT_AT(errs, st == UCC_ERR_NOT_SUPPORTED,
                  std::string("allreduce init gave ") + ucc_status_string(st));
    });
    ucc_dt_destroy(dt);
}

}  // namespace
