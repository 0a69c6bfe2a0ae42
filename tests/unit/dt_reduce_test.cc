// Reduction kernels (ucc::dt::reduce, avg_finalize) for every supported predefined
// (datatype, op), each checked against a straightforward reference computed here:
// integer wrap-around (int128 via 32-bit limbs), logical ops giving 0/1, float16 and
// bfloat16 correctly rounded, complex products, float128 padding, in-place aliasing,
// unaligned buffers and the vectorised float32 path.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "lib/dt/dt.h"
#include "lib/dt/half.h"

namespace {

using namespace ucc::dt;

__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

using Bytes = std::vector<unsigned char>;

const ucc_reduction_op_t kIntOps[] = {UCC_OP_SUM,  UCC_OP_PROD, UCC_OP_MAX,  UCC_OP_MIN,
                                      UCC_OP_LAND, UCC_OP_LOR,  UCC_OP_LXOR, UCC_OP_BAND,
                                      UCC_OP_BOR,  UCC_OP_BXOR, UCC_OP_AVG};
const ucc_reduction_op_t kRealOps[] = {UCC_OP_SUM, UCC_OP_PROD, UCC_OP_MAX, UCC_OP_MIN, UCC_OP_AVG};
const ucc_reduction_op_t kComplexOps[] = {UCC_OP_SUM, UCC_OP_PROD, UCC_OP_AVG};

// Deterministic test data (splitmix64).
struct Rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

template <class T>
std::vector<T> run(ucc_datatype_t dt, ucc_reduction_op_t op, const std::vector<T> &a,
                   const std::vector<T> &b) {
    std::vector<T> d(a.size());
    reduce(dt, op, d.data(), a.data(), b.data(), a.size());
    return d;
}

// ---- integers up to 64 bits: reference in a wider type, then a modular conversion ----

template <class T, class W>
T ref_int(ucc_reduction_op_t op, T a, T b) {
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:
            return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
        case UCC_OP_PROD:
            return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
        case UCC_OP_MAX:
            return std::max(a, b);
        case UCC_OP_MIN:
            return std::min(a, b);
        case UCC_OP_LAND:
            return (a != 0 && b != 0) ? 1 : 0;
        case UCC_OP_LOR:
            return (a != 0 || b != 0) ? 1 : 0;
        case UCC_OP_LXOR:
            return ((a != 0) != (b != 0)) ? 1 : 0;
        case UCC_OP_BAND:
            return static_cast<T>(a & b);
        case UCC_OP_BOR:
            return static_cast<T>(a | b);
        case UCC_OP_BXOR:
            return static_cast<T>(a ^ b);
        default:
            ADD_FAILURE() << "unexpected op";
            return 0;
    }
}

// Every pair of interesting values, then random pairs: 11 * 11 + 45 = 166 elements, so
// both the blocked and the tail loop run.
template <class T, class W>
void check_int_type(ucc_datatype_t dt) {
    using L = std::numeric_limits<T>;
    const T specials[] = {0,
                          1,
                          static_cast<T>(-1),
                          2,
                          3,
                          L::max(),
                          L::min(),
                          static_cast<T>(L::max() - 1),
                          static_cast<T>(L::min() + 1),
                          static_cast<T>(0x5555555555555555ull),
                          static_cast<T>(0xaaaaaaaaaaaaaaaaull)};
    std::vector<T> a, b;
    for (T x : specials) {
        for (T y : specials) {
            a.push_back(x);
            b.push_back(y);
        }
    }
    Rng rng{static_cast<uint64_t>(dt) + 1};
    for (int i = 0; i < 45; ++i) {
        a.push_back(static_cast<T>(rng.next()));
        b.push_back(static_cast<T>(i % 7 == 0 ? 0 : rng.next()));
    }
    for (ucc_reduction_op_t op : kIntOps) {
        SCOPED_TRACE(std::string(name(dt)) + " " + op_name(op));
        ASSERT_TRUE(reduction_supported(dt, op));
        const std::vector<T> got = run(dt, op, a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(got[i], (ref_int<T, W>(op, a[i], b[i])))
                << "a=" << +a[i] << " b=" << +b[i] << " i=" << i;
        }
    }
}

TEST(DtReduce, Int8) {
    check_int_type<int8_t, int64_t>(UCC_DT_INT8);
}
TEST(DtReduce, Int16) {
    check_int_type<int16_t, int64_t>(UCC_DT_INT16);
}
TEST(DtReduce, Int32) {
    check_int_type<int32_t, int64_t>(UCC_DT_INT32);
}
TEST(DtReduce, Int64) {
    check_int_type<int64_t, I128>(UCC_DT_INT64);
}
TEST(DtReduce, Uint8) {
    check_int_type<uint8_t, uint64_t>(UCC_DT_UINT8);
}
TEST(DtReduce, Uint16) {
    check_int_type<uint16_t, uint64_t>(UCC_DT_UINT16);
}
TEST(DtReduce, Uint32) {
    check_int_type<uint32_t, uint64_t>(UCC_DT_UINT32);
}
TEST(DtReduce, Uint64) {
    check_int_type<uint64_t, U128>(UCC_DT_UINT64);
}

