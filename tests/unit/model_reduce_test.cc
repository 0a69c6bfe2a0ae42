// Unit tests of the model's reductions (model/reduce.h): every (datatype, op) of the supported
// matrix on small vectors with hand-computed results, integer wrap-around, 128-bit integers beyond
// 64 bits, float16/bfloat16 rounding, complex products, FLOAT128 padding and generic datatypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "model/datatypes.h"
#include "model/reduce.h"

namespace ucc::model {
namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// Folds per-rank vectors of T and returns the result as T (a complex element is two T's).
template <class T>
std::vector<T> fold_as(ucc_datatype_t dt, ucc_reduction_op_t op,
                       const std::vector<std::vector<T>> &in) {
    std::vector<const void *> inputs;
    for (const auto &v : in) {
        inputs.push_back(v.data());
    }
    const size_t count = in[0].size() * sizeof(T) / element_size(dt);
    const std::vector<uint8_t> bytes = fold(dt, op, inputs, count);
    EXPECT_EQ(bytes.size(), in[0].size() * sizeof(T));
    std::vector<T> out(in[0].size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
}

// ---- the integer part of the matrix: three ranks, four elements, results that fit every width.
//   x0 = {6, 0, 5, 2}, x1 = {3, 7, 0, 5}, x2 = {2, 1, 9, 3}

template <class T, ucc_datatype_t kDt>
struct IntCase {
    using Type = T;
    static constexpr ucc_datatype_t kDatatype = kDt;
};

template <class C>
class ModelReduceIntMatrix : public ::testing::Test {};

using IntCases =
    ::testing::Types<IntCase<int8_t, UCC_DT_INT8>, IntCase<int16_t, UCC_DT_INT16>,
                     IntCase<int32_t, UCC_DT_INT32>, IntCase<int64_t, UCC_DT_INT64>,
                     IntCase<Int128, UCC_DT_INT128>, IntCase<uint8_t, UCC_DT_UINT8>,
                     IntCase<uint16_t, UCC_DT_UINT16>, IntCase<uint32_t, UCC_DT_UINT32>,
                     IntCase<uint64_t, UCC_DT_UINT64>, IntCase<UInt128, UCC_DT_UINT128>>;
TYPED_TEST_SUITE(ModelReduceIntMatrix, IntCases);

TYPED_TEST(ModelReduceIntMatrix, EveryOpOnSmallVectors) {
    using T = typename TypeParam::Type;
    constexpr ucc_datatype_t dt = TypeParam::kDatatype;
    const std::vector<std::vector<T>> in = {{6, 0, 5, 2}, {3, 7, 0, 5}, {2, 1, 9, 3}};
    struct Row {
        ucc_reduction_op_t op;
        std::vector<T> want;
    };
    const std::vector<Row> rows =
        {
            {UCC_OP_SUM, {11, 8, 14, 10}}, {UCC_OP_PROD, {36, 0, 0, 30}},
            {UCC_OP_MAX, {6, 7, 9, 5}},    {UCC_OP_MIN, {2, 0, 0, 2}},
            {UCC_OP_LAND, {1, 0, 0, 1}},   {UCC_OP_LOR, {1, 1, 1, 1}},
            {UCC_OP_LXOR, {1, 0, 0, 1}},   {UCC_OP_BAND, {2, 0, 0, 0}},
            {UCC_OP_BOR, {7, 7, 13, 7}},   {UCC_OP_BXOR, {7, 6, 12, 4}},
            {UCC_OP_AVG, {3, 2, 4, 3}},  // 11/3, 8/3, 14/3, 10/3 truncated
        };
    for (const Row &row : rows) {
        EXPECT_TRUE(op_supported(dt, row.op)) << op_name(row.op);
        EXPECT_TRUE(fold_as<T>(dt, row.op, in) == row.want)
            << dt_name(dt) << " " << op_name(row.op);
    }
    EXPECT_FALSE(op_supported(dt, UCC_OP_MAXLOC));
    EXPECT_FALSE(op_supported(dt, UCC_OP_MINLOC));
    EXPECT_THROW(fold_as<T>(dt, UCC_OP_MAXLOC, in), std::invalid_argument);
}

TYPED_TEST(ModelReduceIntMatrix, SingleRankIsTheInputUnchanged) {
    using T = typename TypeParam::Type;
    const std::vector<std::vector<T>> in = {{5, 0, 2}};
    // No op is applied with one input: LAND leaves 5 and 2 as they are, AVG divides by 1.
    EXPECT_TRUE(fold_as<T>(TypeParam::kDatatype, UCC_OP_LAND, in) == in[0]);
    EXPECT_TRUE(fold_as<T>(TypeParam::kDatatype, UCC_OP_AVG, in) == in[0]);
}

TEST(ModelReduce, LogicalOpsTreatNonZeroAsTrue) {
    const std::vector<std::vector<int32_t>> in = {{-1, -1, 0, 4}, {2, 0, 0, -8}};
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_LAND, in), (std::vector<int32_t>{1, 0, 0, 1}));
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_LOR, in), (std::vector<int32_t>{1, 1, 0, 1}));
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_LXOR, in), (std::vector<int32_t>{0, 1, 0, 0}));
}

