// Generic datatypes through the C API (ucc_dt_create_generic / ucc_dt_destroy): handle
// encoding, ops copied by value, argument checks with their log line, the support rule
// for reductions, and reduce_generic calling the user callback with documented params.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/dt/dt.h"
#include "ucc/api/ucc.h"

namespace {

using namespace ucc::dt;

// A user element: a pair of int32, reduced by adding each field.
struct Pair {
    int32_t x;
    int32_t y;
};

// What the callback saw, and what it answers.
struct CallLog {
    int calls = 0;
    ucc_reduce_cb_params_t seen{};
    ucc_status_t answer = UCC_OK;
};

ucc_status_t pair_sum(const ucc_reduce_cb_params_t *p) {
    auto *log = static_cast<CallLog *>(p->cb_ctx);
    ++log->calls;
    log->seen = *p;
    auto *dst = static_cast<Pair *>(p->dst);
    const auto *s1 = static_cast<const Pair *>(p->src1);
    for (size_t i = 0; i < p->count; ++i) {
        Pair acc = s1[i];
        for (size_t v = 0; v < p->n_vectors; ++v) {
            const auto *sv =
                reinterpret_cast<const Pair *>(static_cast<const char *>(p->src2) + v * p->stride);
            acc.x += sv[i].x;
            acc.y += sv[i].y;
        }
        dst[i] = acc;
    }
    return log->answer;
}

// Pack-style callbacks: never called here, they only need to exist.
void *fake_start_pack(void *, const void *, size_t) {
    return nullptr;
}
void *fake_start_unpack(void *, void *, size_t) {
    return nullptr;
}
size_t fake_packed_size(void *) {
    return 0;
}
size_t fake_pack(void *, size_t, void *, size_t) {
    return 0;
}
ucc_status_t fake_unpack(void *, size_t, const void *, size_t) {
    return UCC_OK;
}
void fake_finish(void *) {}

ucc_generic_dt_ops_t contig_ops(CallLog *log) {
    ucc_generic_dt_ops_t ops{};
    ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    ops.contig_size = sizeof(Pair);
    ops.reduce.cb = pair_sum;
    ops.reduce.cb_ctx = log;
    return ops;
}

ucc_generic_dt_ops_t pack_ops() {
    ucc_generic_dt_ops_t ops{};
    ops.start_pack = fake_start_pack;
    ops.start_unpack = fake_start_unpack;
    ops.packed_size = fake_packed_size;
    ops.pack = fake_pack;
    ops.unpack = fake_unpack;
    ops.finish = fake_finish;
    return ops;
}

// Calls ucc_dt_create_generic and returns what it printed on stderr.
std::string create_stderr(const ucc_generic_dt_ops_t *ops, ucc_datatype_t *out,
                          ucc_status_t *status) {
    testing::internal::CaptureStderr();
    *status = ucc_dt_create_generic(ops, nullptr, out);
    return testing::internal::GetCapturedStderr();
}

TEST(DtGeneric, CreateContigReducible) {
    CallLog log;
    ucc_generic_dt_ops_t ops = contig_ops(&log);
    int user_context = 0;
    ucc_datatype_t dt = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, &user_context, &dt), UCC_OK);

    EXPECT_EQ(dt & UCC_DATATYPE_CLASS_MASK, uint64_t{UCC_DATATYPE_GENERIC});
    EXPECT_EQ((dt & ~uint64_t{UCC_DATATYPE_CLASS_MASK}) % 16, 0u);  // 16-byte aligned
    EXPECT_TRUE(is_generic(dt));
    EXPECT_FALSE(is_predefined(dt));
    EXPECT_TRUE(is_valid(dt));
    EXPECT_FALSE(is_integer(dt));
    EXPECT_FALSE(is_float_like(dt));
    EXPECT_EQ(size_of(dt), sizeof(Pair));
    EXPECT_STREQ(name(dt), "generic");
    const Generic *g = generic_of(dt);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->context, &user_context);
    EXPECT_EQ(g->ops.reduce.cb, &pair_sum);
    EXPECT_EQ(g->ops.reduce.cb_ctx, &log);

    // The table was copied: changing the caller's copy changes nothing.
    ops.contig_size = 999;
    ops.flags = 0;
    EXPECT_EQ(size_of(dt), sizeof(Pair));

    // Reducible for whatever op (the user callback defines the operation).
    for (int op = 0; op <= UCC_OP_LAST; ++op) {
        EXPECT_TRUE(reduction_supported(dt, static_cast<ucc_reduction_op_t>(op))) << op;
    }
    ucc_dt_destroy(dt);
}

