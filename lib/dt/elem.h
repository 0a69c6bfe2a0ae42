// The arithmetic of reductions, one element at a time, for host and GPU alike.
//
// Every predefined datatype is an element codec (how one element is loaded from and
// stored to memory, and the value type arithmetic happens in) and a class (integer,
// real, complex); every op is a struct with `static Value apply(Value, Value)`. The
// host kernels (lib/dt/dt.cc) and the CUDA kernels (transports/cuda/reduce.cu) are
// loops over `reduce_one`, `fold_one` and `avg_one` below and nothing else, so a device result is
// bitwise the host's: the same functions, compiled twice (UCC_DT_HOST_DEVICE marks
// them __host__ __device__ under a CUDA compiler; the CUDA component is built with
// -fmad=false so no product is fused into an addition). float128 (long double, which
// a GPU does not have) is host-only: its codec says kDevice = false.
//
// Semantics (dt.h has the user's view): integers wrap (SUM and PROD in an unsigned
// type at least 32 bits wide); logical ops give 0 or 1; MAX is `a > b ? a : b`, MIN
// `a < b ? a : b`; float16/bfloat16 compute in float32 and round to nearest even on
// every store; complex PROD is (ac - bd, ad + bc) in that order; float128 stores its
// value bytes and zeroes the padding.
#pragma once

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "lib/dt/half.h"
#include "ucc/api/ucc.h"

namespace ucc::dt::elem {

using Byte = unsigned char;

enum class Class { kInteger, kReal, kComplex };

// ---- element codecs: Value, kSize, kClass, kDevice, load, store ------------------------

// Loads and stores go through memcpy, so buffers need no alignment; compilers turn
// them into plain (unaligned) moves.
template <class T>
struct Raw {
    using Value = T;
    static constexpr size_t kSize = sizeof(T);
    static constexpr bool kDevice = true;
    UCC_DT_HOST_DEVICE static T load(const Byte *p) {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return v;
    }
    UCC_DT_HOST_DEVICE static void store(Byte *p, T v) { std::memcpy(p, &v, sizeof(T)); }
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
    static constexpr bool kDevice = true;
    using Value = float;
    static constexpr size_t kSize = 2;
    UCC_DT_HOST_DEVICE static float load(const Byte *p) {
        return half_to_float(Raw<uint16_t>::load(p));
    }
    UCC_DT_HOST_DEVICE static void store(Byte *p, float v) {
        Raw<uint16_t>::store(p, float_to_half(v));
    }
};
struct Bfloat16 {
    static constexpr Class kClass = Class::kReal;
    static constexpr bool kDevice = true;
    using Value = float;
    static constexpr size_t kSize = 2;
    UCC_DT_HOST_DEVICE static float load(const Byte *p) {
        return bfloat16_to_float(Raw<uint16_t>::load(p));
    }
    UCC_DT_HOST_DEVICE static void store(Byte *p, float v) {
        Raw<uint16_t>::store(p, float_to_bfloat16(v));
    }
};

// float128 is long double in a 16-byte slot, on the host only. On x86 only the first
// 10 bytes hold the value (64-bit mantissa); the store writes those and zeroes the
// rest, so a result never depends on the garbage an input or the FPU left in the
// padding.
static_assert(sizeof(long double) == 16, "UCC_DT_FLOAT128 expects a 16-byte long double");
struct Float128 {
    static constexpr Class kClass = Class::kReal;
    static constexpr bool kDevice = false;
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
    static constexpr bool kDevice = Part::kDevice;
    using Real = typename Part::Value;
    using Value = Cplx<Real>;
    static constexpr size_t kSize = 2 * Part::kSize;
    UCC_DT_HOST_DEVICE static Value load(const Byte *p) {
        return {Part::load(p), Part::load(p + Part::kSize)};
    }
    UCC_DT_HOST_DEVICE static void store(Byte *p, Value v) {
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
    UCC_DT_HOST_DEVICE static T apply(T a, T b) {
        return static_cast<T>(static_cast<A>(a) + static_cast<A>(b));
    }
};
template <class Tr>
struct IntProd {
    using T = typename Tr::Value;
    using A = typename Tr::Arith;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) {
        return static_cast<T>(static_cast<A>(a) * static_cast<A>(b));
    }
};
template <class Tr>
struct Land {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
template <class Tr>
struct Lor {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
template <class Tr>
struct Lxor {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
template <class Tr>
struct Band {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>(a & b); }
};
template <class Tr>
struct Bor {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>(a | b); }
};
template <class Tr>
struct Bxor {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};

// MAX/MIN for integers and reals alike. For reals the plain comparison decides: a NaN
// in either operand makes the comparison false, so the result is b.
template <class Tr>
struct Max {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return a > b ? a : b; }
};
template <class Tr>
struct Min {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return a < b ? a : b; }
};

template <class Tr>
struct RealSum {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return a + b; }
};
template <class Tr>
struct RealProd {
    using T = typename Tr::Value;
    UCC_DT_HOST_DEVICE static T apply(T a, T b) { return a * b; }
};

template <class Tr>
struct ComplexSum {
    using V = typename Tr::Value;
    UCC_DT_HOST_DEVICE static V apply(V a, V b) { return {a.re + b.re, a.im + b.im}; }
};
// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, evaluated exactly in this order so every
// platform rounds the same way (std::complex may add NaN/inf recovery or use FMA).
template <class Tr>
struct ComplexProd {
    using V = typename Tr::Value;
    UCC_DT_HOST_DEVICE static V apply(V x, V y) {
        const auto ac = x.re * y.re;
        const auto bd = x.im * y.im;
        const auto ad = x.re * y.im;
        const auto bc = x.im * y.re;
        return {ac - bd, ad + bc};
    }
};