TEST(ModelReduce, SignedAndUnsignedCompareDifferently) {
    const std::vector<std::vector<int32_t>> s = {{-5}, {3}, {-7}};
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_MAX, s), (std::vector<int32_t>{3}));
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_MIN, s), (std::vector<int32_t>{-7}));
    const std::vector<std::vector<uint32_t>> u = {{0xfffffffbu}, {3}, {0xfffffff9u}};
    EXPECT_EQ(fold_as<uint32_t>(UCC_DT_UINT32, UCC_OP_MAX, u),
              (std::vector<uint32_t>{0xfffffffbu}));
    EXPECT_EQ(fold_as<uint32_t>(UCC_DT_UINT32, UCC_OP_MIN, u), (std::vector<uint32_t>{3}));
}

TEST(ModelReduce, IntegerAverageTruncatesInTheType) {
    // Signed: (-4 + -3) / 2 = -7 / 2 = -3 (towards zero); 9 / 2 = 4.
    EXPECT_EQ(fold_as<int16_t>(UCC_DT_INT16, UCC_OP_AVG, {{-4, 5}, {-3, 4}}),
              (std::vector<int16_t>{-3, 4}));
    // Unsigned: the same bits are 0xfff9 / 2 = 0x7ffc.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_UINT16, UCC_OP_AVG, {{0xfffc}, {0xfffd}}),
              (std::vector<uint16_t>{0x7ffc}));  // 0xfffc + 0xfffd wraps to 0xfff9
    // int8 with more ranks than int8 can count: sum -7 over 200 ranks -> 0.
    std::vector<std::vector<int8_t>> many(200, std::vector<int8_t>{0});
    many[0][0] = -7;
    EXPECT_EQ(fold_as<int8_t>(UCC_DT_INT8, UCC_OP_AVG, many), (std::vector<int8_t>{0}));
    // uint8 200 ranks of 1: the SUM wraps to 200, 200 / 200 = 1.
    std::vector<std::vector<uint8_t>> ones(200, std::vector<uint8_t>{1});
    EXPECT_EQ(fold_as<uint8_t>(UCC_DT_UINT8, UCC_OP_AVG, ones), (std::vector<uint8_t>{1}));
}

TEST(ModelReduce, IntegersWrap) {
    EXPECT_EQ(fold_as<int8_t>(UCC_DT_INT8, UCC_OP_SUM, {{100}, {100}}), (std::vector<int8_t>{-56}));
    EXPECT_EQ(fold_as<uint8_t>(UCC_DT_UINT8, UCC_OP_SUM, {{200}, {100}}),
              (std::vector<uint8_t>{44}));
    // 300 * 300 = 90000 = 65536 + 24464.
    EXPECT_EQ(fold_as<int16_t>(UCC_DT_INT16, UCC_OP_PROD, {{300}, {300}}),
              (std::vector<int16_t>{24464}));
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_UINT16, UCC_OP_PROD, {{65535}, {65535}}),
              (std::vector<uint16_t>{1}));  // (-1)^2 mod 2^16
    EXPECT_EQ(fold_as<int32_t>(UCC_DT_INT32, UCC_OP_SUM, {{2147483647}, {1}}),
              (std::vector<int32_t>{-2147483647 - 1}));
    EXPECT_EQ(fold_as<int64_t>(UCC_DT_INT64, UCC_OP_PROD, {{int64_t{1} << 62}, {4}}),
              (std::vector<int64_t>{0}));
    EXPECT_EQ(fold_as<uint64_t>(UCC_DT_UINT64, UCC_OP_SUM, {{~uint64_t{0}}, {3}}),
              (std::vector<uint64_t>{2}));
}

