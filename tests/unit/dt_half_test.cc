// float16 / bfloat16 <-> float32 conversions (lib/dt/half.h): known encodings, rounding
// ties to even, subnormals, overflow, inf and NaN, every 16-bit pattern round-tripped,
// and float32 sweeps checked against an independent reference rounding written with
// frexp/nearbyint (and against the compiler's _Float16 where it has one).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

#include "lib/dt/half.h"

namespace {

using namespace ucc::dt;

// Usable in constant expressions.
static_assert(float_to_half(1.0f) == 0x3c00);
static_assert(half_to_float(0xc000) == -2.0f);
static_assert(float_to_bfloat16(1.0f) == 0x3f80);
static_assert(bfloat16_to_float(0x4040) == 3.0f);

float from_bits(uint32_t b) {
    return std::bit_cast<float>(b);
}
uint32_t bits_of(float f) {
    return std::bit_cast<uint32_t>(f);
}

// x rounded to a binary format with `digits` significand bits (implicit bit included),
// smallest normal 2^emin and largest finite value max_finite: round to nearest, ties
// to even, overflow to infinity. x must be finite; the result is exact in double.
double ref_round(double x, int digits, int emin, double max_finite) {
    if (x == 0) {
        return x;
    }
    int e = 0;
    std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
    const int lead = std::max(e - 1, emin);
    const double ulp = std::ldexp(1.0, lead - (digits - 1));
    const double y = std::nearbyint(x / ulp) * ulp;  // default mode: ties to even
    if (std::fabs(y) > max_finite) {
        return std::copysign(INFINITY, x);
    }
    return std::copysign(y, x);  // keeps -0 for tiny negatives
}

double ref_half(double x) {
    return ref_round(x, 11, -14, 65504.0);
}
double ref_bfloat16(double x) {
    return ref_round(x, 8, -126, std::ldexp(255.0, 120));
}

// Independent decoders: sign * significand * 2^exponent straight from the fields.
double ref_half_value(uint16_t h) {
    const int e = (h >> 10) & 0x1f;
    const int m = h & 0x3ff;
    const double s = (h & 0x8000) != 0 ? -1.0 : 1.0;
    if (e == 0x1f) {
        return m == 0 ? s * INFINITY : NAN;
    }
    return e == 0 ? s * std::ldexp(m, -24) : s * std::ldexp(1024 + m, e - 25);
}
double ref_bfloat16_value(uint16_t b) {
    const int e = (b >> 7) & 0xff;
    const int m = b & 0x7f;
    const double s = (b & 0x8000) != 0 ? -1.0 : 1.0;
    if (e == 0xff) {
        return m == 0 ? s * INFINITY : NAN;
    }
    return e == 0 ? s * std::ldexp(m, -133) : s * std::ldexp(128 + m, e - 134);
}

bool half_is_nan(uint16_t h) {
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
}
bool bfloat16_is_nan(uint16_t b) {
    return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0;
}

TEST(DtHalf, KnownEncodings) {
    EXPECT_EQ(float_to_half(0.0f), 0x0000);
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(0.5f), 0x3800);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);                  // largest finite
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);     // smallest normal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
    EXPECT_EQ(float_to_half(std::ldexp(1023.0f, -24)), 0x03ff);  // largest subnormal
    EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
    EXPECT_EQ(float_to_half(-INFINITY), 0xfc00);
    EXPECT_EQ(half_to_float(0x3c00), 1.0f);
    EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_to_float(0x83ff), -std::ldexp(1023.0f, -24));
    EXPECT_EQ(bits_of(half_to_float(0x8000)), 0x80000000u);
    EXPECT_EQ(half_to_float(0x7c00), INFINITY);
    EXPECT_EQ(half_to_float(0xfc00), -INFINITY);
}

