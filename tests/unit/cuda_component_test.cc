// The CUDA component on a machine without a GPU: it loads (the runtime is linked in,
// the driver is not needed), says why no device is usable, and its kernels'
// arithmetic, run on the CPU through the very functions and loop the kernels run
// (reduce_on_host), equals the model's reduction bitwise for every datatype and op a
// device reduces: float16 and bfloat16 rounding, integer wrap-around, NaN and
// infinity, complex products, AVG's division.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "lib/core/cuda_loader.h"
#include "lib/core/log.h"
#include "lib/dt/dt.h"
#include "model/reduce.h"

namespace {

using ucc::core::CudaComponent;
using ucc::core::Logger;

#if UCC_WITH_CUDA
constexpr bool kBuilt = true;
#else
constexpr bool kBuilt = false;
#endif

struct Rng {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

// Element i of rank r: special bit patterns for the narrow floats (zeros, subnormals,
// the largest finite values, infinities, NaNs, values whose sum or product rounds at a
// tie), small integers for the rest so that products stay interesting, and random bytes.
std::vector<uint8_t> input(ucc_datatype_t dt, uint32_t rank, size_t count) {
    const size_t es = ucc::dt::size_of(dt);
    std::vector<uint8_t> v(count * es);
    Rng rng{dt * 131 + rank + 1};
    static const uint16_t kNarrow[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff,
                                       0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3c00, 0x3c01, 0xbc00,
                                       0x3555, 0x7f7f, 0xff80, 0x7f80, 0x0080, 0x3f80, 0x3f81};
    for (size_t i = 0; i < count; ++i) {
        uint8_t *e = v.data() + i * es;
        const uint64_t r = rng.next();
        if (es == 2 && (dt == UCC_DT_FLOAT16 || dt == UCC_DT_BFLOAT16) && i % 3 == 0) {
            const uint16_t h = kNarrow[(i / 3 + rank * 7) % (sizeof(kNarrow) / sizeof(kNarrow[0]))];
            std::memcpy(e, &h, 2);
        } else if (i % 4 == 1 && !ucc::dt::is_float_like(dt)) {
            const int64_t small = static_cast<int64_t>(r % 7) - 3;
            std::memcpy(e, &small, es < 8 ? es : 8);
            std::memset(e + (es < 8 ? es : 8), small < 0 ? 0xff : 0, es > 8 ? es - 8 : 0);
        } else if (i % 4 == 1 && dt == UCC_DT_FLOAT32) {
            const float f = static_cast<float>(static_cast<int64_t>(r % 2001) - 1000) / 8.0f;
            std::memcpy(e, &f, 4);
        } else if (i % 4 == 1 && (dt == UCC_DT_FLOAT64 || dt == UCC_DT_FLOAT64_COMPLEX)) {
            const double d = static_cast<double>(static_cast<int64_t>(r % 2001) - 1000) / 3.0;
            std::memcpy(e, &d, 8);
        } else {
            for (size_t b = 0; b < es; ++b) {
                e[b] = static_cast<uint8_t>(rng.next());
            }
        }
    }
    return v;
}

// One real part at p is a NaN (dt a real type, or a complex type's part type).
bool part_is_nan(ucc_datatype_t dt, const uint8_t *p) {
    uint16_t h = 0;
    if (dt == UCC_DT_FLOAT16 || dt == UCC_DT_BFLOAT16) {
        std::memcpy(&h, p, 2);
        return dt == UCC_DT_FLOAT16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0
                                    : (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0;
    }
    if (dt == UCC_DT_FLOAT32 || dt == UCC_DT_FLOAT32_COMPLEX) {
        float f;
        std::memcpy(&f, p, 4);
        return std::isnan(f);
    }
    double d;
    std::memcpy(&d, p, 8);
    return std::isnan(d);
}

// The same value: the same bytes, or NaN where the model has NaN (the model keeps a
// NaN's payload when it narrows; the library also sets the quiet bit, which the
// spec leaves open).
bool same_element(ucc_datatype_t dt, const uint8_t *a, const uint8_t *b, size_t es) {
    if (std::memcmp(a, b, es) == 0) {
        return true;
    }
    if (!ucc::dt::is_float_like(dt)) {
        return false;
    }
    const size_t parts = ucc::dt::is_complex(dt) ? 2 : 1;
    for (size_t k = 0; k < parts; ++k) {
        const size_t off = k * es / parts;
        if (std::memcmp(a + off, b + off, es / parts) != 0 &&
            !(part_is_nan(dt, a + off) && part_is_nan(dt, b + off))) {
            return false;
        }
    }
    return true;
}

class CudaComponentTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!kBuilt) {
            GTEST_SKIP() << "built without the CUDA Toolkit: there is no component";
        }
        ops_ = cuda_.ops(log_);
        ASSERT_NE(ops_, nullptr) << cuda_.why(log_);
    }
    Logger log_;
    CudaComponent cuda_;
    const ucc_cuda_component_t *ops_ = nullptr;
};

