// The model's element-wise reductions (see reduce.h for the rules). Written for clarity: one plain
// loop per (type family, op), selected once per input vector.
#include "model/reduce.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/datatypes.h"

namespace ucc::model {
namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

static_assert(sizeof(long double) == 16, "UCC_DT_FLOAT128 is modelled as a 16-byte long double");

// ---- storage helpers: user buffers may be unaligned, so every access goes through memcpy.

template <class T>
T load(const uint8_t *p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
}

template <class T>
void store(uint8_t *p, T value) {
    std::memcpy(p, &value, sizeof value);
}

// ---- integer family. W is the unsigned type arithmetic wraps in; S the signed type AVG divides
// in.

template <class T>
struct IntTraits {
    using W = std::conditional_t<sizeof(T) == 16, UInt128, uint64_t>;
    using S = std::conditional_t<sizeof(T) == 16, Int128, int64_t>;
    static constexpr bool kSigned = static_cast<T>(-1) < static_cast<T>(0);
};

// Applies f(acc[i], x[i]) -> acc[i] for the `count` elements of type T.
template <class T, class F>
void each(uint8_t *acc, const uint8_t *x, size_t count, F f) {
    for (size_t i = 0; i < count; ++i) {
        uint8_t *a = acc + i * sizeof(T);
        store<T>(a, f(load<T>(a), load<T>(x + i * sizeof(T))));
    }
}

template <class T>
void combine_int(ucc_reduction_op_t op, uint8_t *acc, const uint8_t *x, size_t count) {
    using W = typename IntTraits<T>::W;
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:  // AVG folds with SUM; the division comes at the end
            return each<T>(acc, x, count, [](T a, T b) { return static_cast<T>(W(a) + W(b)); });
        case UCC_OP_PROD:
            return each<T>(acc, x, count, [](T a, T b) { return static_cast<T>(W(a) * W(b)); });
        case UCC_OP_MAX:
            return each<T>(acc, x, count, [](T a, T b) { return a > b ? a : b; });
        case UCC_OP_MIN:
            return each<T>(acc, x, count, [](T a, T b) { return a < b ? a : b; });
        case UCC_OP_LAND:
            return each<T>(acc, x, count,
                           [](T a, T b) { return static_cast<T>(a != 0 && b != 0); });
        case UCC_OP_LOR:
            return each<T>(acc, x, count,
                           [](T a, T b) { return static_cast<T>(a != 0 || b != 0); });
        case UCC_OP_LXOR:
            return each<T>(acc, x, count,
                           [](T a, T b) { return static_cast<T>((a != 0) != (b != 0)); });
        case UCC_OP_BAND:
            return each<T>(acc, x, count, [](T a, T b) { return static_cast<T>(W(a) & W(b)); });
        case UCC_OP_BOR:
            return each<T>(acc, x, count, [](T a, T b) { return static_cast<T>(W(a) | W(b)); });
        case UCC_OP_BXOR:
            return each<T>(acc, x, count, [](T a, T b) { return static_cast<T>(W(a) ^ W(b)); });
        default:
            throw std::invalid_argument("integer reduction with " + op_name(op));
    }
}

template <class T>
void average_int(uint8_t *acc, size_t count, uint32_t n) {
    using Tr = IntTraits<T>;
    for (size_t i = 0; i < count; ++i) {
        uint8_t *a = acc + i * sizeof(T);
        const T sum = load<T>(a);
        if constexpr (Tr::kSigned) {
            using S = typename Tr::S;
            store<T>(a, static_cast<T>(static_cast<S>(sum) / static_cast<S>(n)));
        } else {
            using W = typename Tr::W;
            store<T>(a, static_cast<T>(static_cast<W>(sum) / static_cast<W>(n)));
        }
    }
}

// ---- floating family. A Real describes one floating component: its byte size, the type ops are
// computed in, and how a value is loaded from and stored to user bytes.

struct Half {
    using Compute = float;
    static constexpr size_t kSize = 2;
    static float get(const uint8_t *p) { return half_to_float(load<uint16_t>(p)); }
    static void put(uint8_t *p, float v) { store<uint16_t>(p, float_to_half(v)); }
};

struct BFloat {
    using Compute = float;
    static constexpr size_t kSize = 2;
    static float get(const uint8_t *p) { return bfloat16_to_float(load<uint16_t>(p)); }
    static void put(uint8_t *p, float v) { store<uint16_t>(p, float_to_bfloat16(v)); }
};

