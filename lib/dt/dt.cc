// Datatype metadata and the host reduction kernels.
//
// Every predefined datatype is described by an element codec (how one element is
// loaded from and stored to memory, and the value type arithmetic happens in) and a
// class (integer, real, complex). One constexpr table, built from templates, holds per
// datatype its name, size, one kernel per supported op and its AVG finaliser, so a
// reduction costs one table lookup and then a tight loop with no per-element switch.
#include "lib/dt/dt.h"

#include <cfloat>
#include <cstring>

#include "lib/dt/half.h"
#include "lib/util/common.h"

// Complex products must not be contracted into fused multiply-adds, or results would
// differ between machines. GCC keeps contraction off in ISO mode (-std=c++20, our
// build); clang contracts within an expression by default, so switch it off here.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

// Marks a loop whose iterations are independent: dst may alias a source only exactly,
// so element i is read before it is written and never read again. With a fixed trip
// count this is what lets the -O2 (very cheap) vectoriser take the loop. Clang
// reports loops it still cannot vectorise (float16 conversions): that is expected.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#define UCC_DT_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define UCC_DT_INDEPENDENT _Pragma("GCC ivdep")
#else
#define UCC_DT_INDEPENDENT
#endif

namespace ucc::dt {
namespace {

using Byte = unsigned char;

enum class Class { kInteger, kReal, kComplex };

constexpr size_t kOpCount = UCC_OP_LAST;

// ---- element codecs: Value, kSize, load, store --------------------------------------

// Loads and stores go through memcpy, so buffers need no alignment; compilers turn
// them into plain (unaligned) moves.
template <class T>
struct Raw {
    using Value = T;
    static constexpr size_t kSize = sizeof(T);
    static T load(const Byte *p) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    }
    static void store(Byte *p, T v) { std::memcpy(p, &v, sizeof(T)); }
};

// Integers. Unsigned is the same-width unsigned type; Arith is the unsigned type that
// SUM and PROD are done in: at least 32 bits wide, so that narrow operands do not
// promote to (overflowing) int, and unsigned, so that overflow wraps instead of being
// undefined. Traits are spelt out because std::numeric_limits and std::make_unsigned
// know nothing of __int128 in ISO mode.
template <class T, class U, class A>
struct Int : Raw<T> {
    static constexpr Class kClass = Class::kInteger;
    using Unsigned = U;
    using Arith = A;
    static constexpr bool kSigned = static_cast<T>(-1) < 0;
    static constexpr T kMax = static_cast<T>(kSigned ? static_cast<U>(static_cast<U>(~U{0}) >> 1)
                                                     : static_cast<U>(~U{0}));
};

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 Uint128;

using Int8 = Int<int8_t, uint8_t, uint32_t>;
using Int16 = Int<int16_t, uint16_t, uint32_t>;
using Int32 = Int<int32_t, uint32_t, uint32_t>;
using Int64 = Int<int64_t, uint64_t, uint64_t>;
using IntX128 = Int<Int128, Uint128, Uint128>;
using Uint8 = Int<uint8_t, uint8_t, uint32_t>;
using Uint16 = Int<uint16_t, uint16_t, uint32_t>;
using Uint32 = Int<uint32_t, uint32_t, uint32_t>;
using Uint64 = Int<uint64_t, uint64_t, uint64_t>;
using UintX128 = Int<Uint128, Uint128, Uint128>;

// float32 and float64: stored and computed as themselves.
template <class T>
struct Ieee : Raw<T> {
    static constexpr Class kClass = Class::kReal;
};
using Float32 = Ieee<float>;
using Float64 = Ieee<double>;

// float16 and bfloat16: 2-byte storage, computed in float32, rounded on every store.
struct Float16 {
    static constexpr Class kClass = Class::kReal;
    using Value = float;
    static constexpr size_t kSize = 2;
    static float load(const Byte *p) { return half_to_float(Raw<uint16_t>::load(p)); }
    static void store(Byte *p, float v) { Raw<uint16_t>::store(p, float_to_half(v)); }
};
struct Bfloat16 {
    static constexpr Class kClass = Class::kReal;
    using Value = float;
    static constexpr size_t kSize = 2;
    static float load(const Byte *p) { return bfloat16_to_float(Raw<uint16_t>::load(p)); }
    static void store(Byte *p, float v) { Raw<uint16_t>::store(p, float_to_bfloat16(v)); }
};

// float128 is long double in a 16-byte slot. On x86 only the first 10 bytes hold the
// value (64-bit mantissa); the store writes those and zeroes the rest, so a result
// never depends on the garbage an input or the FPU left in the padding.
static_assert(sizeof(long double) == 16, "UCC_DT_FLOAT128 expects a 16-byte long double");
struct Float128 {
    static constexpr Class kClass = Class::kReal;
    using Value = long double;
    static constexpr size_t kSize = 16;
    static constexpr size_t kValueBytes = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);
    static long double load(const Byte *p) {
        long double v;
        std::memcpy(&v, p, sizeof(v));
        return v;
    }
    static void store(Byte *p, long double v) {
        std::memcpy(p, &v, kValueBytes);
        std::memset(p + kValueBytes, 0, kSize - kValueBytes);
    }
};

