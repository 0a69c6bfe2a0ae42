// The model's reductions: an independent, deliberately plain definition of what every reduction
// collective computes element by element (API.md §3.6, CONFORMANCE P4, P5).
//
// * The fold is strictly in rank order: acc = x_0; acc = acc (op) x_1; ...; acc = acc (op) x_{n-1}.
//   With one input no op is applied: the result is x_0 itself.
// * Integers wrap (arithmetic in the unsigned type); MAX/MIN compare in the signed type for signed
//   integers; LAND/LOR/LXOR give 0 or 1; int128/uint128 use __int128.
// * FLOAT16 and BFLOAT16: each binary op is computed in float32 and rounded back to the 16-bit type
//   (round to nearest, ties to even) before the next one.
// * FLOAT32/FLOAT64/FLOAT128 (long double) in their own type; MAX is `a > b ? a : b` and MIN is
//   `a < b ? a : b` with a the accumulator.
// * Complex types: SUM element-wise, PROD as (ac - bd, ad + bc), each part in the component type.
// * AVG: SUM fold, then divide by the number of inputs (integers: truncating division in the type;
//   16-bit floats: in float32, then rounded; complex: both parts).
// * Every long double of a FLOAT128 / FLOAT128_COMPLEX result is written with the bytes after its
//   value (6 padding bytes of the 80-bit x87 format) zeroed -- also when there is a single input.
// * Generic datatypes: ops.reduce.cb with n_vectors = 1, stride = count * contig_size bytes and
//   cb_ctx = ops.reduce.cb_ctx, once per binary step; `op` is ignored; AVG is not applied.
#pragma once

#include <ucc/api/ucc.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ucc::model {

// (dt, op) is in the supported matrix (VALIDITY.md V8). Predefined datatypes only.
bool op_supported(ucc_datatype_t dt, ucc_reduction_op_t op);

// Element-wise fold of `inputs` (each `count` elements of `dt`, in rank order) with `op`. AVG
// divides by inputs.size(). Throws std::invalid_argument for an unsupported (dt, op), a generic
// datatype without a reduce callback, or a callback that fails.
std::vector<uint8_t> fold(ucc_datatype_t dt, ucc_reduction_op_t op,
                          const std::vector<const void *> &inputs, size_t count);

// IEEE binary16 and bfloat16 conversions (float -> 16 bits rounds to nearest, ties to even; NaN
// stays NaN; to-float is exact).
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bfloat16_to_float(uint16_t b);
uint16_t float_to_bfloat16(float f);

// Number of meaningful bytes at the start of a 16-byte long double (10 for x87 extended precision);
// the rest is padding that reductions write as zero.
size_t long_double_value_bytes();

}  // namespace ucc::model