template <class T>
struct Native {
    using Compute = T;
    static constexpr size_t kSize = sizeof(T);
    static T get(const uint8_t *p) { return load<T>(p); }
    static void put(uint8_t *p, T v) { store<T>(p, v); }
};

struct LongDouble {
    using Compute = long double;
    static constexpr size_t kSize = 16;
    static long double get(const uint8_t *p) { return load<long double>(p); }
    static void put(uint8_t *p, long double v) {
        uint8_t bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        const size_t value_bytes = long_double_value_bytes();
        std::memcpy(p, bytes, value_bytes);
        std::memset(p + value_bytes, 0, kSize - value_bytes);
    }
};

// Applies f to `count` real elements of R.
template <class R, class F>
void each_real(uint8_t *acc, const uint8_t *x, size_t count, F f) {
    for (size_t i = 0; i < count; ++i) {
        uint8_t *a = acc + i * R::kSize;
        R::put(a, f(R::get(a), R::get(x + i * R::kSize)));
    }
}

template <class R>
void combine_real(ucc_reduction_op_t op, uint8_t *acc, const uint8_t *x, size_t count) {
    using C = typename R::Compute;
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:
            return each_real<R>(acc, x, count, [](C a, C b) -> C { return a + b; });
        case UCC_OP_PROD:
            return each_real<R>(acc, x, count, [](C a, C b) -> C { return a * b; });
        case UCC_OP_MAX:
            return each_real<R>(acc, x, count, [](C a, C b) -> C { return a > b ? a : b; });
        case UCC_OP_MIN:
            return each_real<R>(acc, x, count, [](C a, C b) -> C { return a < b ? a : b; });
        default:
            throw std::invalid_argument("floating-point reduction with " + op_name(op));
    }
}

template <class R>
void average_real(uint8_t *acc, size_t count, uint32_t n) {
    using C = typename R::Compute;
    for (size_t i = 0; i < count; ++i) {
        uint8_t *a = acc + i * R::kSize;
        R::put(a, R::get(a) / static_cast<C>(n));
    }
}

// Complex elements: the real part at offset 0, the imaginary part at R::kSize.
// Applies f(ar, ai, br, bi, &re, &im) to `count` complex elements of R.
template <class R, class F>
void each_complex(uint8_t *acc, const uint8_t *x, size_t count, F f) {
    using C = typename R::Compute;
    for (size_t i = 0; i < count; ++i) {
        uint8_t *a = acc + i * 2 * R::kSize;
        const uint8_t *b = x + i * 2 * R::kSize;
        C re;
        C im;
        f(R::get(a), R::get(a + R::kSize), R::get(b), R::get(b + R::kSize), &re, &im);
        R::put(a, re);
        R::put(a + R::kSize, im);
    }
}

template <class R>
void combine_complex(ucc_reduction_op_t op, uint8_t *acc, const uint8_t *x, size_t count) {
    using C = typename R::Compute;
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:
            return each_complex<R>(acc, x, count, [](C ar, C ai, C br, C bi, C *re, C *im) {
                *re = ar + br;
                *im = ai + bi;
            });
        case UCC_OP_PROD:
            // (a + bi)(c + di) = (ac - bd) + (ad + bc)i, in this order.
            return each_complex<R>(acc, x, count, [](C ar, C ai, C br, C bi, C *re, C *im) {
                const C ac = ar * br, bd = ai * bi, ad = ar * bi, bc = ai * br;
                *re = ac - bd;
                *im = ad + bc;
            });
        default:
            throw std::invalid_argument("complex reduction with " + op_name(op));
    }
}

template <class R>
void average_complex(uint8_t *acc, size_t count, uint32_t n) {
    average_real<R>(acc, 2 * count, n);
}

// Rewrites every long double of a FLOAT128(_COMPLEX) vector with its padding zeroed.
void normalize_long_doubles(uint8_t *acc, size_t long_doubles) {
    for (size_t i = 0; i < long_doubles; ++i) {
        uint8_t *p = acc + i * LongDouble::kSize;
        LongDouble::put(p, LongDouble::get(p));
    }
}