// Complex: two consecutive reals (real part first), each stored by its own codec.
template <class R>
struct Cplx {
    R re;
    R im;
};
template <class Part>
struct Complex {
    static constexpr Class kClass = Class::kComplex;
    using Real = typename Part::Value;
    using Value = Cplx<Real>;
    static constexpr size_t kSize = 2 * Part::kSize;
    static Value load(const Byte *p) { return {Part::load(p), Part::load(p + Part::kSize)}; }
    static void store(Byte *p, Value v) {
        Part::store(p, v.re);
        Part::store(p + Part::kSize, v.im);
    }
};
using Float32Complex = Complex<Float32>;
using Float64Complex = Complex<Float64>;
using Float128Complex = Complex<Float128>;

// ---- element operations: static Value apply(Value, Value) ----------------------------

template <class Tr>
struct IntSum {
    using T = typename Tr::Value;
    using A = typename Tr::Arith;
    static T apply(T a, T b) { return static_cast<T>(static_cast<A>(a) + static_cast<A>(b)); }
};
template <class Tr>
struct IntProd {
    using T = typename Tr::Value;
    using A = typename Tr::Arith;
    static T apply(T a, T b) { return static_cast<T>(static_cast<A>(a) * static_cast<A>(b)); }
};
template <class Tr>
struct Land {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
template <class Tr>
struct Lor {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
template <class Tr>
struct Lxor {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
template <class Tr>
struct Band {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>(a & b); }
};
template <class Tr>
struct Bor {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>(a | b); }
};
template <class Tr>
struct Bxor {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};

// MAX/MIN for integers and reals alike. For reals the plain comparison decides: a NaN
// in either operand makes the comparison false, so the result is b.
template <class Tr>
struct Max {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return a > b ? a : b; }
};
template <class Tr>
struct Min {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return a < b ? a : b; }
};

template <class Tr>
struct RealSum {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return a + b; }
};
template <class Tr>
struct RealProd {
    using T = typename Tr::Value;
    static T apply(T a, T b) { return a * b; }
};

template <class Tr>
struct ComplexSum {
    using V = typename Tr::Value;
    static V apply(V a, V b) { return {a.re + b.re, a.im + b.im}; }
};
// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, evaluated exactly in this order so every
// platform rounds the same way (std::complex may add NaN/inf recovery or use FMA).
template <class Tr>
struct ComplexProd {
    using V = typename Tr::Value;
    static V apply(V x, V y) {
        const auto ac = x.re * y.re;
        const auto bd = x.im * y.im;
        const auto ad = x.re * y.im;
        const auto bc = x.im * y.re;
        return {ac - bd, ad + bc};
    }
};

// ---- kernels ---------------------------------------------------------------------------

using AvgFn = void (*)(void *buf, size_t count, uint64_t n);

// Elements per inner block: a fixed trip count the vectoriser can take whole.
constexpr size_t kBlock = 16;