TEST(DtReduce, KnownIntWraps) {
    EXPECT_EQ(run<int8_t>(UCC_DT_INT8, UCC_OP_SUM, {127, -128}, {1, -1}),
              (std::vector<int8_t>{-128, 127}));
    EXPECT_EQ(run<uint8_t>(UCC_DT_UINT8, UCC_OP_PROD, {16, 255}, {16, 255}),
              (std::vector<uint8_t>{0, 1}));
    EXPECT_EQ(run<uint16_t>(UCC_DT_UINT16, UCC_OP_PROD, {65535}, {65535}),
              (std::vector<uint16_t>{1}));
    EXPECT_EQ(run<int32_t>(UCC_DT_INT32, UCC_OP_PROD, {65536, INT32_MIN}, {65536, -1}),
              (std::vector<int32_t>{0, INT32_MIN}));
    EXPECT_EQ(run<int64_t>(UCC_DT_INT64, UCC_OP_SUM, {INT64_MAX}, {1}),
              (std::vector<int64_t>{INT64_MIN}));
    EXPECT_EQ(run<int16_t>(UCC_DT_INT16, UCC_OP_LAND, {5, 0, -3, 0}, {-9, 7, 0, 0}),
              (std::vector<int16_t>{1, 0, 0, 0}));
    EXPECT_EQ(run<int16_t>(UCC_DT_INT16, UCC_OP_LOR, {5, 0, -3, 0}, {-9, 7, 0, 0}),
              (std::vector<int16_t>{1, 1, 1, 0}));
    EXPECT_EQ(run<int16_t>(UCC_DT_INT16, UCC_OP_LXOR, {5, 0, -3, 0}, {-9, 7, 0, 0}),
              (std::vector<int16_t>{0, 1, 1, 0}));
    EXPECT_EQ(run<uint32_t>(UCC_DT_UINT32, UCC_OP_MAX, {0x80000000u}, {1}),
              (std::vector<uint32_t>{0x80000000u}));
    EXPECT_EQ(run<int32_t>(UCC_DT_INT32, UCC_OP_MAX, {INT32_MIN}, {1}), (std::vector<int32_t>{1}));
}

// ---- 128-bit integers: reference arithmetic on four 32-bit limbs ----------------------

struct Limbs {
    uint32_t w[4];  // least significant first
};
Limbs to_limbs(U128 v) {
    Limbs l{};
    for (int i = 0; i < 4; ++i) {
        l.w[i] = static_cast<uint32_t>(v >> (32 * i));
    }
    return l;
}
U128 from_limbs(const Limbs &l) {
    U128 v = 0;
    for (int i = 3; i >= 0; --i) {
        v = (v << 32) | l.w[i];
    }
    return v;
}
U128 limb_add(U128 a, U128 b) {
    const Limbs x = to_limbs(a), y = to_limbs(b);
    Limbs r{};
    uint64_t carry = 0;
    for (int i = 0; i < 4; ++i) {
        const uint64_t s = uint64_t{x.w[i]} + y.w[i] + carry;
        r.w[i] = static_cast<uint32_t>(s);
        carry = s >> 32;
    }
    return from_limbs(r);  // the carry out of limb 3 is the 2^128 wrap
}
U128 limb_mul(U128 a, U128 b) {
    const Limbs x = to_limbs(a), y = to_limbs(b);
    uint64_t acc[4] = {};
    for (int i = 0; i < 4; ++i) {
        uint64_t carry = 0;
        for (int j = 0; i + j < 4; ++j) {
            const uint64_t t = uint64_t{x.w[i]} * y.w[j] + acc[i + j] + carry;
            acc[i + j] = t & 0xffffffffu;
            carry = t >> 32;
        }
    }
    Limbs r{};
    for (int i = 0; i < 4; ++i) {
        r.w[i] = static_cast<uint32_t>(acc[i]);
    }
    return from_limbs(r);
}

U128 make128(uint64_t hi, uint64_t lo) {
    return (U128{hi} << 64) | lo;
}

template <class T>
T ref_int128(ucc_reduction_op_t op, T a, T b) {
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:
            return static_cast<T>(limb_add(static_cast<U128>(a), static_cast<U128>(b)));
        case UCC_OP_PROD:
            return static_cast<T>(limb_mul(static_cast<U128>(a), static_cast<U128>(b)));
        default:
            return ref_int<T, T>(op, a, b);  // no arithmetic that can overflow
    }
}

