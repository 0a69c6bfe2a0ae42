// Datatype metadata: handle encoding, sizes, names, parsing, classification and the
// full (datatype x op) support matrix, bogus values included.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "lib/dt/dt.h"

namespace {

using namespace ucc::dt;

struct Expected {
    ucc_datatype_t dt;
    uint64_t id;
    const char *name;
    size_t size;
    char cls;  // 'i' signed/unsigned integer, 'r' real, 'c' complex
};

const Expected kAll[] = {
    {UCC_DT_INT8, 0, "int8", 1, 'i'},
    {UCC_DT_INT16, 1, "int16", 2, 'i'},
    {UCC_DT_INT32, 2, "int32", 4, 'i'},
    {UCC_DT_INT64, 3, "int64", 8, 'i'},
    {UCC_DT_INT128, 4, "int128", 16, 'i'},
    {UCC_DT_UINT8, 5, "uint8", 1, 'i'},
    {UCC_DT_UINT16, 6, "uint16", 2, 'i'},
    {UCC_DT_UINT32, 7, "uint32", 4, 'i'},
    {UCC_DT_UINT64, 8, "uint64", 8, 'i'},
    {UCC_DT_UINT128, 9, "uint128", 16, 'i'},
    {UCC_DT_FLOAT16, 10, "float16", 2, 'r'},
    {UCC_DT_FLOAT32, 11, "float32", 4, 'r'},
    {UCC_DT_FLOAT64, 12, "float64", 8, 'r'},
    {UCC_DT_BFLOAT16, 13, "bfloat16", 2, 'r'},
    {UCC_DT_FLOAT128, 14, "float128", 16, 'r'},
    {UCC_DT_FLOAT32_COMPLEX, 15, "float32_complex", 8, 'c'},
    {UCC_DT_FLOAT64_COMPLEX, 16, "float64_complex", 16, 'c'},
    {UCC_DT_FLOAT128_COMPLEX, 17, "float128_complex", 32, 'c'},
};

// Handles that are neither a predefined id nor a usable generic handle.
const ucc_datatype_t kBogus[] = {
    UCC_PREDEFINED_DT(18),
    UCC_PREDEFINED_DT(19),
    UCC_PREDEFINED_DT(1000),
    UCC_DATATYPE_GENERIC,  // generic class with a null descriptor
    0x2,
    0x3,
    0x4,
    0x5,
    0x6,
    0x7,
    0x12,
    UINT64_MAX & ~uint64_t{1},
};

const char *const kOpNames[] = {"sum",  "prod", "max",  "min",    "land",   "lor", "lxor",
                                "band", "bor",  "bxor", "maxloc", "minloc", "avg"};

TEST(DtTypes, SizesNamesAndEncodingOfAllPredefined) {
    ASSERT_EQ(sizeof(kAll) / sizeof(kAll[0]), kPredefinedCount);
    ASSERT_EQ(kPredefinedCount, uint64_t{UCC_DT_PREDEFINED_LAST});
    for (const Expected &e : kAll) {
        SCOPED_TRACE(e.name);
        EXPECT_EQ(e.dt, e.id << 3);
        EXPECT_TRUE(is_predefined(e.dt));
        EXPECT_FALSE(is_generic(e.dt));
        EXPECT_TRUE(is_valid(e.dt));
        EXPECT_EQ(size_of(e.dt), e.size);
        EXPECT_STREQ(name(e.dt), e.name);
        EXPECT_EQ(generic_of(e.dt), nullptr);
        EXPECT_EQ(is_integer(e.dt), e.cls == 'i');
        EXPECT_EQ(is_float_like(e.dt), e.cls != 'i');
        EXPECT_EQ(is_complex(e.dt), e.cls == 'c');
    }
}

TEST(DtTypes, BogusHandles) {
    for (ucc_datatype_t dt : kBogus) {
        SCOPED_TRACE(dt);
        EXPECT_FALSE(is_predefined(dt));
        EXPECT_FALSE(is_valid(dt));
        EXPECT_EQ(size_of(dt), 0u);
        EXPECT_STREQ(name(dt), "unknown");
        EXPECT_FALSE(is_integer(dt));
        EXPECT_FALSE(is_float_like(dt));
        EXPECT_FALSE(is_complex(dt));
    }
    EXPECT_TRUE(is_generic(UCC_DATATYPE_GENERIC));
    EXPECT_EQ(generic_of(UCC_DATATYPE_GENERIC), nullptr);
    EXPECT_FALSE(is_generic(0x3));
    EXPECT_FALSE(is_generic(UCC_DT_FLOAT32));
}

TEST(DtTypes, OpNames) {
    for (int op = 0; op < UCC_OP_LAST; ++op) {
        EXPECT_STREQ(op_name(static_cast<ucc_reduction_op_t>(op)), kOpNames[op]);
    }
    EXPECT_STREQ(op_name(UCC_OP_LAST), "unknown");
    // Beyond 15 a value is outside the enum's range (undefined to form in C++).
    EXPECT_STREQ(op_name(static_cast<ucc_reduction_op_t>(14)), "unknown");
    EXPECT_STREQ(op_name(static_cast<ucc_reduction_op_t>(15)), "unknown");
}

TEST(DtTypes, ParseDatatype) {
    for (const Expected &e : kAll) {
        SCOPED_TRACE(e.name);
        ucc_datatype_t dt = UCC_DATATYPE_GENERIC;
        ASSERT_EQ(parse_datatype(e.name, &dt), UCC_OK);
        EXPECT_EQ(dt, e.dt);

        std::string upper = std::string("UCC_DT_") + e.name;
        for (char &c : upper) {
            c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        }
        dt = UCC_DATATYPE_GENERIC;
        ASSERT_EQ(parse_datatype(upper.c_str(), &dt), UCC_OK);
        EXPECT_EQ(dt, e.dt);
        dt = UCC_DATATYPE_GENERIC;
        ASSERT_EQ(parse_datatype((std::string("ucc_dt_") + e.name).c_str(), &dt), UCC_OK);
        EXPECT_EQ(dt, e.dt);
    }
    ucc_datatype_t dt = UCC_DT_INT8;
    EXPECT_EQ(parse_datatype("Float32", &dt), UCC_OK);
    EXPECT_EQ(dt, UCC_DT_FLOAT32);
    for (const char *bad : {"", "float", "float8", "int", "generic", "ucc_dt_", "float32 ",
                            "float32x", "xfloat32", "ucc_op_sum"}) {
        SCOPED_TRACE(bad);
        dt = UCC_DT_INT8;
        EXPECT_EQ(parse_datatype(bad, &dt), UCC_ERR_NOT_FOUND);
        EXPECT_EQ(dt, UCC_DT_INT8);
    }
    EXPECT_EQ(parse_datatype(nullptr, &dt), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(parse_datatype("int8", nullptr), UCC_ERR_INVALID_PARAM);
}

TEST(DtTypes, ParseOp) {
    for (int i = 0; i < UCC_OP_LAST; ++i) {
        SCOPED_TRACE(kOpNames[i]);
        ucc_reduction_op_t op = UCC_OP_LAST;
        ASSERT_EQ(parse_op(kOpNames[i], &op), UCC_OK);
        EXPECT_EQ(op, i);
        std::string upper = std::string("UCC_OP_") + kOpNames[i];
        for (char &c : upper) {
            c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
        }
        op = UCC_OP_LAST;
        ASSERT_EQ(parse_op(upper.c_str(), &op), UCC_OK);
        EXPECT_EQ(op, i);
    }
    ucc_reduction_op_t op = UCC_OP_SUM;
    EXPECT_EQ(parse_op("Max", &op), UCC_OK);
    EXPECT_EQ(op, UCC_OP_MAX);
    for (const char *bad : {"", "last", "add", "summ", "su", "ucc_op_", "ucc_dt_sum"}) {
        SCOPED_TRACE(bad);
        op = UCC_OP_SUM;
        EXPECT_EQ(parse_op(bad, &op), UCC_ERR_NOT_FOUND);
        EXPECT_EQ(op, UCC_OP_SUM);
    }
    EXPECT_EQ(parse_op(nullptr, &op), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(parse_op("sum", nullptr), UCC_ERR_INVALID_PARAM);
}

// The matrix as the documentation states it, written independently of the table.
bool expected_support(const Expected &e, int op) {
    switch (op) {
        case UCC_OP_SUM:
        case UCC_OP_PROD:
        case UCC_OP_AVG:
            return true;
        case UCC_OP_MAX:
        case UCC_OP_MIN:
            return e.cls != 'c';
        case UCC_OP_LAND:
        case UCC_OP_LOR:
        case UCC_OP_LXOR:
        case UCC_OP_BAND:
        case UCC_OP_BOR:
        case UCC_OP_BXOR:
            return e.cls == 'i';
        default:  // MAXLOC, MINLOC, LAST, bogus
            return false;
    }
}

TEST(DtTypes, SupportMatrix) {
    // Every op, UCC_OP_LAST and the other values the enum can hold (0..15).
    const int ops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, UCC_OP_LAST, 14, 15};
    int supported = 0;
    for (const Expected &e : kAll) {
        for (int op : ops) {
            SCOPED_TRACE(std::string(e.name) + " op " + std::to_string(op));
            const bool got = reduction_supported(e.dt, static_cast<ucc_reduction_op_t>(op));
            EXPECT_EQ(got, expected_support(e, op));
            supported += got ? 1 : 0;
        }
    }
    // 10 integer types x 11 ops + 5 reals x 5 + 3 complex x 3.
    EXPECT_EQ(supported, 10 * 11 + 5 * 5 + 3 * 3);
    for (const Expected &e : kAll) {
        EXPECT_FALSE(reduction_supported(e.dt, UCC_OP_MAXLOC)) << e.name;
        EXPECT_FALSE(reduction_supported(e.dt, UCC_OP_MINLOC)) << e.name;
        EXPECT_FALSE(reduction_supported(e.dt, UCC_OP_LAST)) << e.name;
    }
    for (ucc_datatype_t dt : kBogus) {
        for (int op : ops) {
            EXPECT_FALSE(reduction_supported(dt, static_cast<ucc_reduction_op_t>(op)))
                << dt << " " << op;
        }
    }
}

}  // namespace