// acc = acc (op) x for one vector of a predefined datatype.
void combine(uint64_t id, ucc_reduction_op_t op, uint8_t *acc, const uint8_t *x, size_t count) {
    switch (id) {
        case predefined_id(UCC_DT_INT8):
            return combine_int<int8_t>(op, acc, x, count);
        case predefined_id(UCC_DT_INT16):
            return combine_int<int16_t>(op, acc, x, count);
        case predefined_id(UCC_DT_INT32):
            return combine_int<int32_t>(op, acc, x, count);
        case predefined_id(UCC_DT_INT64):
            return combine_int<int64_t>(op, acc, x, count);
        case predefined_id(UCC_DT_INT128):
            return combine_int<Int128>(op, acc, x, count);
        case predefined_id(UCC_DT_UINT8):
            return combine_int<uint8_t>(op, acc, x, count);
        case predefined_id(UCC_DT_UINT16):
            return combine_int<uint16_t>(op, acc, x, count);
        case predefined_id(UCC_DT_UINT32):
            return combine_int<uint32_t>(op, acc, x, count);
        case predefined_id(UCC_DT_UINT64):
            return combine_int<uint64_t>(op, acc, x, count);
        case predefined_id(UCC_DT_UINT128):
            return combine_int<UInt128>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT16):
            return combine_real<Half>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT32):
            return combine_real<Native<float>>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT64):
            return combine_real<Native<double>>(op, acc, x, count);
        case predefined_id(UCC_DT_BFLOAT16):
            return combine_real<BFloat>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT128):
            return combine_real<LongDouble>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT32_COMPLEX):
            return combine_complex<Native<float>>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT64_COMPLEX):
            return combine_complex<Native<double>>(op, acc, x, count);
        case predefined_id(UCC_DT_FLOAT128_COMPLEX):
            return combine_complex<LongDouble>(op, acc, x, count);
        default:
            throw std::invalid_argument("reduction on predefined id " + std::to_string(id));
    }
}

// acc = acc / n for the AVG of one vector of a predefined datatype.
void average(uint64_t id, uint8_t *acc, size_t count, uint32_t n) {
    switch (id) {
        case predefined_id(UCC_DT_INT8):
            return average_int<int8_t>(acc, count, n);
        case predefined_id(UCC_DT_INT16):
            return average_int<int16_t>(acc, count, n);
        case predefined_id(UCC_DT_INT32):
            return average_int<int32_t>(acc, count, n);
        case predefined_id(UCC_DT_INT64):
            return average_int<int64_t>(acc, count, n);
        case predefined_id(UCC_DT_INT128):
            return average_int<Int128>(acc, count, n);
        case predefined_id(UCC_DT_UINT8):
            return average_int<uint8_t>(acc, count, n);
        case predefined_id(UCC_DT_UINT16):
            return average_int<uint16_t>(acc, count, n);
        case predefined_id(UCC_DT_UINT32):
            return average_int<uint32_t>(acc, count, n);
        case predefined_id(UCC_DT_UINT64):
            return average_int<uint64_t>(acc, count, n);
        case predefined_id(UCC_DT_UINT128):
            return average_int<UInt128>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT16):
            return average_real<Half>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT32):
            return average_real<Native<float>>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT64):
            return average_real<Native<double>>(acc, count, n);
        case predefined_id(UCC_DT_BFLOAT16):
            return average_real<BFloat>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT128):
            return average_real<LongDouble>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT32_COMPLEX):
            return average_complex<Native<float>>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT64_COMPLEX):
            return average_complex<Native<double>>(acc, count, n);
        case predefined_id(UCC_DT_FLOAT128_COMPLEX):
            return average_complex<LongDouble>(acc, count, n);
        default:
            throw std::invalid_argument("average on predefined id " + std::to_string(id));
    }
}

std::vector<uint8_t> fold_generic(ucc_datatype_t dt, const std::vector<const void *> &inputs,
                                  size_t count) {
    const ucc_generic_dt_ops_t *ops = generic_ops(dt);
    if (ops == nullptr || (ops->mask & UCC_GENERIC_DT_OPS_FIELD_FLAGS) == 0 ||
        (ops->flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) == 0 || ops->reduce.cb == nullptr) {
        throw std::invalid_argument("generic datatype without a reduce callback");
    }
    const size_t bytes = count * ops->contig_size;
    const auto *first = static_cast<const uint8_t *>(inputs[0]);
    std::vector<uint8_t> acc(first, first + bytes);
    std::vector<uint8_t> out(bytes);
    for (size_t k = 1; k < inputs.size(); ++k) {
        ucc_reduce_cb_params_t params;
        std::memset(&params, 0, sizeof params);
        params.mask = 0;
        params.src1 = acc.data();
        params.src2 = const_cast<void *>(inputs[k]);
        params.dst = out.data();
        params.n_vectors = 1;
        params.count = count;
        params.stride = bytes;
        params.dt = generic_handle(dt);
        params.cb_ctx = ops->reduce.cb_ctx;
        const ucc_status_t status = ops->reduce.cb(&params);
        if (status != UCC_OK) {
            throw std::invalid_argument("generic reduce callback returned " +
                                        std::to_string(static_cast<int>(status)));
        }
        std::swap(acc, out);
    }
    return acc;
}

}  // namespace