template <class T>
void check_int128_type(ucc_datatype_t dt) {
    const U128 one = 1;
    const T specials[] = {0,
                          1,
                          static_cast<T>(-1),
                          static_cast<T>(make128(0, UINT64_MAX)),  // 2^64 - 1
                          static_cast<T>(one << 64),
                          static_cast<T>(one << 100),  // low 64 bits all zero
                          static_cast<T>((one << 64) + 1),
                          static_cast<T>(one << 127),  // int128 min / 2^127
                          static_cast<T>((one << 127) - 1),
                          static_cast<T>(make128(0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull))};
    std::vector<T> a, b;
    for (T x : specials) {
        for (T y : specials) {
            a.push_back(x);
            b.push_back(y);
        }
    }
    Rng rng{77 + dt};
    for (int i = 0; i < 40; ++i) {
        a.push_back(static_cast<T>(make128(rng.next(), rng.next())));
        b.push_back(static_cast<T>(make128(i % 3 == 0 ? 0 : rng.next(), rng.next())));
    }
    for (ucc_reduction_op_t op : kIntOps) {
        SCOPED_TRACE(std::string(name(dt)) + " " + op_name(op));
        ASSERT_TRUE(reduction_supported(dt, op));
        const std::vector<T> got = run(dt, op, a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            const auto want = static_cast<U128>(ref_int128<T>(op, a[i], b[i]));
            const auto have = static_cast<U128>(got[i]);
            ASSERT_TRUE(have == want)
                << "i=" << i << " got hi " << static_cast<uint64_t>(have >> 64) << " lo "
                << static_cast<uint64_t>(have) << ", want hi " << static_cast<uint64_t>(want >> 64)
                << " lo " << static_cast<uint64_t>(want);
        }
    }
}

TEST(DtReduce, Int128) {
    check_int128_type<I128>(UCC_DT_INT128);
}
TEST(DtReduce, Uint128) {
    check_int128_type<U128>(UCC_DT_UINT128);
}

TEST(DtReduce, KnownInt128Carries) {
    const U128 one = 1;
    // Carry from the low into the high 64 bits.
    auto s = run<U128>(UCC_DT_UINT128, UCC_OP_SUM, {make128(0, UINT64_MAX)}, {1});
    EXPECT_TRUE(s[0] == make128(1, 0));
    // 2^64 * 2^64 wraps to 0; (2^64 + 1)(2^64 - 1) = 2^128 - 1.
    auto p = run<U128>(UCC_DT_UINT128, UCC_OP_PROD, {one << 64, (one << 64) + 1},
                       {one << 64, (one << 64) - 1});
    EXPECT_TRUE(p[0] == 0);
    EXPECT_TRUE(p[1] == ~U128{0});
    // Signed: max + 1 wraps to min, -3 * 2^70 is exact, (2^64+1)(2^64-1) wraps to -1.
    const auto max = static_cast<I128>((one << 127) - 1);
    auto si = run<I128>(UCC_DT_INT128, UCC_OP_SUM, {max}, {1});
    EXPECT_TRUE(static_cast<U128>(si[0]) == (one << 127));
    auto sp = run<I128>(UCC_DT_INT128, UCC_OP_PROD, {-3, static_cast<I128>((one << 64) + 1)},
                        {static_cast<I128>(one << 70), static_cast<I128>((one << 64) - 1)});
    EXPECT_TRUE(sp[0] == -3 * static_cast<I128>(one << 70));
    EXPECT_TRUE(sp[1] == -1);
    // Signed vs unsigned comparison of the top bit.
    auto smax = run<I128>(UCC_DT_INT128, UCC_OP_MAX, {static_cast<I128>(one << 127)}, {1});
    EXPECT_TRUE(smax[0] == 1);
    auto umax = run<U128>(UCC_DT_UINT128, UCC_OP_MAX, {one << 127}, {1});
    EXPECT_TRUE(umax[0] == (one << 127));
    // Non-zero detection looks at all 128 bits.
    auto land = run<U128>(UCC_DT_UINT128, UCC_OP_LAND, {one << 100, one << 64}, {1, 0});
    EXPECT_TRUE(land[0] == 1 && land[1] == 0);
    auto lxor = run<I128>(UCC_DT_INT128, UCC_OP_LXOR, {static_cast<I128>(one << 64)},
                          {static_cast<I128>(one << 65)});
    EXPECT_TRUE(lxor[0] == 0);
}

// ---- float32 / float64 -------------------------------------------------------------------

template <class T>
T ref_real(ucc_reduction_op_t op, T a, T b) {
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_AVG:
            return a + b;
        case UCC_OP_PROD:
            return a * b;
        case UCC_OP_MAX:
            return a > b ? a : b;
        default:
            return a < b ? a : b;
    }
}

template <class T>
bool same_real(T x, T y) {
    return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof(T)) == 0;
}

