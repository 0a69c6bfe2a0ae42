// IEEE binary16 (float16) and bfloat16 <-> float32 conversions, round-to-nearest-even.
//
// Plain constexpr C++ (only std::bit_cast), so the same functions can be compiled for a
// GPU later: UCC_DT_HOST_DEVICE marks them __host__ __device__ under a CUDA compiler.
// Every conversion is exact in the widening direction; the narrowing direction rounds
// to nearest, ties to even, overflows to infinity, produces subnormals and keeps NaN a
// NaN (the quiet bit is set, so a payload that would round away cannot turn it into
// infinity).
#pragma once

#include <bit>
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define UCC_DT_HOST_DEVICE __host__ __device__
#else
#define UCC_DT_HOST_DEVICE
#endif

namespace ucc::dt {

// float16 bit pattern -> float32 (exact).
UCC_DT_HOST_DEVICE constexpr float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0x1fu) {
        // Infinity or NaN: keep the payload in the top mantissa bits.
        return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    }
    if (exp != 0) {
        // Normal: rebias the exponent from 15 to 127.
        return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
    }
    if (mant == 0) {
        return std::bit_cast<float>(sign);  // +0 or -0
    }
    // Subnormal: mant * 2^-24; both factors and the product are exact in float32.
    const float magnitude = static_cast<float>(mant) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
}

// float32 -> float16 bit pattern, round to nearest, ties to even.
UCC_DT_HOST_DEVICE constexpr uint16_t float_to_half(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) {
        // NaN: keep the top payload bits and force the quiet bit.
        return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));
    }
    if (abs >= 0x477ff000u) {
        // |f| >= 65520, the midpoint between the largest half (65504) and 2^16: the tie
        // goes to the even neighbour, which is 2^16, so this and everything above
        // (infinity included) becomes infinity.
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (abs >= 0x38800000u) {
        // Normal half (|f| >= 2^-14): rebias the exponent, drop 13 mantissa bits with
        // rounding; a carry out of the mantissa correctly bumps the exponent.
        uint32_t h = (abs - 0x38000000u) >> 13;
        const uint32_t rest = abs & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) {
            ++h;
        }
        return static_cast<uint16_t>(sign | h);
    }
    if (abs <= 0x33000000u) {
        // |f| <= 2^-25, at most half the smallest subnormal: rounds to zero (the tie
        // at exactly 2^-25 goes to the even value, zero).
        return sign;
    }
    // Subnormal half: the result is |f| / 2^-24 rounded to an integer. With the
    // implicit bit, |f| = m * 2^(e - 150), so the quotient is m >> (126 - e).
    const uint32_t e = abs >> 23;  // 102..112 here
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;  // 14..24
    uint32_t h = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (h & 1u) != 0)) {
        ++h;  // may reach 0x400, the smallest normal, which is the right encoding
    }
    return static_cast<uint16_t>(sign | h);
}

// bfloat16 bit pattern -> float32 (exact: bfloat16 is the top half of a float32).
UCC_DT_HOST_DEVICE constexpr float bfloat16_to_float(uint16_t b) {
    return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// float32 -> bfloat16 bit pattern, round to nearest, ties to even.
UCC_DT_HOST_DEVICE constexpr uint16_t float_to_bfloat16(float f) {
    const uint32_t bits = std::bit_cast<uint32_t>(f);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        // NaN: truncate and force the quiet bit so the result stays a NaN.
        return static_cast<uint16_t>((bits >> 16) | 0x0040u);
    }
    // Adding 0x7fff plus the lowest kept bit rounds the dropped 16 bits to nearest
    // even; a carry propagates into the exponent and, past the largest finite value,
    // into infinity, which is the correctly rounded overflow.
    const uint32_t bias = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<uint16_t>((bits + bias) >> 16);
}

}  // namespace ucc::dt