TEST(ModelReduce, Int128GoesBeyond64Bits) {
    const Int128 two64 = Int128{1} << 64;
    // (2^64 + 5) + 3 * 2^64 = 2^66 + 5.
    auto sum = fold_as<Int128>(UCC_DT_INT128, UCC_OP_SUM, {{two64 + 5}, {3 * two64}});
    EXPECT_TRUE(sum[0] == (Int128{1} << 66) + 5);
    // 2^40 * 2^40 = 2^80.
    auto prod = fold_as<Int128>(UCC_DT_INT128, UCC_OP_PROD, {{Int128{1} << 40}, {Int128{1} << 40}});
    EXPECT_TRUE(prod[0] == Int128{1} << 80);
    // -2^100 < 2^64 for MIN; the high word decides.
    auto min = fold_as<Int128>(UCC_DT_INT128, UCC_OP_MIN, {{two64}, {-(Int128{1} << 100)}});
    EXPECT_TRUE(min[0] == -(Int128{1} << 100));
    // (2^127 - 1) + 1 wraps to -2^127.
    const Int128 max = static_cast<Int128>((UInt128{1} << 127) - 1);
    auto wrap = fold_as<Int128>(UCC_DT_INT128, UCC_OP_SUM, {{max}, {1}});
    EXPECT_TRUE(wrap[0] == -max - 1);
    // uint128: (2^128 - 1) + 2 = 1; 2^127 > 1 (no sign).
    auto uwrap = fold_as<UInt128>(UCC_DT_UINT128, UCC_OP_SUM, {{~UInt128{0}}, {2}});
    EXPECT_TRUE(uwrap[0] == 1);
    auto umax = fold_as<UInt128>(UCC_DT_UINT128, UCC_OP_MAX, {{UInt128{1} << 127}, {1}});
    EXPECT_TRUE(umax[0] == UInt128{1} << 127);
    // AVG of 2^70 and 2^70 + 2 = 2^70 + 1.
    auto avg =
        fold_as<Int128>(UCC_DT_INT128, UCC_OP_AVG, {{Int128{1} << 70}, {(Int128{1} << 70) + 2}});
    EXPECT_TRUE(avg[0] == (Int128{1} << 70) + 1);
}

// ---- real floating types. x0 = {1.5, -2, 4, 0.25}, x1 = {2, 3, -1, 8}, x2 = {-0.5, 0.5, 3, 2.25}
// (every value and result is exact in all five formats).
const std::vector<std::vector<double>> kRealIn = {
    {1.5, -2, 4, 0.25}, {2, 3, -1, 8}, {-0.5, 0.5, 3, 2.25}};
struct RealRow {
    ucc_reduction_op_t op;
    std::vector<double> want;
};
const std::vector<RealRow> kRealRows = {
    {UCC_OP_SUM, {3, 1.5, 6, 10.5}}, {UCC_OP_PROD, {-1.5, -3, -12, 4.5}},
    {UCC_OP_MAX, {2, 3, 4, 8}},      {UCC_OP_MIN, {-0.5, -2, -1, 0.25}},
    {UCC_OP_AVG, {1, 0.5, 2, 3.5}},
};

template <class T>
void check_real_matrix(ucc_datatype_t dt) {
    std::vector<std::vector<T>> in;
    for (const auto &v : kRealIn) {
        in.emplace_back(v.begin(), v.end());
    }
    for (const RealRow &row : kRealRows) {
        EXPECT_TRUE(op_supported(dt, row.op));
        const std::vector<T> got = fold_as<T>(dt, row.op, in);
        for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(static_cast<double>(got[i]), row.want[i])
                << dt_name(dt) << " " << op_name(row.op) << " [" << i << "]";
        }
    }
    for (ucc_reduction_op_t op : {UCC_OP_LAND, UCC_OP_LOR, UCC_OP_LXOR, UCC_OP_BAND, UCC_OP_BOR,
                                  UCC_OP_BXOR, UCC_OP_MAXLOC, UCC_OP_MINLOC}) {
        EXPECT_FALSE(op_supported(dt, op)) << dt_name(dt) << " " << op_name(op);
    }
}