size_t long_double_value_bytes() {
    return std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);
}

bool op_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    if (!is_predefined_dt(dt)) {
        return false;
    }
    const uint64_t id = predefined_id(dt);
    // Ids 0..9 are the integers, 10..14 the real floats, 15..17 the complex types.
    const bool integer = id <= predefined_id(UCC_DT_UINT128);
    const bool complex = id >= predefined_id(UCC_DT_FLOAT32_COMPLEX);
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_PROD:
        case UCC_OP_AVG:
            return true;  // every predefined type
        case UCC_OP_MAX:
        case UCC_OP_MIN:
            return !complex;
        case UCC_OP_LAND:
        case UCC_OP_LOR:
        case UCC_OP_LXOR:
        case UCC_OP_BAND:
        case UCC_OP_BOR:
        case UCC_OP_BXOR:
            return integer;
        default:
            return false;  // MAXLOC, MINLOC, anything >= UCC_OP_LAST
    }
}

std::vector<uint8_t> fold(ucc_datatype_t dt, ucc_reduction_op_t op,
                          const std::vector<const void *> &inputs, size_t count) {
    if (inputs.empty()) {
        throw std::invalid_argument("fold of no inputs");
    }
    if (is_generic_dt(dt)) {
        return fold_generic(dt, inputs, count);
    }
    if (!op_supported(dt, op)) {
        throw std::invalid_argument("unsupported reduction " + op_name(op) + " on " + dt_name(dt));
    }
    const uint64_t id = predefined_id(dt);
    const size_t bytes = count * element_size(dt);
    const auto *first = static_cast<const uint8_t *>(inputs[0]);
    std::vector<uint8_t> acc(first, first + bytes);
    for (size_t k = 1; k < inputs.size(); ++k) {
        combine(id, op, acc.data(), static_cast<const uint8_t *>(inputs[k]), count);
    }
    if (op == UCC_OP_AVG) {
        average(id, acc.data(), count, static_cast<uint32_t>(inputs.size()));
    }
    if (dt == UCC_DT_FLOAT128 || dt == UCC_DT_FLOAT128_COMPLEX) {  // every result's padding is 0
        normalize_long_doubles(acc.data(), bytes / LongDouble::kSize);
    }
    return acc;
}

// ---- 16-bit floating conversions.

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24, exact in float.
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    if (exponent == 0x1f) {
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf or NaN
    }
    return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t exponent = (bits >> 23) & 0xffu;
    const uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xff) {
        if (mantissa == 0) {
            return sign | 0x7c00u;  // inf
        }
        // NaN: keep the top payload bits; make sure it stays a NaN.
        const auto payload = static_cast<uint16_t>(mantissa >> 13);
        return sign | 0x7c00u | (payload != 0 ? payload : 0x200u);
    }
    const int half_exponent = static_cast<int>(exponent) - 127 + 15;
    if (half_exponent >= 31) {
        return sign | 0x7c00u;  // overflow: inf
    }
    if (half_exponent >= 1) {
        // Normal: drop 13 mantissa bits, rounding to nearest even. A carry out of the mantissa
        // moves into the exponent, which is exactly right (and reaches inf at the top).
        uint32_t half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
        const uint32_t rest = mantissa & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) {
            ++half;
        }
        return static_cast<uint16_t>(sign | half);
    }
    if (exponent == 0) {
        return sign;  // float zero or subnormal: far below half's smallest subnormal
    }
    // Half subnormal (or zero): the value in units of 2^-24 is full_mantissa >> shift.
    const uint32_t full_mantissa = mantissa | 0x800000u;
    const uint32_t shift = 126 - exponent;  // >= 14
    if (shift >= 25) {
        return sign;  // below half of the smallest subnormal: rounds to zero
    }
    uint32_t half = full_mantissa >> shift;
    const uint32_t rest = full_mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u) != 0)) {
        ++half;
    }
    return static_cast<uint16_t>(sign | half);
}

float bfloat16_to_float(uint16_t b) {
    return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

uint16_t float_to_bfloat16(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0) {
        return static_cast<uint16_t>((bits >> 16) | 0x40u);  // NaN stays NaN (quiet)
    }
    // Round to nearest even on the low 16 bits; overflow carries into inf naturally.
    const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace ucc::model