template <class T>
void check_real_type(ucc_datatype_t dt) {
    using L = std::numeric_limits<T>;
    const T specials[] = {0,
                          -0.0f,
                          1,
                          -1,
                          0.1f,
                          3.5f,
                          L::max(),
                          L::lowest(),
                          L::min(),
                          L::denorm_min(),
                          L::infinity(),
                          -L::infinity(),
                          L::quiet_NaN()};
    std::vector<T> a, b;
    for (T x : specials) {
        for (T y : specials) {
            a.push_back(x);
            b.push_back(y);
        }
    }
    Rng rng{5};
    for (int i = 0; i < 40; ++i) {
        a.push_back(static_cast<T>(static_cast<double>(rng.next() % 100000) / 7.0 - 5000.0));
        b.push_back(static_cast<T>(static_cast<double>(rng.next() % 100000) / 13.0 - 3000.0));
    }
    for (ucc_reduction_op_t op : kRealOps) {
        SCOPED_TRACE(std::string(name(dt)) + " " + op_name(op));
        const std::vector<T> got = run(dt, op, a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            ASSERT_TRUE(same_real(got[i], ref_real(op, a[i], b[i])))
                << a[i] << " " << b[i] << " -> " << got[i];
        }
    }
}

TEST(DtReduce, Float32) {
    check_real_type<float>(UCC_DT_FLOAT32);
}
TEST(DtReduce, Float64) {
    check_real_type<double>(UCC_DT_FLOAT64);
}

TEST(DtReduce, FloatMaxMinRuleWithNan) {
    // The documented rule: max = a > b ? a : b, so a NaN anywhere yields b.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto mx = run<float>(UCC_DT_FLOAT32, UCC_OP_MAX, {nan, 1.0f, 2.0f}, {1.0f, nan, 1.0f});
    EXPECT_EQ(mx[0], 1.0f);
    EXPECT_TRUE(std::isnan(mx[1]));
    EXPECT_EQ(mx[2], 2.0f);
    auto mn = run<double>(UCC_DT_FLOAT64, UCC_OP_MIN, {NAN, 1.0, 2.0}, {1.0, NAN, 1.0});
    EXPECT_EQ(mn[0], 1.0);
    EXPECT_TRUE(std::isnan(mn[1]));
    EXPECT_EQ(mn[2], 1.0);
}

// 64 KiB of float32 through SUM: the vectorised path, also unaligned and in place.
TEST(DtReduce, Float32SumLargeAndUnaligned) {
    const size_t n = 16384;
    Rng rng{11};
    std::vector<float> a(n), b(n), want(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(rng.next() % 1000000) * 0.001f;
        b[i] = static_cast<float>(rng.next() % 1000000) * -0.003f;
        want[i] = a[i] + b[i];
    }
    EXPECT_EQ(run(UCC_DT_FLOAT32, UCC_OP_SUM, a, b), want);

    // Shift every buffer by one byte.
    Bytes ua(n * 4 + 1), ub(n * 4 + 1), ud(n * 4 + 1);
    std::memcpy(ua.data() + 1, a.data(), n * 4);
    std::memcpy(ub.data() + 1, b.data(), n * 4);
    reduce(UCC_DT_FLOAT32, UCC_OP_SUM, ud.data() + 1, ua.data() + 1, ub.data() + 1, n);
    EXPECT_EQ(std::memcmp(ud.data() + 1, want.data(), n * 4), 0);
    reduce(UCC_DT_FLOAT32, UCC_OP_SUM, ua.data() + 1, ua.data() + 1, ub.data() + 1, n);
    EXPECT_EQ(std::memcmp(ua.data() + 1, want.data(), n * 4), 0);
}

TEST(DtReduce, EveryCountUpToThreeBlocks) {
    for (size_t n = 0; n <= 50; ++n) {
        std::vector<int32_t> a(n + 1), b(n + 1), d(n + 1, -7);
        for (size_t i = 0; i < n; ++i) {
            a[i] = static_cast<int32_t>(i);
            b[i] = static_cast<int32_t>(100 * i);
        }
        reduce(UCC_DT_INT32, UCC_OP_SUM, d.data(), a.data(), b.data(), n);
        for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(d[i], static_cast<int32_t>(101 * i)) << n;
        }
        ASSERT_EQ(d[n], -7) << "wrote past count " << n;
    }
}

// ---- float16 / bfloat16: reference in double, one correct rounding ----------------------

double ref_round(double x, int digits, int emin, double max_finite) {
    if (x == 0 || std::isnan(x) || std::isinf(x)) {
        return x;
    }
    int e = 0;
    std::frexp(x, &e);
    const int lead = std::max(e - 1, emin);
    const double ulp = std::ldexp(1.0, lead - (digits - 1));
    const double y = std::nearbyint(x / ulp) * ulp;
    return std::fabs(y) > max_finite ? std::copysign(INFINITY, x) : std::copysign(y, x);
}

struct Narrow {
    ucc_datatype_t dt;
    float (*decode)(uint16_t);
    uint16_t (*encode)(float);
    int digits;
    int emin;
    double max_finite;
    bool is_nan(uint16_t v) const { return std::isnan(decode(v)); }
    // The correctly rounded result of `op` on two narrow values.
    uint16_t ref(ucc_reduction_op_t op, uint16_t a, uint16_t b) const {
        const double x = decode(a), y = decode(b);
        double r = 0;
        switch (op) {
            case UCC_OP_SUM:
            case UCC_OP_AVG:
                r = x + y;  // exact in double for the inputs used here
                break;
            case UCC_OP_PROD:
                r = x * y;
                break;
            case UCC_OP_MAX:
                r = x > y ? x : y;
                break;
            default:
                r = x < y ? x : y;
                break;
        }
        // The rounded value is exactly representable, so encode() does not round.
        return encode(static_cast<float>(ref_round(r, digits, emin, max_finite)));
    }
};