TEST(ModelReduce, Float32Matrix) {
    check_real_matrix<float>(UCC_DT_FLOAT32);
}
TEST(ModelReduce, Float64Matrix) {
    check_real_matrix<double>(UCC_DT_FLOAT64);
}

// Reads a FLOAT128 result; checks the 6 padding bytes are zero.
long double long_double_at(const std::vector<uint8_t> &bytes, size_t i) {
    long double v;
    std::memcpy(&v, bytes.data() + 16 * i, 16);
    for (size_t k = long_double_value_bytes(); k < 16; ++k) {
        EXPECT_EQ(bytes[16 * i + k], 0) << "padding byte " << k << " of element " << i;
    }
    return v;
}

// Long doubles with every padding byte set to 0xab.
std::vector<uint8_t> long_doubles_with_junk(const std::vector<long double> &values) {
    std::vector<uint8_t> bytes(16 * values.size(), 0xab);
    for (size_t i = 0; i < values.size(); ++i) {
        std::memcpy(bytes.data() + 16 * i, &values[i], long_double_value_bytes());
    }
    return bytes;
}

TEST(ModelReduce, Float128MatrixWithPaddingZeroed) {
    std::vector<std::vector<uint8_t>> in;
    for (const auto &v : kRealIn) {
        in.push_back(long_doubles_with_junk(std::vector<long double>(v.begin(), v.end())));
    }
    const std::vector<const void *> inputs = {in[0].data(), in[1].data(), in[2].data()};
    for (const RealRow &row : kRealRows) {
        const std::vector<uint8_t> got = fold(UCC_DT_FLOAT128, row.op, inputs, 4);
        ASSERT_EQ(got.size(), 64u);
        for (size_t i = 0; i < 4; ++i) {
            EXPECT_EQ(static_cast<double>(long_double_at(got, i)), row.want[i]) << op_name(row.op);
        }
    }
    // A single input is the same value, with its padding zeroed too.
    const std::vector<uint8_t> one = fold(UCC_DT_FLOAT128, UCC_OP_SUM, {in[0].data()}, 4);
    EXPECT_EQ(static_cast<double>(long_double_at(one, 0)), 1.5);
    EXPECT_EQ(static_cast<double>(long_double_at(one, 3)), 0.25);
    // 1/3 carries 64 significant bits: x87 precision, not double's.
    const std::vector<uint8_t> third = long_doubles_with_junk({1.0L / 3});
    const std::vector<uint8_t> zero = long_doubles_with_junk({0.0L});
    const std::vector<uint8_t> sum =
        fold(UCC_DT_FLOAT128, UCC_OP_SUM, {third.data(), zero.data()}, 1);
    EXPECT_TRUE(long_double_at(sum, 0) == 1.0L / 3);
}

std::vector<uint16_t> to_half(const std::vector<double> &v) {
    std::vector<uint16_t> out;
    for (double d : v) {
        out.push_back(float_to_half(static_cast<float>(d)));
    }
    return out;
}

std::vector<uint16_t> to_bfloat(const std::vector<double> &v) {
    std::vector<uint16_t> out;
    for (double d : v) {
        out.push_back(float_to_bfloat16(static_cast<float>(d)));
    }
    return out;
}

TEST(ModelReduce, Float16AndBfloat16Matrix) {
    std::vector<std::vector<uint16_t>> half_in, bf_in;
    for (const auto &v : kRealIn) {
        half_in.push_back(to_half(v));
        bf_in.push_back(to_bfloat(v));
    }
    for (const RealRow &row : kRealRows) {
        EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, row.op, half_in), to_half(row.want));
        EXPECT_EQ(fold_as<uint16_t>(UCC_DT_BFLOAT16, row.op, bf_in), to_bfloat(row.want));
    }
    // The bit patterns, worked out by hand: 3 = 0x4200, 1.5 = 0x3e00, 6 = 0x4600, 10.5 = 0x4940.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, half_in),
              (std::vector<uint16_t>{0x4200, 0x3e00, 0x4600, 0x4940}));
    // bfloat16: 3 = 0x4040, 1.5 = 0x3fc0, 6 = 0x40c0, 10.5 = 0x4128.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_SUM, bf_in),
              (std::vector<uint16_t>{0x4040, 0x3fc0, 0x40c0, 0x4128}));
}