TEST(DtGeneric, ReduceGenericCallsUserCallback) {
    CallLog log;
    const ucc_generic_dt_ops_t ops = contig_ops(&log);
    ucc_datatype_t dt = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    const Generic *g = generic_of(dt);
    ASSERT_NE(g, nullptr);

    const size_t count = 5;
    std::vector<Pair> a(count), b(count), d(count);
    for (size_t i = 0; i < count; ++i) {
        a[i] = {static_cast<int32_t>(i), 10};
        b[i] = {100, -static_cast<int32_t>(i)};
    }
    ASSERT_EQ(reduce_generic(*g, d.data(), a.data(), b.data(), count), UCC_OK);
    EXPECT_EQ(log.calls, 1);
    EXPECT_EQ(log.seen.mask, 0u);
    EXPECT_EQ(log.seen.src1, a.data());
    EXPECT_EQ(log.seen.src2, b.data());
    EXPECT_EQ(log.seen.dst, d.data());
    EXPECT_EQ(log.seen.n_vectors, 1u);
    EXPECT_EQ(log.seen.count, count);
    EXPECT_EQ(log.seen.stride, count * sizeof(Pair));  // bytes (API.md §5 #17)
    EXPECT_EQ(log.seen.cb_ctx, &log);
    EXPECT_EQ(static_cast<const void *>(log.seen.dt), static_cast<const void *>(g));
    for (size_t i = 0; i < count; ++i) {
        EXPECT_EQ(d[i].x, static_cast<int32_t>(i) + 100);
        EXPECT_EQ(d[i].y, 10 - static_cast<int32_t>(i));
    }

    // In place, and the callback's error comes back unchanged.
    log.answer = UCC_ERR_NO_MESSAGE;
    EXPECT_EQ(reduce_generic(*g, a.data(), a.data(), b.data(), count), UCC_ERR_NO_MESSAGE);
    EXPECT_EQ(log.calls, 2);
    EXPECT_EQ(a[2].x, 102);
    ucc_dt_destroy(dt);
}

TEST(DtGeneric, NotReducibleWithoutFlagOrCallback) {
    CallLog log;
    ucc_generic_dt_ops_t no_flag = contig_ops(&log);
    no_flag.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
    ucc_generic_dt_ops_t no_cb = contig_ops(&log);
    no_cb.reduce.cb = nullptr;
    for (const ucc_generic_dt_ops_t &ops : {no_flag, no_cb}) {
        ucc_datatype_t dt = 0;
        ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
        EXPECT_FALSE(reduction_supported(dt, UCC_OP_SUM));
        std::vector<Pair> a(2), b(2), d(2);
        EXPECT_EQ(reduce_generic(*generic_of(dt), d.data(), a.data(), b.data(), 2),
                  UCC_ERR_NOT_SUPPORTED);
        ucc_dt_destroy(dt);
    }
    EXPECT_EQ(log.calls, 0);
}