const Narrow kHalf{UCC_DT_FLOAT16, half_to_float, float_to_half, 11, -14, 65504.0};
const Narrow kBfloat{UCC_DT_BFLOAT16,       bfloat16_to_float, float_to_bfloat16, 8, -126,
                     std::ldexp(255.0, 120)};

// `random` draws the random operands from a 64-bit random number.
void check_narrow(const Narrow &t, const std::vector<uint16_t> &specials,
                  uint16_t (*random)(uint64_t)) {
    std::vector<uint16_t> a, b;
    for (uint16_t x : specials) {
        for (uint16_t y : specials) {
            a.push_back(x);
            b.push_back(y);
        }
    }
    Rng rng{t.dt};
    for (int i = 0; i < 2000; ++i) {
        a.push_back(random(rng.next()));
        b.push_back(random(rng.next()));
    }
    for (ucc_reduction_op_t op : kRealOps) {
        SCOPED_TRACE(std::string(name(t.dt)) + " " + op_name(op));
        ASSERT_TRUE(reduction_supported(t.dt, op));
        const std::vector<uint16_t> got = run(t.dt, op, a, b);
        for (size_t i = 0; i < a.size(); ++i) {
            const uint16_t want = t.ref(op, a[i], b[i]);
            if (t.is_nan(want)) {
                ASSERT_TRUE(t.is_nan(got[i])) << std::hex << a[i] << " " << b[i];
            } else {
                ASSERT_EQ(got[i], want) << std::hex << a[i] << " " << b[i];
            }
        }
    }
}

TEST(DtReduce, Float16) {
    // zero, -0, 1, -1, smallest/largest subnormal, smallest normal, largest finite,
    // inf, -inf, NaN, 1 + ulp, 2^-11 (a tie when added to 1), 0.1, 300.
    const std::vector<uint16_t> specials = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001,
                                            0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00,
                                            0x7e00, 0x3c01, 0x1000, 0x2e66, 0x5cb0};
    // Any 16-bit pattern: every sum or product of two halves is exact in double.
    check_narrow(kHalf, specials, [](uint64_t r) { return static_cast<uint16_t>(r); });
}

TEST(DtReduce, Bfloat16) {
    const std::vector<uint16_t> specials = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001,
                                            0x007f, 0x0080, 0x7f7f, 0x7f80, 0xff80,
                                            0x7fc0, 0x3f81, 0x3b80, 0x3dcd, 0x4396};
    // Random sign and mantissa, exponent within 2^-15 .. 2^16 so that sums stay exact in
    // double; the specials cover the extremes (where no rounding tie can be faked).
    check_narrow(kBfloat, specials, [](uint64_t r) {
        return static_cast<uint16_t>((r & 0x807f) | ((112 + (r >> 16) % 32) << 7));
    });
}

TEST(DtReduce, NarrowRoundingCases) {
    // 1 + 2^-11: tie, stays 1; 1+2^-10 + 2^-11: tie, goes to even 1 + 2^-9.
    EXPECT_EQ(run<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {0x3c00, 0x3c01}, {0x1000, 0x1000}),
              (std::vector<uint16_t>{0x3c00, 0x3c02}));
    // 65504 + 8 stays finite, 65504 + 16 is the tie with 2^16 and overflows.
    EXPECT_EQ(run<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {0x7bff, 0x7bff}, {0x4800, 0x4c00}),
              (std::vector<uint16_t>{0x7bff, 0x7c00}));
    // Subnormal results: 2^-24 * 0.5 ties to 0; 2^-24 * 1.5 ties to 2 units.
    EXPECT_EQ(run<uint16_t>(UCC_DT_FLOAT16, UCC_OP_PROD, {0x0001, 0x0001}, {0x3800, 0x3e00}),
              (std::vector<uint16_t>{0x0000, 0x0002}));
    // bfloat16: 1 + 2^-8 ties to 1, (1 + 2^-7) + 2^-8 ties up to 1 + 2^-6.
    EXPECT_EQ(run<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_SUM, {0x3f80, 0x3f81}, {0x3b80, 0x3b80}),
              (std::vector<uint16_t>{0x3f80, 0x3f82}));
    // inf - inf is NaN in both.
    auto h = run<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {0x7c00}, {0xfc00});
    EXPECT_TRUE(std::isnan(half_to_float(h[0])));
    auto bf = run<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_SUM, {0x7f80}, {0xff80});
    EXPECT_TRUE(std::isnan(bfloat16_to_float(bf[0])));
}