template <class Tr, class Op>
void reduce_kernel(void *dst, const void *a, const void *b, size_t count) {
    Byte *d = static_cast<Byte *>(dst);
    const Byte *x = static_cast<const Byte *>(a);
    const Byte *y = static_cast<const Byte *>(b);
    constexpr size_t kSize = Tr::kSize;
    size_t i = 0;
    // Whole blocks first, each a fixed-length independent loop (vectorised where the
    // codec allows), then the remaining count % kBlock elements one by one.
    for (; i + kBlock <= count; i += kBlock) {
        Byte *db = d + i * kSize;
        const Byte *xb = x + i * kSize;
        const Byte *yb = y + i * kSize;
        UCC_DT_INDEPENDENT
        for (size_t j = 0; j < kBlock; ++j) {
            Tr::store(db + j * kSize,
                      Op::apply(Tr::load(xb + j * kSize), Tr::load(yb + j * kSize)));
        }
    }
    for (; i < count; ++i) {
        Tr::store(d + i * kSize, Op::apply(Tr::load(x + i * kSize), Tr::load(y + i * kSize)));
    }
}

// v / n for an integer type, truncating toward zero, for every n >= 1. When n fits
// the type the division happens there (promoted); otherwise it is done exactly in
// 128 bits (|v| <= 2^127 and n < 2^64, so nothing overflows).
template <class Tr>
typename Tr::Value int_div(typename Tr::Value v, uint64_t n) {
    using T = typename Tr::Value;
    if (static_cast<Uint128>(n) <= static_cast<Uint128>(Tr::kMax)) {
        return static_cast<T>(v / static_cast<T>(n));
    }
    if constexpr (Tr::kSigned) {
        return static_cast<T>(static_cast<Int128>(v) / static_cast<Int128>(n));
    } else {
        return static_cast<T>(static_cast<Uint128>(v) / static_cast<Uint128>(n));
    }
}

template <class Tr>
void avg_kernel(void *buf, size_t count, uint64_t n) {
    Byte *p = static_cast<Byte *>(buf);
    for (size_t i = 0; i < count; ++i) {
        Byte *e = p + i * Tr::kSize;
        const auto v = Tr::load(e);
        if constexpr (Tr::kClass == Class::kInteger) {
            Tr::store(e, int_div<Tr>(v, n));
        } else if constexpr (Tr::kClass == Class::kReal) {
            using T = typename Tr::Value;
            Tr::store(e, static_cast<T>(v / static_cast<T>(n)));
        } else {
            using R = typename Tr::Real;
            const R d = static_cast<R>(n);
            Tr::store(e, {static_cast<R>(v.re / d), static_cast<R>(v.im / d)});
        }
    }
}

// ---- the datatype table ------------------------------------------------------------------

struct TypeInfo {
    const char *name;
    size_t size;
    Class cls;
    ReduceFn ops[kOpCount];  // nullptr: unsupported
    AvgFn avg;
};

template <class Tr>
constexpr TypeInfo make_info(const char *name) {
    TypeInfo t{name, Tr::kSize, Tr::kClass, {}, &avg_kernel<Tr>};
    if constexpr (Tr::kClass == Class::kInteger) {
        t.ops[UCC_OP_SUM] = &reduce_kernel<Tr, IntSum<Tr>>;
        t.ops[UCC_OP_PROD] = &reduce_kernel<Tr, IntProd<Tr>>;
        t.ops[UCC_OP_MAX] = &reduce_kernel<Tr, Max<Tr>>;
        t.ops[UCC_OP_MIN] = &reduce_kernel<Tr, Min<Tr>>;
        t.ops[UCC_OP_LAND] = &reduce_kernel<Tr, Land<Tr>>;
        t.ops[UCC_OP_LOR] = &reduce_kernel<Tr, Lor<Tr>>;
        t.ops[UCC_OP_LXOR] = &reduce_kernel<Tr, Lxor<Tr>>;
        t.ops[UCC_OP_BAND] = &reduce_kernel<Tr, Band<Tr>>;
        t.ops[UCC_OP_BOR] = &reduce_kernel<Tr, Bor<Tr>>;
        t.ops[UCC_OP_BXOR] = &reduce_kernel<Tr, Bxor<Tr>>;
        t.ops[UCC_OP_AVG] = &reduce_kernel<Tr, IntSum<Tr>>;
    } else if constexpr (Tr::kClass == Class::kReal) {
        t.ops[UCC_OP_SUM] = &reduce_kernel<Tr, RealSum<Tr>>;
        t.ops[UCC_OP_PROD] = &reduce_kernel<Tr, RealProd<Tr>>;
        t.ops[UCC_OP_MAX] = &reduce_kernel<Tr, Max<Tr>>;
        t.ops[UCC_OP_MIN] = &reduce_kernel<Tr, Min<Tr>>;
        t.ops[UCC_OP_AVG] = &reduce_kernel<Tr, RealSum<Tr>>;
    } else {
        t.ops[UCC_OP_SUM] = &reduce_kernel<Tr, ComplexSum<Tr>>;
        t.ops[UCC_OP_PROD] = &reduce_kernel<Tr, ComplexProd<Tr>>;
        t.ops[UCC_OP_AVG] = &reduce_kernel<Tr, ComplexSum<Tr>>;
    }
    return t;
}