TEST(DtGeneric, PackOnlyTypeAndMaskWithoutFlags) {
    // Not contiguous but with every pack callback: accepted, size 0, not reducible.
    ucc_generic_dt_ops_t ops = pack_ops();
    ucc_datatype_t dt = 0;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    EXPECT_EQ(size_of(dt), 0u);
    EXPECT_FALSE(reduction_supported(dt, UCC_OP_SUM));
    ucc_dt_destroy(dt);

    // flags without the FLAGS mask bit are ignored: CONTIG | REDUCE count for nothing.
    ops.mask = 0;
    ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    ops.contig_size = 8;
    ops.reduce.cb = pair_sum;
    ASSERT_EQ(ucc_dt_create_generic(&ops, nullptr, &dt), UCC_OK);
    EXPECT_EQ(generic_of(dt)->ops.flags, 0u);
    EXPECT_EQ(size_of(dt), 0u);
    EXPECT_FALSE(reduction_supported(dt, UCC_OP_SUM));
    ucc_dt_destroy(dt);

    // ... so a table relying on them without pack callbacks is rejected.
    CallLog log;
    ucc_generic_dt_ops_t contig = contig_ops(&log);
    contig.mask = 0;
    dt = 12345;
    ucc_status_t st = UCC_OK;
    const std::string err = create_stderr(&contig, &dt, &st);
    EXPECT_EQ(st, UCC_ERR_INVALID_PARAM);
    EXPECT_NE(err.find("not CONTIG"), std::string::npos) << err;
    EXPECT_EQ(dt, 12345u);
}

TEST(DtGeneric, InvalidArguments) {
    CallLog log;
    const ucc_generic_dt_ops_t good = contig_ops(&log);
    ucc_datatype_t dt = 7;
    ucc_status_t st = UCC_OK;

    std::string err = create_stderr(nullptr, &dt, &st);
    EXPECT_EQ(st, UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(err, "[ucc] ERROR ucc_dt_create_generic: ops is NULL\n");

    err = create_stderr(&good, nullptr, &st);
    EXPECT_EQ(st, UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(err, "[ucc] ERROR ucc_dt_create_generic: datatype_p is NULL\n");

    ucc_generic_dt_ops_t zero_size = good;
    zero_size.contig_size = 0;
    err = create_stderr(&zero_size, &dt, &st);
    EXPECT_EQ(st, UCC_ERR_INVALID_PARAM);
    EXPECT_NE(err.find("contig_size"), std::string::npos) << err;

    // Neither contiguous nor fully packable: each missing callback is an error.
    for (int missing = 0; missing < 6; ++missing) {
        ucc_generic_dt_ops_t ops = pack_ops();
        switch (missing) {
            case 0:
                ops.start_pack = nullptr;
                break;
            case 1:
                ops.pack = nullptr;
                break;
            case 2:
                ops.start_unpack = nullptr;
                break;
            case 3:
                ops.unpack = nullptr;
                break;
            case 4:
                ops.packed_size = nullptr;
                break;
            default:
                ops.finish = nullptr;
                break;
        }
        err = create_stderr(&ops, &dt, &st);
        EXPECT_EQ(st, UCC_ERR_INVALID_PARAM) << missing;
        EXPECT_NE(err.find("ucc_dt_create_generic"), std::string::npos) << err;
    }
    EXPECT_EQ(dt, 7u);  // never written on failure
}

TEST(DtGeneric, DestroyPredefinedIsNoop) {
    for (uint64_t id = 0; id < kPredefinedCount; ++id) {
        ucc_dt_destroy(UCC_PREDEFINED_DT(id));
        EXPECT_TRUE(is_predefined(UCC_PREDEFINED_DT(id)));
    }
    ucc_dt_destroy(UCC_DATATYPE_GENERIC);  // a null generic handle: nothing to free
    EXPECT_EQ(size_of(UCC_DT_FLOAT64), 8u);
}

TEST(DtGeneric, ManyLiveTypesAreDistinct) {
    CallLog log;
    const ucc_generic_dt_ops_t ops = contig_ops(&log);
    std::vector<ucc_datatype_t> dts(32);
    for (size_t i = 0; i < dts.size(); ++i) {
        ASSERT_EQ(ucc_dt_create_generic(&ops, reinterpret_cast<void *>(i + 1), &dts[i]), UCC_OK);
    }
    for (size_t i = 0; i < dts.size(); ++i) {
        EXPECT_EQ(generic_of(dts[i])->context, reinterpret_cast<void *>(i + 1));
        for (size_t j = 0; j < i; ++j) {
            EXPECT_NE(dts[i], dts[j]);
        }
    }
    for (ucc_datatype_t dt : dts) {
        ucc_dt_destroy(dt);
    }
}

}  // namespace