TEST_F(CudaComponentTest, LoadsAndSaysWhetherADeviceIsUsable) {
    EXPECT_EQ(ops_->abi, UCC_CUDA_COMPONENT_ABI);
    EXPECT_GE(ops_->size, sizeof(ucc_cuda_component_t));
    EXPECT_NE(std::string(ops_->built_with).find('.'), std::string::npos);
    if (cuda_.devices(log_) == 0) {
        // A CPU machine: the reason is the runtime's, and nothing counts as device memory.
        EXPECT_FALSE(cuda_.usable(log_));
        EXPECT_NE(cuda_.why(log_).find("no usable CUDA device"), std::string::npos)
            << cuda_.why(log_);
        int x = 0;
        EXPECT_EQ(cuda_.resolve(UCC_MEMORY_TYPE_UNKNOWN, &x, log_), UCC_MEMORY_TYPE_HOST);
    } else {
        EXPECT_TRUE(cuda_.why(log_).empty());
    }
    EXPECT_EQ(cuda_.resolve(UCC_MEMORY_TYPE_CUDA, nullptr, log_), UCC_MEMORY_TYPE_CUDA);
}

TEST(CudaComponentMissing, AMissingComponentIsAReasonNotAnError) {
    Logger log;
    CudaComponent c;
    c.set_search_path("/nonexistent-ucc-components");
    EXPECT_EQ(c.ops(log), nullptr);
    EXPECT_FALSE(c.usable(log));
    EXPECT_NE(c.why(log).find("no CUDA component"), std::string::npos) << c.why(log);
    int x = 0;
    EXPECT_EQ(c.resolve(UCC_MEMORY_TYPE_UNKNOWN, &x, log), UCC_MEMORY_TYPE_HOST);
}

// Which (datatype, op) a device reduces: what the host does, but float128's.
TEST_F(CudaComponentTest, DeviceReducesWhatTheHostDoesButFloat128) {
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        const bool wide = dt == UCC_DT_FLOAT128 || dt == UCC_DT_FLOAT128_COMPLEX;
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            EXPECT_EQ(ops_->reduce_supported(dt, op) != 0,
                      !wide && ucc::dt::reduction_supported(dt, op))
                << ucc::dt::name(dt) << " " << ucc::dt::op_name(op);
        }
    }
    int x = 0;
    EXPECT_NE(ops_->reduce_on_host(UCC_DT_FLOAT128, UCC_OP_SUM, &x, &x, &x, 0), 0);
    EXPECT_NE(ops_->reduce_on_host(UCC_DT_FLOAT32, UCC_OP_BAND, &x, &x, &x, 0), 0);
}

// Three ranks' inputs folded in rank order by the kernels' arithmetic, AVG divided at
// the end, against the model's fold: bitwise (a NaN for a NaN), for every (datatype,
// op) a device reduces.
TEST_F(CudaComponentTest, KernelArithmeticEqualsTheModelForEveryTypeAndOp) {
    constexpr size_t kCount = 1000;
    constexpr uint32_t kRanks = 3;
    size_t checked = 0;
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        const size_t es = ucc::dt::size_of(dt);
        std::vector<std::vector<uint8_t>> in;
        std::vector<const void *> ptrs;
        for (uint32_t r = 0; r < kRanks; ++r) {
            in.push_back(input(dt, r, kCount));
        }
        for (const auto &v : in) {
            ptrs.push_back(v.data());
        }
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            if (!ops_->reduce_supported(dt, op)) {
                continue;
            }
            SCOPED_TRACE(std::string(ucc::dt::name(dt)) + " " + ucc::dt::op_name(op));
            std::vector<uint8_t> acc = in[0];
            for (uint32_t r = 1; r < kRanks; ++r) {
                // In place, dst == a, as the algorithms reduce into their buffer.
                ASSERT_EQ(
                    ops_->reduce_on_host(dt, op, acc.data(), acc.data(), in[r].data(), kCount), 0);
            }
            if (op == UCC_OP_AVG) {
                ASSERT_EQ(ops_->avg_on_host(dt, acc.data(), kCount, kRanks), 0);
            }
            const std::vector<uint8_t> want = ucc::model::fold(dt, op, ptrs, kCount);
            ASSERT_EQ(want.size(), acc.size());
            for (size_t i = 0; i < kCount; ++i) {
                ASSERT_TRUE(same_element(dt, acc.data() + i * es, want.data() + i * es, es))
                    << "element " << i;
            }
            ++checked;
        }
    }
    // 10 integer types x 11 ops, 4 reals x 5, 2 complex x 3.
    EXPECT_EQ(checked, 10u * 11 + 4 * 5 + 2 * 3);
}