// ---- float128 (long double) and the complex types -----------------------------------------

constexpr size_t kLdValueBytes = LDBL_MANT_DIG == 64 ? 10 : sizeof(long double);

// long doubles in 16-byte slots, with garbage (0xab) in every padding byte.
Bytes ld_buffer(const std::vector<long double> &values) {
    Bytes out(values.size() * 16, 0xab);
    for (size_t i = 0; i < values.size(); ++i) {
        std::memcpy(out.data() + 16 * i, &values[i], kLdValueBytes);
    }
    return out;
}
long double ld_at(const Bytes &buf, size_t i) {
    long double v = 0;
    std::memcpy(&v, buf.data() + 16 * i, kLdValueBytes);
    return v;
}
bool padding_zero(const Bytes &buf) {
    for (size_t i = 0; i < buf.size() / 16; ++i) {
        for (size_t k = kLdValueBytes; k < 16; ++k) {
            if (buf[16 * i + k] != 0) {
                return false;
            }
        }
    }
    return true;
}

TEST(DtReduce, Float128) {
    const long double tiny = std::ldexp(1.0L, -60);  // below double precision
    const std::vector<long double> a = {1.5L, 1.0L, -2.0L, 1e300L, 7.0L, 0.0L, 3.0L};
    const std::vector<long double> b = {2.25L, tiny, 3.0L, 1e300L, -7.0L, -0.0L, 1.0L / 3};
    const Bytes ba = ld_buffer(a), bb = ld_buffer(b);
    for (ucc_reduction_op_t op : kRealOps) {
        SCOPED_TRACE(op_name(op));
        Bytes d(ba.size(), 0xcd);
        reduce(UCC_DT_FLOAT128, op, d.data(), ba.data(), bb.data(), a.size());
        EXPECT_TRUE(padding_zero(d));
        for (size_t i = 0; i < a.size(); ++i) {
            const long double want = ref_real(op, a[i], b[i]);
            const long double have = ld_at(d, i);
            EXPECT_EQ(std::memcmp(&have, &want, kLdValueBytes), 0) << i;
        }
    }
    // Values that need more than double precision survive.
    Bytes d(ba.size());
    reduce(UCC_DT_FLOAT128, UCC_OP_SUM, d.data(), ba.data(), bb.data(), a.size());
    EXPECT_EQ(ld_at(d, 1) - 1.0L, tiny);
    EXPECT_EQ(ld_at(d, 3), 2e300L);
}

template <class R>
struct Cx {
    R re, im;
};

template <class R>
Cx<R> ref_complex(ucc_reduction_op_t op, Cx<R> x, Cx<R> y) {
    if (op == UCC_OP_PROD) {
        return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
    }
    return {x.re + y.re, x.im + y.im};
}

template <class R>
void check_complex(ucc_datatype_t dt) {
    const std::vector<Cx<R>> a = {{1, 2}, {0.5, -1.25}, {-3, 0}, {1e3, 1e-3}, {0, 0}, {2, 2}};
    const std::vector<Cx<R>> b = {{3, 4}, {4, 8}, {0, -1}, {-2, 7}, {5, 6}, {-2, 2}};
    for (ucc_reduction_op_t op : kComplexOps) {
        SCOPED_TRACE(std::string(name(dt)) + " " + op_name(op));
        ASSERT_TRUE(reduction_supported(dt, op));
        std::vector<Cx<R>> d(a.size());
        reduce(dt, op, d.data(), a.data(), b.data(), a.size());
        for (size_t i = 0; i < a.size(); ++i) {
            const Cx<R> want = ref_complex(op, a[i], b[i]);
            EXPECT_EQ(d[i].re, want.re) << i;
            EXPECT_EQ(d[i].im, want.im) << i;
        }
    }
    std::vector<Cx<R>> d(1);
    reduce(dt, UCC_OP_PROD, d.data(), a.data(), b.data(), 1);  // (1+2i)(3+4i)
    EXPECT_EQ(d[0].re, -5);
    EXPECT_EQ(d[0].im, 10);
}

TEST(DtReduce, Float32Complex) {
    check_complex<float>(UCC_DT_FLOAT32_COMPLEX);
}
TEST(DtReduce, Float64Complex) {
    check_complex<double>(UCC_DT_FLOAT64_COMPLEX);
}

TEST(DtReduce, Float128Complex) {
    // Interleaved re, im; both halves of each 32-byte element have garbage padding.
    const std::vector<long double> a = {1, 2, 0.5L, -1.25L, 1.0L / 3, 7};
    const std::vector<long double> b = {3, 4, 4, 8, -3, 1.0L / 7};
    const Bytes ba = ld_buffer(a), bb = ld_buffer(b);
    for (ucc_reduction_op_t op : kComplexOps) {
        SCOPED_TRACE(op_name(op));
        Bytes d(ba.size(), 0xee);
        reduce(UCC_DT_FLOAT128_COMPLEX, op, d.data(), ba.data(), bb.data(), a.size() / 2);
        EXPECT_TRUE(padding_zero(d));
        for (size_t i = 0; i < a.size() / 2; ++i) {
            const Cx<long double> want =
                ref_complex<long double>(op, {a[2 * i], a[2 * i + 1]}, {b[2 * i], b[2 * i + 1]});
            const long double re = ld_at(d, 2 * i), im = ld_at(d, 2 * i + 1);
            EXPECT_EQ(std::memcmp(&re, &want.re, kLdValueBytes), 0) << i;
            EXPECT_EQ(std::memcmp(&im, &want.im, kLdValueBytes), 0) << i;
        }
    }
}