TEST(ModelReduce, HalfConversions) {
    EXPECT_EQ(half_to_float(0x3c00), 1.0f);
    EXPECT_EQ(half_to_float(0xc000), -2.0f);
    EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
    EXPECT_EQ(half_to_float(0x03ff), std::ldexp(1023.0f, -24));
    EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
    EXPECT_EQ(half_to_float(0x7c00), std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
    EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
    EXPECT_EQ(float_to_half(1.0f / 3), 0x3555);               // 0x3555 = 0.33325, nearest to 1/3
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);               // below the midpoint 65520
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);               // the midpoint rounds to even: inf
    EXPECT_EQ(float_to_half(1e-8f), 0x0000);                  // below half of 2^-24
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie: to even (0)
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 units: to even (2)
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25) * 1.5f), 0x0001);  // 0.75 units: up to 1
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7c00);
    EXPECT_EQ(float_to_half(std::nanf("")) & 0x7c00, 0x7c00);
    EXPECT_NE(float_to_half(std::nanf("")) & 0x3ff, 0);
    for (uint32_t h = 0; h < 0x10000; ++h) {  // every non-NaN half survives a round trip
        const auto bits = static_cast<uint16_t>(h);
        if ((bits & 0x7c00) != 0x7c00 || (bits & 0x3ff) == 0) {
            ASSERT_EQ(float_to_half(half_to_float(bits)), bits) << std::hex << h;
        }
    }
}

TEST(ModelReduce, Float16RoundsAfterEveryStep) {
    const uint16_t h2048 = 0x6800, h2050 = 0x6801, h2052 = 0x6802, h1 = 0x3c00;
    // 2048 + 1 = 2049: a tie between 2048 and 2050; even mantissa wins: 2048.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{h2048}, {h1}}),
              (std::vector<uint16_t>{h2048}));
    // 2050 + 1 = 2051: a tie between 2050 and 2052: 2052.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{h2050}, {h1}}),
              (std::vector<uint16_t>{h2052}));
    // 2048 + 1 + 1: each step rounds back to 2048 (an exact sum would be 2050).
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{h2048}, {h1}, {h1}}),
              (std::vector<uint16_t>{h2048}));
    // 1 + 1 + 2048 = 2 + 2048 = 2050 exactly: order matters.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{h1}, {h1}, {h2048}}),
              (std::vector<uint16_t>{h2050}));
    // 65504 + 16 = 65520: ties to even goes up, to inf. 65504 + 15 stays.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{0x7bff}, {0x4c00}}),
              (std::vector<uint16_t>{0x7c00}));
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_SUM, {{0x7bff}, {0x4b80}}),
              (std::vector<uint16_t>{0x7bff}));
    // Subnormals: 3 * 2^-24 times 0.5 = 1.5 units -> 2 units; 2^-24 * 0.5 -> 0.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_PROD, {{0x0003, 0x0001}, {0x3800, 0x3800}}),
              (std::vector<uint16_t>{0x0002, 0x0000}));
    // AVG: (2048 + 1) rounds to 2048 first, then 2048 / 2 = 1024 (0x6400).
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_AVG, {{h2048}, {h1}}),
              (std::vector<uint16_t>{0x6400}));
    // AVG of 1, 1, 0: 2 / 3 in float32 = 0.6666667, rounded to half: 0x3955 (0.66650).
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_FLOAT16, UCC_OP_AVG, {{h1}, {h1}, {0}}),
              (std::vector<uint16_t>{0x3955}));
}