// One kernel folding n inputs (reduce_many, the IPC path's) is the chain of n - 1
// two-input reductions, bitwise but NaN payloads (the two instantiations may order a
// complex product's operands differently, and a GPU's NaNs are canonical anyway), its
// dst being one of its inputs; n outside 2..32 refused.
TEST_F(CudaComponentTest, AFoldOfNInputsIsTheChainOfTwoInputReductionsBitwise) {
    constexpr size_t kCount = 301;
    constexpr uint32_t kInputs = 5;
    ASSERT_TRUE(UCC_CUDA_COMPONENT_HAS(ops_, reduce_many_on_host));
    size_t checked = 0;
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            if (!ops_->reduce_supported(dt, op)) {
                continue;
            }
            SCOPED_TRACE(std::string(ucc::dt::name(dt)) + " " + ucc::dt::op_name(op));
            const size_t es = ucc::dt::size_of(dt);
            std::vector<std::vector<uint8_t>> in;
            std::vector<const void *> ptrs;
            for (uint32_t r = 0; r < kInputs; ++r) {
                in.push_back(input(dt, r + 11, kCount));
            }
            for (const auto &v : in) {
                ptrs.push_back(v.data());
            }
            std::vector<uint8_t> chain(in[0].size());
            ASSERT_EQ(ops_->reduce_on_host(dt, op, chain.data(), ptrs[0], ptrs[1], kCount), 0);
            for (uint32_t r = 2; r < kInputs; ++r) {
                ASSERT_EQ(ops_->reduce_on_host(dt, op, chain.data(), chain.data(), ptrs[r], kCount),
                          0);
            }
            // (In place: the result over input 3, as an in-place allreduce's block.)
            ASSERT_EQ(ops_->reduce_many_on_host(dt, op, in[3].data(), ptrs.data(), kInputs, kCount),
                      0);
            for (size_t i = 0; i < kCount * es; i += es) {
                ASSERT_TRUE(same_element(dt, in[3].data() + i, chain.data() + i, es))
                    << "element " << i / es;
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, 10u * 11 + 4 * 5 + 2 * 3);
    std::vector<const void *> many(UCC_CUDA_REDUCE_MAX_INPUTS + 1, &checked);
    uint64_t out = 0;
    EXPECT_NE(ops_->reduce_many_on_host(UCC_DT_UINT64, UCC_OP_SUM, &out, many.data(), 1, 1), 0);
    EXPECT_NE(ops_->reduce_many_on_host(UCC_DT_UINT64, UCC_OP_SUM, &out, many.data(),
                                        UCC_CUDA_REDUCE_MAX_INPUTS + 1, 1),
              0);
    EXPECT_EQ(ops_->reduce_many_on_host(UCC_DT_UINT64, UCC_OP_SUM, &out, many.data(),
                                        UCC_CUDA_REDUCE_MAX_INPUTS, 1),
              0);
}

// And against the host library's own kernels, pair by pair (the same arithmetic, the
// other compiler's instantiation): bitwise, NaN payloads included.
TEST_F(CudaComponentTest, KernelArithmeticEqualsTheHostKernels) {
    constexpr size_t kCount = 517;
    for (uint64_t id = 0; id < ucc::dt::kPredefinedCount; ++id) {
        const ucc_datatype_t dt = UCC_PREDEFINED_DT(id);
        const std::vector<uint8_t> a = input(dt, 0, kCount);
        const std::vector<uint8_t> b = input(dt, 5, kCount);
        for (int o = 0; o < UCC_OP_LAST; ++o) {
            const auto op = static_cast<ucc_reduction_op_t>(o);
            if (!ops_->reduce_supported(dt, op)) {
                continue;
            }
            SCOPED_TRACE(std::string(ucc::dt::name(dt)) + " " + ucc::dt::op_name(op));
            std::vector<uint8_t> got(a.size());
            std::vector<uint8_t> want(a.size());
            ASSERT_EQ(ops_->reduce_on_host(dt, op, got.data(), a.data(), b.data(), kCount), 0);
            ucc::dt::reduce(dt, op, want.data(), a.data(), b.data(), kCount);
            ASSERT_EQ(got, want);
            if (op == UCC_OP_AVG) {
                ASSERT_EQ(ops_->avg_on_host(dt, got.data(), kCount, 7), 0);
                ucc::dt::avg_finalize(dt, want.data(), kCount, 7);
                ASSERT_EQ(got, want);
            }
        }
    }
}

}  // namespace