// Indexed by predefined id, in the order of the API.md §3.4 table.
constexpr TypeInfo kTypes[kPredefinedCount] = {
    make_info<Int8>("int8"),
    make_info<Int16>("int16"),
    make_info<Int32>("int32"),
    make_info<Int64>("int64"),
    make_info<IntX128>("int128"),
    make_info<Uint8>("uint8"),
    make_info<Uint16>("uint16"),
    make_info<Uint32>("uint32"),
    make_info<Uint64>("uint64"),
    make_info<UintX128>("uint128"),
    make_info<Float16>("float16"),
    make_info<Float32>("float32"),
    make_info<Float64>("float64"),
    make_info<Bfloat16>("bfloat16"),
    make_info<Float128>("float128"),
    make_info<Float32Complex>("float32_complex"),
    make_info<Float64Complex>("float64_complex"),
    make_info<Float128Complex>("float128_complex"),
};

constexpr const char *kOpNames[kOpCount] = {"sum",    "prod",   "max",  "min", "land",
                                            "lor",    "lxor",   "band", "bor", "bxor",
                                            "maxloc", "minloc", "avg"};

// The table entry of a predefined datatype, nullptr for anything else.
const TypeInfo *info_of(ucc_datatype_t dt) {
    if ((dt & UCC_DATATYPE_CLASS_MASK) != UCC_DATATYPE_PREDEFINED) {
        return nullptr;
    }
    const uint64_t id = dt >> UCC_DATATYPE_SHIFT;
    return id < kPredefinedCount ? &kTypes[id] : nullptr;
}

ReduceFn kernel_of(ucc_datatype_t dt, ucc_reduction_op_t op) {
    const TypeInfo *t = info_of(dt);
    const auto op_index = static_cast<uint64_t>(op);
    if (t == nullptr || op_index >= kOpCount) {
        return nullptr;
    }
    return t->ops[op_index];
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequal(const char *a, const char *b) {
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        if (ascii_lower(*a) != ascii_lower(*b)) {
            return false;
        }
    }
    return *a == *b;
}

// s without a leading `prefix` (compared case-insensitively), or s itself.
const char *skip_prefix(const char *s, const char *prefix) {
    const char *p = s;
    for (; *prefix != '\0'; ++p, ++prefix) {
        if (ascii_lower(*p) != *prefix) {
            return s;
        }
    }
    return p;
}

}  // namespace

bool is_predefined(ucc_datatype_t dt) {
    return info_of(dt) != nullptr;
}

bool is_generic(ucc_datatype_t dt) {
    return (dt & UCC_DATATYPE_CLASS_MASK) == UCC_DATATYPE_GENERIC;
}

bool is_valid(ucc_datatype_t dt) {
    return is_predefined(dt) || generic_of(dt) != nullptr;
}

bool is_float_like(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls != Class::kInteger;
}

bool is_complex(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls == Class::kComplex;
}

bool is_integer(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls == Class::kInteger;
}