TEST(ModelReduce, Bfloat16RoundsAfterEveryStep) {
    const uint16_t b256 = 0x4380, b258 = 0x4381, b260 = 0x4382, b1 = 0x3f80;
    EXPECT_EQ(bfloat16_to_float(b256), 256.0f);
    EXPECT_EQ(bfloat16_to_float(b258), 258.0f);
    // 256 + 1: a tie between 256 and 258: 256. 258 + 1: a tie between 258 and 260: 260.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_SUM, {{b256, b258}, {b1, b1}}),
              (std::vector<uint16_t>{b256, b260}));
    // Per-step rounding: 256 + 1 + 1 = 256.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_SUM, {{b256}, {b1}, {b1}}),
              (std::vector<uint16_t>{b256}));
    // 1/3 = 0x3eaaaaab in float32 -> 0x3eab (rounded up: low half 0xaaab > 0x8000).
    EXPECT_EQ(float_to_bfloat16(1.0f / 3), 0x3eab);
    // The largest float rounds to inf; NaN stays NaN.
    EXPECT_EQ(float_to_bfloat16(std::numeric_limits<float>::max()), 0x7f80);
    EXPECT_EQ(float_to_bfloat16(std::nanf("")) & 0x7f80, 0x7f80);
    EXPECT_NE(float_to_bfloat16(std::nanf("")) & 0x7f, 0);
    // AVG: (1 + 1 + 0) / 3 = 0.6666667f -> 0x3f2b.
    EXPECT_EQ(fold_as<uint16_t>(UCC_DT_BFLOAT16, UCC_OP_AVG, {{b1}, {b1}, {0}}),
              (std::vector<uint16_t>{0x3f2b}));
}

TEST(ModelReduce, FloatMaxMinKeepTheAccumulatorOnTies) {
    // -0.0 vs +0.0: a > b is false both ways, so MAX returns b and MIN returns b.
    const auto max = fold_as<float>(UCC_DT_FLOAT32, UCC_OP_MAX, {{-0.0f}, {0.0f}});
    EXPECT_FALSE(std::signbit(max[0]));
    const auto min = fold_as<float>(UCC_DT_FLOAT32, UCC_OP_MIN, {{0.0f}, {-0.0f}});
    EXPECT_TRUE(std::signbit(min[0]));
    // A NaN accumulator: a > b is false, so MAX takes b.
    const auto nan_first = fold_as<float>(UCC_DT_FLOAT32, UCC_OP_MAX, {{std::nanf("")}, {1.0f}});
    EXPECT_EQ(nan_first[0], 1.0f);
    const auto nan_second = fold_as<float>(UCC_DT_FLOAT32, UCC_OP_MAX, {{1.0f}, {std::nanf("")}});
    EXPECT_TRUE(std::isnan(nan_second[0]));
}

// ---- complex: (1 + 2i), (3 - i), (0 + i)

template <class T>
void check_complex(ucc_datatype_t dt) {
    const std::vector<std::vector<T>> in = {{1, 2}, {3, -1}, {0, 1}};
    // SUM = (4, 2); PROD = (1+2i)(3-i) = (3+2, -1+6) = (5, 5); (5+5i)(i) = (-5, 5).
    EXPECT_EQ(fold_as<T>(dt, UCC_OP_SUM, in), (std::vector<T>{4, 2}));
    EXPECT_EQ(fold_as<T>(dt, UCC_OP_PROD, in), (std::vector<T>{-5, 5}));
    // AVG of the first two: (4, 1) / 2 = (2, 0.5).
    EXPECT_EQ(fold_as<T>(dt, UCC_OP_AVG, {in[0], in[1]}), (std::vector<T>{2, 0.5}));
    for (ucc_reduction_op_t op :
         {UCC_OP_MAX, UCC_OP_MIN, UCC_OP_LAND, UCC_OP_BXOR, UCC_OP_MAXLOC, UCC_OP_MINLOC}) {
        EXPECT_FALSE(op_supported(dt, op)) << op_name(op);
    }
    EXPECT_TRUE(op_supported(dt, UCC_OP_SUM));
    EXPECT_TRUE(op_supported(dt, UCC_OP_PROD));
    EXPECT_TRUE(op_supported(dt, UCC_OP_AVG));
}

TEST(ModelReduce, Float32Complex) {
    check_complex<float>(UCC_DT_FLOAT32_COMPLEX);
}
TEST(ModelReduce, Float64Complex) {
    check_complex<double>(UCC_DT_FLOAT64_COMPLEX);
}