// ---- in-place: dst == a, dst == b, and all three the same ---------------------------------

TEST(DtReduce, InPlaceAliasingEverySupportedPair) {
    const size_t n = 53;  // three blocks and a tail
    int pairs = 0;
    for (uint64_t id = 0; id < kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        const size_t bytes = n * size_of(dt);
        Rng rng{id};
        Bytes a(bytes), b(bytes);
        for (size_t i = 0; i < bytes; ++i) {
            a[i] = static_cast<unsigned char>(rng.next());
            b[i] = static_cast<unsigned char>(rng.next());
        }
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            if (!reduction_supported(dt, op)) {
                continue;
            }
            SCOPED_TRACE(std::string(name(dt)) + " " + op_name(op));
            ++pairs;
            Bytes want(bytes);
            reduce(dt, op, want.data(), a.data(), b.data(), n);
            Bytes da = a;
            reduce(dt, op, da.data(), da.data(), b.data(), n);
            EXPECT_EQ(da, want);
            Bytes db = b;
            reduce(dt, op, db.data(), a.data(), db.data(), n);
            EXPECT_EQ(db, want);
            Bytes self_want(bytes);
            reduce(dt, op, self_want.data(), a.data(), a.data(), n);
            Bytes self = a;
            reduce(dt, op, self.data(), self.data(), self.data(), n);
            EXPECT_EQ(self, self_want);
        }
    }
    EXPECT_EQ(pairs, 10 * 11 + 5 * 5 + 3 * 3);
}

// ---- avg_finalize ----------------------------------------------------------------------------

template <class T>
std::vector<T> avg(ucc_datatype_t dt, std::vector<T> v, uint64_t n) {
    avg_finalize(dt, v.data(), v.size(), n);
    return v;
}

TEST(DtAvg, SignedIntegersTruncateTowardZero) {
    EXPECT_EQ(avg<int32_t>(UCC_DT_INT32, {-7, 7, -8, 9, INT32_MIN, 1}, 2),
              (std::vector<int32_t>{-3, 3, -4, 4, INT32_MIN / 2, 0}));
    EXPECT_EQ(avg<int8_t>(UCC_DT_INT8, {-128, 127, -1}, 128), (std::vector<int8_t>{-1, 0, 0}));
    EXPECT_EQ(avg<int8_t>(UCC_DT_INT8, {-128, 127}, 129), (std::vector<int8_t>{0, 0}));
    EXPECT_EQ(avg<int8_t>(UCC_DT_INT8, {-128, 127}, 200), (std::vector<int8_t>{0, 0}));
    EXPECT_EQ(avg<int16_t>(UCC_DT_INT16, {-32768, -5}, 3), (std::vector<int16_t>{-10922, -1}));
    EXPECT_EQ(avg<int64_t>(UCC_DT_INT64, {INT64_MIN, INT64_MAX, -5}, uint64_t{1} << 63),
              (std::vector<int64_t>{-1, 0, 0}));
    EXPECT_EQ(avg<int64_t>(UCC_DT_INT64, {INT64_MIN, INT64_MAX}, UINT64_MAX),
              (std::vector<int64_t>{0, 0}));
    EXPECT_EQ(avg<int64_t>(UCC_DT_INT64, {INT64_MIN, -10}, 3),
              (std::vector<int64_t>{INT64_MIN / 3, -3}));
    EXPECT_EQ(avg<int32_t>(UCC_DT_INT32, {5, -5}, 1), (std::vector<int32_t>{5, -5}));
    EXPECT_EQ(avg<int32_t>(UCC_DT_INT32, {5, -5}, 0), (std::vector<int32_t>{5, -5}));
}

TEST(DtAvg, UnsignedIntegers) {
    EXPECT_EQ(avg<uint8_t>(UCC_DT_UINT8, {255, 7}, 2), (std::vector<uint8_t>{127, 3}));
    EXPECT_EQ(avg<uint8_t>(UCC_DT_UINT8, {255, 7}, 300), (std::vector<uint8_t>{0, 0}));
    EXPECT_EQ(avg<uint16_t>(UCC_DT_UINT16, {65535}, 65535), (std::vector<uint16_t>{1}));
    EXPECT_EQ(avg<uint32_t>(UCC_DT_UINT32, {0xffffffffu}, 0x100000000ull),
              (std::vector<uint32_t>{0}));
    EXPECT_EQ(avg<uint64_t>(UCC_DT_UINT64, {UINT64_MAX, UINT64_MAX - 1}, UINT64_MAX),
              (std::vector<uint64_t>{1, 0}));
}