size_t size_of(ucc_datatype_t dt) {
    if (const TypeInfo *t = info_of(dt)) {
        return t->size;
    }
    if (const Generic *g = generic_of(dt)) {
        return (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0 ? g->ops.contig_size : 0;
    }
    return 0;
}

const char *name(ucc_datatype_t dt) {
    if (const TypeInfo *t = info_of(dt)) {
        return t->name;
    }
    return generic_of(dt) != nullptr ? "generic" : "unknown";
}

const char *op_name(ucc_reduction_op_t op) {
    const auto index = static_cast<uint64_t>(op);
    return index < kOpCount ? kOpNames[index] : "unknown";
}

ucc_status_t parse_datatype(const char *s, ucc_datatype_t *out) {
    if (s == nullptr || out == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    const char *bare = skip_prefix(s, "ucc_dt_");
    for (uint64_t id = 0; id < kPredefinedCount; ++id) {
        if (iequal(bare, kTypes[id].name)) {
            *out = UCC_PREDEFINED_DT(id);
            return UCC_OK;
        }
    }
    return UCC_ERR_NOT_FOUND;
}

ucc_status_t parse_op(const char *s, ucc_reduction_op_t *out) {
    if (s == nullptr || out == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    const char *bare = skip_prefix(s, "ucc_op_");
    for (size_t i = 0; i < kOpCount; ++i) {
        if (iequal(bare, kOpNames[i])) {
            *out = static_cast<ucc_reduction_op_t>(i);
            return UCC_OK;
        }
    }
    return UCC_ERR_NOT_FOUND;
}

const Generic *generic_of(ucc_datatype_t dt) {
    if (!is_generic(dt)) {
        return nullptr;
    }
    const auto addr = static_cast<uintptr_t>(dt & ~static_cast<uint64_t>(UCC_DATATYPE_CLASS_MASK));
    return reinterpret_cast<const Generic *>(addr);
}

bool reduction_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    if (const Generic *g = generic_of(dt)) {
        return (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) != 0 && g->ops.reduce.cb != nullptr;
    }
    return kernel_of(dt, op) != nullptr;
}

ReduceFn reduce_fn(ucc_datatype_t dt, ucc_reduction_op_t op) {
    return kernel_of(dt, op);
}

void reduce(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
            size_t count) {
    const ReduceFn fn = kernel_of(dt, op);
    UCC_ASSERT(fn != nullptr);
    if (fn != nullptr && count != 0) {
        fn(dst, a, b, count);
    }
}

ucc_status_t reduce_generic(const Generic &g, void *dst, const void *a, const void *b,
                            size_t count) {
    if ((g.ops.flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) == 0 || g.ops.reduce.cb == nullptr) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    const size_t elem_size =
        (g.ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0 ? g.ops.contig_size : 0;
    ucc_reduce_cb_params_t params{};
    params.mask = 0;
    // The C struct has non-const source pointers; the callback only reads them.
    params.src1 = const_cast<void *>(a);
    params.src2 = const_cast<void *>(b);
    params.dst = dst;
    params.n_vectors = 1;
    params.count = count;
    params.stride = count * elem_size;
    params.dt = reinterpret_cast<ucc_dt_generic_t *>(const_cast<Generic *>(&g));
    params.cb_ctx = g.ops.reduce.cb_ctx;
    return g.ops.reduce.cb(&params);
}

bool is_packed_generic(ucc_datatype_t dt) {
    const Generic *g = generic_of(dt);
    return g != nullptr && (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) == 0;
}

size_t packed_elem_size(const Generic &g, const void *sample) {
    void *st = g.ops.start_pack(g.context, sample, 1);
    if (st == nullptr) {
        return 0;
    }
    const size_t n = g.ops.packed_size(st);
    g.ops.finish(st);
    return n;
}

ucc_status_t pack(const Generic &g, const void *buf, uint64_t count, uint8_t *out, size_t bytes) {
    if (count == 0) {
        return UCC_OK;
    }
    void *st = g.ops.start_pack(g.context, buf, count);
    if (st == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    ucc_status_t result = UCC_OK;
    if (g.ops.packed_size(st) != bytes) {
        result = UCC_ERR_INVALID_PARAM;
    }
    for (size_t off = 0; result == UCC_OK && off < bytes;) {
        const size_t n = g.ops.pack(st, off, out + off, bytes - off);
        if (n == 0 || n > bytes - off) {
            result = UCC_ERR_INVALID_PARAM;  // no progress, or more than asked for
        }
        off += n;
    }
    g.ops.finish(st);
    return result;
}

ucc_status_t unpack(const Generic &g, void *buf, uint64_t count, const uint8_t *in, size_t bytes) {
    if (count == 0) {
        return UCC_OK;
    }
    void *st = g.ops.start_unpack(g.context, buf, count);
    if (st == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    const ucc_status_t result = g.ops.unpack(st, 0, in, bytes);
    g.ops.finish(st);
    return result;
}

void avg_finalize(ucc_datatype_t dt, void *buf, size_t count, uint64_t n) {
    const TypeInfo *t = info_of(dt);
    UCC_ASSERT(t != nullptr);
    if (t != nullptr && n != 0 && count != 0) {
        t->avg(buf, count, n);
    }
}

}  // namespace ucc::dt