// ---- one element ---------------------------------------------------------------------------

// dst[i] = a[i] op b[i].
template <class Tr, class Op>
UCC_DT_HOST_DEVICE inline void reduce_one(Byte *d, const Byte *x, const Byte *y, size_t i) {
    constexpr size_t kSize = Tr::kSize;
    Tr::store(d + i * kSize, Op::apply(Tr::load(x + i * kSize), Tr::load(y + i * kSize)));
}

// dst[i] = ((x[0][i] op x[1][i]) op x[2][i]) ... op x[n-1][i] for n >= 2, stored (so
// rounded) after every step as n - 1 reduce_one calls would store it: bitwise their
// result. Every input is read before dst is written, so dst may be any of them.
template <class Tr, class Op>
UCC_DT_HOST_DEVICE inline void fold_one(Byte *d, const Byte *const *x, uint32_t n, size_t i) {
    constexpr size_t kSize = Tr::kSize;
    Byte acc[kSize];
    Tr::store(acc, Op::apply(Tr::load(x[0] + i * kSize), Tr::load(x[1] + i * kSize)));
    for (uint32_t k = 2; k < n; ++k) {
        Tr::store(acc, Op::apply(Tr::load(acc), Tr::load(x[k] + i * kSize)));
    }
    std::memcpy(d + i * kSize, acc, kSize);
}

// v / n for an integer type, truncating toward zero, for every n >= 1. When n fits
// the type the division happens there (promoted); otherwise it is done exactly in
// 128 bits (|v| <= 2^127 and n < 2^64, so nothing overflows).
template <class Tr>
UCC_DT_HOST_DEVICE inline typename Tr::Value int_div(typename Tr::Value v, uint64_t n) {
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

// buf[i] = buf[i] / n, AVG's tail: truncating integer division, division in the type
// for reals (float16/bfloat16 via float32, rounded), both parts of a complex.
template <class Tr>
UCC_DT_HOST_DEVICE inline void avg_one(Byte *p, size_t i, uint64_t n) {
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

// ---- the tables: which codec each datatype is, which op struct each op is ---------------

// Calls f.template operator()<Op>(op) for every op the codec's class supports, AVG
// included (it reduces as SUM; avg_one finishes it).
template <class Tr, class F>
constexpr void for_each_op(F &&f) {
    if constexpr (Tr::kClass == Class::kInteger) {
        f.template operator()<IntSum<Tr>>(UCC_OP_SUM);
        f.template operator()<IntProd<Tr>>(UCC_OP_PROD);
        f.template operator()<Max<Tr>>(UCC_OP_MAX);
        f.template operator()<Min<Tr>>(UCC_OP_MIN);
        f.template operator()<Land<Tr>>(UCC_OP_LAND);
        f.template operator()<Lor<Tr>>(UCC_OP_LOR);
        f.template operator()<Lxor<Tr>>(UCC_OP_LXOR);
        f.template operator()<Band<Tr>>(UCC_OP_BAND);
        f.template operator()<Bor<Tr>>(UCC_OP_BOR);
        f.template operator()<Bxor<Tr>>(UCC_OP_BXOR);
        f.template operator()<IntSum<Tr>>(UCC_OP_AVG);
    } else if constexpr (Tr::kClass == Class::kReal) {
        f.template operator()<RealSum<Tr>>(UCC_OP_SUM);
        f.template operator()<RealProd<Tr>>(UCC_OP_PROD);
        f.template operator()<Max<Tr>>(UCC_OP_MAX);
        f.template operator()<Min<Tr>>(UCC_OP_MIN);
        f.template operator()<RealSum<Tr>>(UCC_OP_AVG);
    } else {
        f.template operator()<ComplexSum<Tr>>(UCC_OP_SUM);
        f.template operator()<ComplexProd<Tr>>(UCC_OP_PROD);
        f.template operator()<ComplexSum<Tr>>(UCC_OP_AVG);
    }
}

// Calls f.template operator()<Tr>(id, name) for every predefined datatype, in the
// order of the API.md §3.4 table (id = the predefined id).
template <class F>
constexpr void for_each_type(F &&f) {
    f.template operator()<Int8>(0, "int8");
    f.template operator()<Int16>(1, "int16");
    f.template operator()<Int32>(2, "int32");
    f.template operator()<Int64>(3, "int64");
    f.template operator()<IntX128>(4, "int128");
    f.template operator()<Uint8>(5, "uint8");
    f.template operator()<Uint16>(6, "uint16");
    f.template operator()<Uint32>(7, "uint32");
    f.template operator()<Uint64>(8, "uint64");
    f.template operator()<UintX128>(9, "uint128");
    f.template operator()<Float16>(10, "float16");
    f.template operator()<Float32>(11, "float32");
    f.template operator()<Float64>(12, "float64");
    f.template operator()<Bfloat16>(13, "bfloat16");
    f.template operator()<Float128>(14, "float128");
    f.template operator()<Float32Complex>(15, "float32_complex");
    f.template operator()<Float64Complex>(16, "float64_complex");
    f.template operator()<Float128Complex>(17, "float128_complex");
}

}  // namespace ucc::dt::elem