TEST(DtAvg, Int128) {
    const U128 one = 1;
    auto s =
        avg<I128>(UCC_DT_INT128, {-static_cast<I128>(one << 70), -7, static_cast<I128>(one << 127)},
                  uint64_t{1} << 6);
    EXPECT_TRUE(s[0] == -static_cast<I128>(one << 64));
    EXPECT_TRUE(s[1] == 0);
    EXPECT_TRUE(static_cast<U128>(s[2]) == static_cast<U128>(-static_cast<I128>(one << 121)));
    auto s2 = avg<I128>(UCC_DT_INT128, {-7, static_cast<I128>((one << 100) + 1)}, 2);
    EXPECT_TRUE(s2[0] == -3);
    EXPECT_TRUE(static_cast<U128>(s2[1]) == (one << 99));
    auto s3 = avg<I128>(UCC_DT_INT128, {-static_cast<I128>(one << 100)}, UINT64_MAX);
    EXPECT_TRUE(s3[0] == -static_cast<I128>((one << 100) / UINT64_MAX));
    auto u = avg<U128>(UCC_DT_UINT128, {one << 127, ~U128{0}}, 2);
    EXPECT_TRUE(u[0] == (one << 126));
    EXPECT_TRUE(u[1] == ((one << 127) - 1));
}

TEST(DtAvg, Floats) {
    EXPECT_EQ(avg<float>(UCC_DT_FLOAT32, {3.0f, 1.0f, -1.0f}, 2),
              (std::vector<float>{1.5f, 0.5f, -0.5f}));
    EXPECT_EQ(avg<double>(UCC_DT_FLOAT64, {1.0, 10.0}, 3),
              (std::vector<double>{1.0 / 3, 10.0 / 3}));
    // 1/3 rounded: half 0x3555, bfloat16 0x3eab; 3/2 exact.
    EXPECT_EQ(avg<uint16_t>(UCC_DT_FLOAT16, {0x3c00, 0x4200}, 3),
              (std::vector<uint16_t>{0x3555, 0x3c00}));
    EXPECT_EQ(avg<uint16_t>(UCC_DT_BFLOAT16, {0x3f80, 0x4040}, 3),
              (std::vector<uint16_t>{0x3eab, 0x3f80}));
    // Division in float128 precision, padding zeroed.
    Bytes ld = ld_buffer({1.0L, -9.0L});
    avg_finalize(UCC_DT_FLOAT128, ld.data(), 2, 3);
    EXPECT_TRUE(padding_zero(ld));
    EXPECT_EQ(ld_at(ld, 0), 1.0L / 3);
    EXPECT_EQ(ld_at(ld, 1), -3.0L);
}

TEST(DtAvg, Complex) {
    std::vector<Cx<float>> c32 = {{3, 6}, {-1, 1}};
    avg_finalize(UCC_DT_FLOAT32_COMPLEX, c32.data(), c32.size(), 3);
    EXPECT_EQ(c32[0].re, 1.0f);
    EXPECT_EQ(c32[0].im, 2.0f);
    EXPECT_EQ(c32[1].re, -1.0f / 3);
    EXPECT_EQ(c32[1].im, 1.0f / 3);
    std::vector<Cx<double>> c64 = {{4, -8}};
    avg_finalize(UCC_DT_FLOAT64_COMPLEX, c64.data(), c64.size(), 4);
    EXPECT_EQ(c64[0].re, 1.0);
    EXPECT_EQ(c64[0].im, -2.0);
    Bytes ld = ld_buffer({5.0L, 1.0L});
    avg_finalize(UCC_DT_FLOAT128_COMPLEX, ld.data(), 1, 5);
    EXPECT_TRUE(padding_zero(ld));
    EXPECT_EQ(ld_at(ld, 0), 1.0L);
    EXPECT_EQ(ld_at(ld, 1), 1.0L / 5);
}

// AVG reduces exactly like SUM; the division is avg_finalize's job.
TEST(DtAvg, AvgReducesAsSum) {
    for (uint64_t id = 0; id < kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        ASSERT_TRUE(reduction_supported(dt, UCC_OP_AVG)) << name(dt);
        const size_t bytes = 20 * size_of(dt);
        Bytes a(bytes), b(bytes);
        for (size_t i = 0; i < bytes; ++i) {
            a[i] = static_cast<unsigned char>(i * 7 % 5);  // arbitrary, deterministic
            b[i] = static_cast<unsigned char>(i % 3);
        }
        Bytes s(bytes), v(bytes);
        reduce(dt, UCC_OP_SUM, s.data(), a.data(), b.data(), 20);
        reduce(dt, UCC_OP_AVG, v.data(), a.data(), b.data(), 20);
        EXPECT_EQ(s, v) << name(dt);
    }
}

}  // namespace