TEST(DtHalf, HalfRoundingTiesToEven) {
    // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10 (odd): down.
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    // 1 + 3 * 2^-11 is halfway between 0x3c01 (odd) and 0x3c02 (even): up.
    EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
    // Just above / below a tie goes to the nearer neighbour.
    EXPECT_EQ(float_to_half(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
    EXPECT_EQ(float_to_half(std::nextafter(1.0f + 3 * std::ldexp(1.0f, -11), 0.0f)), 0x3c01);
    // Overflow: 65519.99 rounds to the largest finite value, 65520 (a tie with 2^16,
    // whose mantissa would be even) to infinity.
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
    EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7bff);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
    EXPECT_EQ(float_to_half(-65520.0f), 0xfc00);
    EXPECT_EQ(float_to_half(1e10f), 0x7c00);
    // Subnormal ties: 2^-25 (half the smallest subnormal) goes to zero, 3 * 2^-25 to
    // 2 units, anything above 2^-25 to 1 unit.
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);
    EXPECT_EQ(float_to_half(-std::ldexp(1.0f, -25)), 0x8000);
    EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
    EXPECT_EQ(float_to_half(3 * std::ldexp(1.0f, -25)), 0x0002);
    EXPECT_EQ(float_to_half(5 * std::ldexp(1.0f, -25)), 0x0002);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -40)), 0x0000);
    EXPECT_EQ(float_to_half(from_bits(1)), 0x0000);  // smallest float subnormal
    // The largest subnormal plus half a unit ties to the smallest normal (even).
    EXPECT_EQ(float_to_half(std::ldexp(2047.0f, -25)), 0x0400);
    // Rounding carries into the exponent.
    EXPECT_EQ(float_to_half(std::nextafter(2.0f, 0.0f)), 0x4000);
}