TEST(ModelReduce, Float128ComplexWithPaddingZeroed) {
    const std::vector<uint8_t> a = long_doubles_with_junk({1, 2});
    const std::vector<uint8_t> b = long_doubles_with_junk({3, -1});
    const std::vector<uint8_t> c = long_doubles_with_junk({0, 1});
    const std::vector<uint8_t> prod =
        fold(UCC_DT_FLOAT128_COMPLEX, UCC_OP_PROD, {a.data(), b.data(), c.data()}, 1);
    ASSERT_EQ(prod.size(), 32u);
    EXPECT_EQ(static_cast<double>(long_double_at(prod, 0)), -5.0);
    EXPECT_EQ(static_cast<double>(long_double_at(prod, 1)), 5.0);
    const std::vector<uint8_t> avg =
        fold(UCC_DT_FLOAT128_COMPLEX, UCC_OP_AVG, {a.data(), b.data()}, 1);
    EXPECT_EQ(static_cast<double>(long_double_at(avg, 0)), 2.0);
    EXPECT_EQ(static_cast<double>(long_double_at(avg, 1)), 0.5);
    const std::vector<uint8_t> one = fold(UCC_DT_FLOAT128_COMPLEX, UCC_OP_SUM, {b.data()}, 1);
    EXPECT_EQ(static_cast<double>(long_double_at(one, 0)), 3.0);
    EXPECT_EQ(static_cast<double>(long_double_at(one, 1)), -1.0);
}

TEST(ModelReduce, ZeroCountIsEmpty) {
    const int32_t x = 1;
    EXPECT_TRUE(fold(UCC_DT_INT32, UCC_OP_SUM, {&x, &x}, 0).empty());
}

// ---- generic datatypes: an element is {int32 sum_part; int32 max_part}; the user op adds the
// first halves and takes the max of the second ones. The handle layout follows datatypes.h.

struct Pair {
    int32_t sum_part;
    int32_t max_part;
};

struct Calls {
    int count = 0;
    bool args_ok = true;
};

struct alignas(8) GenericDt {
    ucc_generic_dt_ops_t ops;
    void *context;
};

ucc_status_t pair_reduce(const ucc_reduce_cb_params_t *p) {
    auto *calls = static_cast<Calls *>(p->cb_ctx);
    ++calls->count;
    calls->args_ok = calls->args_ok && p->n_vectors == 1 && p->stride == p->count * sizeof(Pair) &&
                     p->dt != nullptr;
    for (size_t i = 0; i < p->count; ++i) {
        Pair a, b, r;
        std::memcpy(&a, static_cast<const char *>(p->src1) + i * sizeof(Pair), sizeof a);
        std::memcpy(&b, static_cast<const char *>(p->src2) + i * sizeof(Pair), sizeof b);
        r.sum_part = a.sum_part + b.sum_part;
        r.max_part = a.max_part > b.max_part ? a.max_part : b.max_part;
        std::memcpy(static_cast<char *>(p->dst) + i * sizeof(Pair), &r, sizeof r);
    }
    return UCC_OK;
}

TEST(ModelReduce, GenericDatatypeUsesTheUserCallback) {
    Calls calls;
    GenericDt g{};
    g.ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    g.ops.contig_size = sizeof(Pair);
    g.ops.reduce.cb = pair_reduce;
    g.ops.reduce.cb_ctx = &calls;
    const auto dt = reinterpret_cast<ucc_datatype_t>(&g) | UCC_DATATYPE_GENERIC;
    ASSERT_TRUE(is_generic_dt(dt));
    EXPECT_EQ(element_size(dt), sizeof(Pair));

    const std::vector<Pair> x0 = {{1, 5}, {10, -3}};
    const std::vector<Pair> x1 = {{2, 9}, {20, -8}};
    const std::vector<Pair> x2 = {{4, 7}, {40, -1}};
    // op is ignored for generic datatypes.
    const std::vector<uint8_t> got =
        fold(dt, UCC_OP_MAXLOC, {x0.data(), x1.data(), x2.data()}, x0.size());
    ASSERT_EQ(got.size(), 2 * sizeof(Pair));
    Pair r[2];
    std::memcpy(r, got.data(), sizeof r);
    EXPECT_EQ(r[0].sum_part, 7);
    EXPECT_EQ(r[0].max_part, 9);
    EXPECT_EQ(r[1].sum_part, 70);
    EXPECT_EQ(r[1].max_part, -1);
    EXPECT_EQ(calls.count, 2);  // one call per binary step
    EXPECT_TRUE(calls.args_ok);

    // Without FLAG_REDUCE the fold is refused.
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
    EXPECT_THROW(fold(dt, UCC_OP_SUM, {x0.data(), x1.data()}, 2), std::invalid_argument);
}

}  // namespace
}  // namespace ucc::model