TEST(DtHalf, BfloatRoundingTiesToEven) {
    EXPECT_EQ(float_to_bfloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie, down
    EXPECT_EQ(float_to_bfloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie, up
    EXPECT_EQ(float_to_bfloat16(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)), 0x3f81);
    EXPECT_EQ(float_to_bfloat16(-0.0f), 0x8000);
    EXPECT_EQ(float_to_bfloat16(3.0e38f), 0x7f62);
    EXPECT_EQ(float_to_bfloat16(from_bits(0x7f7fffff)), 0x7f80);  // max float -> inf
    EXPECT_EQ(float_to_bfloat16(from_bits(0x7f7f7fff)), 0x7f7f);  // stays finite
    EXPECT_EQ(float_to_bfloat16(from_bits(0x7f7f8000)), 0x7f80);  // tie, odd -> up = inf
    EXPECT_EQ(float_to_bfloat16(-INFINITY), 0xff80);
    // Subnormals (float subnormals, 7 fraction bits kept).
    EXPECT_EQ(float_to_bfloat16(from_bits(0x00008000)), 0x0000);  // tie to even 0
    EXPECT_EQ(float_to_bfloat16(from_bits(0x00018000)), 0x0002);  // tie to even 2
    EXPECT_EQ(float_to_bfloat16(from_bits(0x00008001)), 0x0001);
    EXPECT_EQ(bits_of(bfloat16_to_float(0x0001)), 0x00010000u);
}

TEST(DtHalf, NanStaysNan) {
    // Payload only in bits that the narrowing drops: must not become infinity.
    for (uint32_t payload : {0x1u, 0x1fffu, 0xffffu, 0x400000u, 0x7fffffu}) {
        for (uint32_t sign : {0u, 0x80000000u}) {
            const float nan = from_bits(sign | 0x7f800000u | payload);
            ASSERT_TRUE(std::isnan(nan));
            const uint16_t h = float_to_half(nan);
            EXPECT_TRUE(half_is_nan(h)) << std::hex << h;
            EXPECT_EQ(h & 0x8000, sign >> 16);
            const uint16_t b = float_to_bfloat16(nan);
            EXPECT_TRUE(bfloat16_is_nan(b)) << std::hex << b;
            EXPECT_EQ(b & 0x8000, sign >> 16);
        }
    }
}

TEST(DtHalf, AllHalfPatterns) {
    for (uint32_t i = 0; i < 0x10000; ++i) {
        const auto h = static_cast<uint16_t>(i);
        const float f = half_to_float(h);
        if (half_is_nan(h)) {
            EXPECT_TRUE(std::isnan(f)) << std::hex << i;
            EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << i;
            const uint16_t back = float_to_half(f);
            EXPECT_TRUE(half_is_nan(back)) << std::hex << i;
            // Quiet NaNs keep their exact pattern; signalling ones come back quiet.
            EXPECT_EQ(back, h | 0x0200) << std::hex << i;
            continue;
        }
        EXPECT_EQ(static_cast<double>(f), ref_half_value(h)) << std::hex << i;
        EXPECT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << i;
        EXPECT_EQ(float_to_half(f), h) << std::hex << i;
    }
}

TEST(DtHalf, AllBfloat16Patterns) {
    for (uint32_t i = 0; i < 0x10000; ++i) {
        const auto b = static_cast<uint16_t>(i);
        const float f = bfloat16_to_float(b);
        EXPECT_EQ(bits_of(f), i << 16) << std::hex << i;
        if (bfloat16_is_nan(b)) {
            EXPECT_TRUE(std::isnan(f)) << std::hex << i;
            EXPECT_EQ(float_to_bfloat16(f), b | 0x0040) << std::hex << i;
            continue;
        }
        EXPECT_EQ(static_cast<double>(f), ref_bfloat16_value(b)) << std::hex << i;
        EXPECT_EQ(float_to_bfloat16(f), b) << std::hex << i;
    }
}

// Every tie point between adjacent finite halves (and its float neighbours) goes
// where the reference rounding says.
TEST(DtHalf, HalfMidpointsMatchReference) {
    ASSERT_EQ(std::fegetround(), FE_TONEAREST);
    for (uint32_t i = 0; i < 0x7bff; ++i) {
        for (uint32_t sign : {0u, 0x8000u}) {
            const double lo = ref_half_value(static_cast<uint16_t>(i | sign));
            const double hi = ref_half_value(static_cast<uint16_t>((i + 1) | sign));
            const uint32_t mid = bits_of(static_cast<float>((lo + hi) / 2));  // exact
            for (uint32_t bits : {mid - 1, mid, mid + 1}) {
                const float f = from_bits(bits);
                const float got = half_to_float(float_to_half(f));
                const auto want = static_cast<float>(ref_half(f));
                EXPECT_EQ(bits_of(got), bits_of(want)) << std::hexfloat << f;
            }
        }
    }
}

TEST(DtHalf, BfloatMidpointsMatchReference) {
    for (uint32_t i = 0; i < 0x7f80; ++i) {
        for (uint32_t sign : {0u, 0x80000000u}) {
            const uint32_t mid = sign | (i << 16) | 0x8000u;
            for (uint32_t bits : {mid - 1, mid, mid + 1}) {
                const float f = from_bits(bits);
                const float got = bfloat16_to_float(float_to_bfloat16(f));
                const auto want = static_cast<float>(ref_bfloat16(f));
                EXPECT_EQ(bits_of(got), bits_of(want)) << std::hex << bits;
            }
        }
    }
}

// A sweep over the whole float32 range (every 997th pattern) against the reference.
TEST(DtHalf, Float32SweepMatchesReference) {
    int checked = 0;
    for (uint64_t b = 0; b <= 0xffffffffu; b += 997) {
        const float f = from_bits(static_cast<uint32_t>(b));
        if (std::isnan(f)) {
            ASSERT_TRUE(half_is_nan(float_to_half(f)));
            ASSERT_TRUE(bfloat16_is_nan(float_to_bfloat16(f)));
            continue;
        }
        const float h = half_to_float(float_to_half(f));
        const auto h_want = static_cast<float>(std::isinf(f) ? f : ref_half(f));
        ASSERT_EQ(bits_of(h), bits_of(h_want)) << std::hexfloat << f;
        const float bf = bfloat16_to_float(float_to_bfloat16(f));
        const auto bf_want = static_cast<float>(std::isinf(f) ? f : ref_bfloat16(f));
        ASSERT_EQ(bits_of(bf), bits_of(bf_want)) << std::hexfloat << f;
        ++checked;
    }
    EXPECT_GT(checked, 4000000);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__FLT16_MANT_DIG__)
// Cross-check with the compiler's own float -> _Float16 conversion where it exists.
TEST(DtHalf, MatchesCompilerFloat16) {
    for (uint64_t b = 0; b <= 0xffffffffu; b += 4093) {
        const float f = from_bits(static_cast<uint32_t>(b));
        const auto want = std::bit_cast<uint16_t>(static_cast<_Float16>(f));
        const uint16_t got = float_to_half(f);
        if (half_is_nan(want)) {
            ASSERT_TRUE(half_is_nan(got)) << std::hexfloat << f;
        } else {
            ASSERT_EQ(got, want) << std::hexfloat << f;
        }
    }
    for (uint32_t i = 0; i < 0x10000; ++i) {
        const auto h = static_cast<uint16_t>(i);
        if (!half_is_nan(h)) {
            ASSERT_EQ(half_to_float(h), static_cast<float>(std::bit_cast<_Float16>(h))) << i;
        }
    }
}
#endif

}  // namespace
