// Datatypes and reductions: what a ucc_datatype_t is (predefined id or generic
// descriptor), element sizes and names, the supported (datatype, op) matrix and the
// element-wise reduction kernels that collectives call on host memory.
//
// Predefined handles are id << 3 (low bits 000); generic handles are a pointer to a
// 16-byte-aligned Generic OR-ed with 1 (low bits 001), see API.md §3.4 and §2.2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ucc/api/ucc.h"

namespace ucc::dt {

// Number of predefined datatypes (ids 0 .. kPredefinedCount - 1).
inline constexpr uint64_t kPredefinedCount = 18;

// A user-defined datatype: its callbacks (copied by value at creation, flags already
// normalised to 0 when the FLAGS mask bit was absent) and the creation context.
struct alignas(16) Generic {
    ucc_generic_dt_ops_t ops;
    void *context;
};

// Classification. is_valid: a predefined id below kPredefinedCount, or a non-null
// generic handle (the descriptor itself cannot be checked).
bool is_predefined(ucc_datatype_t dt);
bool is_generic(ucc_datatype_t dt);
bool is_valid(ucc_datatype_t dt);

// Float-like: float16, bfloat16, float32, float64, float128 and the three complex
// types. Integer: int8..int128 and uint8..uint128. Both false for generic or invalid.
bool is_float_like(ucc_datatype_t dt);
bool is_complex(ucc_datatype_t dt);
bool is_integer(ucc_datatype_t dt);

// Element size in bytes: the §3.4 table for predefined types (float128 = 16, a long
// double with 6 padding bytes on x86-64; float128_complex = 32); a generic type's
// contig_size when it is CONTIG, else 0; 0 for an invalid handle.
size_t size_of(ucc_datatype_t dt);

// "int8", "float32", "bfloat16", "float64_complex", ...; "generic"; "unknown".
const char *name(ucc_datatype_t dt);
// "sum", "prod", "max", "min", "land", "lor", "lxor", "band", "bor", "bxor", "maxloc",
// "minloc", "avg"; "unknown" for anything else.
const char *op_name(ucc_reduction_op_t op);

// Inverse of name() / op_name() for tools and config: case-insensitive, an optional
// "ucc_dt_" / "ucc_op_" prefix is accepted ("float32", "UCC_DT_FLOAT32", "sum",
// "UCC_OP_MAX"). NULL argument: UCC_ERR_INVALID_PARAM; unknown name: UCC_ERR_NOT_FOUND
// (and *out is left unchanged).
ucc_status_t parse_datatype(const char *s, ucc_datatype_t *out);
ucc_status_t parse_op(const char *s, ucc_reduction_op_t *out);

// The descriptor behind a generic handle; nullptr when dt is not generic.
const Generic *generic_of(ucc_datatype_t dt);

// Generic types described by pack/unpack callbacks only (no CONTIG flag):
// collectives move them as packed bytes. `packed_elem_size` asks the callbacks
// for the packed size of one element (of `sample`, any buffer of the type;
// 0 when they give none). `pack`/`unpack` stream `count` elements between the
// user's buffer and `bytes` packed bytes; an error when the callbacks disagree
// with `bytes` or fail.
bool is_packed_generic(ucc_datatype_t dt);
size_t packed_elem_size(const Generic &g, const void *sample);
ucc_status_t pack(const Generic &g, const void *buf, uint64_t count, uint8_t *out, size_t bytes);
ucc_status_t unpack(const Generic &g, void *buf, uint64_t count, const uint8_t *in, size_t bytes);

// The support matrix (API.md §3.6, extended):
//   int8..int128, uint8..uint128: SUM PROD MAX MIN LAND LOR LXOR BAND BOR BXOR AVG
//   float16, bfloat16, float32, float64, float128: SUM PROD MAX MIN AVG
//   float32/64/128_complex: SUM PROD AVG
//   MAXLOC, MINLOC: never (no value-index pair types exist)
//   generic: iff FLAG_REDUCE is set and reduce.cb != NULL, whatever op is
// Everything else (bogus datatype or op values included) is unsupported.
bool reduction_supported(ucc_datatype_t dt, ucc_reduction_op_t op);
// The part of that matrix a GPU reduces (the CUDA component's kernels run the
// same element functions, elem.h): every predefined type but those a GPU does
// not have (float128, float128_complex: kDevice false); never generic types.
bool device_reducible(ucc_datatype_t dt, ucc_reduction_op_t op);

// dst[i] = a[i] op b[i] for i in [0, count), for a supported predefined (dt, op). dst
// may be the same pointer as a or b (but must not overlap them partially); buffers
// need no particular alignment. AVG reduces as SUM: call avg_finalize once at the
// end. Semantics per type class:
//   integers: two's-complement wrap-around; logical ops map non-zero to true and
//     produce 0 or 1; MAX/MIN compare as signed or unsigned per the type.
//   float16/bfloat16: each operation is done in float32 and rounded back to nearest
//     even (float32 has enough precision for this to equal a correctly rounded
//     operation in the narrow type).
//   floats: MAX is `a > b ? a : b`, MIN is `a < b ? a : b`, so when either input is a
//     NaN the result is b (no NaN propagation rule beyond that).
//   complex: SUM per part; PROD = (ac - bd, ad + bc) written out, no std::complex.
//   float128 (long double): the value bytes are written and padding bytes zeroed, so
//     results are bitwise reproducible whatever padding the inputs carried.
// Generic or unsupported combinations are a caller error (asserted, otherwise no-op).
void reduce(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
            size_t count);
// The kernel reduce() runs for (dt, op), to call without looking it up again;
// nullptr for generic or unsupported combinations.
using ReduceFn = void (*)(void *dst, const void *a, const void *b, size_t count);
ReduceFn reduce_fn(ucc_datatype_t dt, ucc_reduction_op_t op);

// A generic datatype's reduction: calls g.ops.reduce.cb once with src1 = a, src2 = b,
// dst, n_vectors = 1, count, stride = count * contig_size (bytes, §5 #17), dt = the
// descriptor (&g, as the reference does) and cb_ctx = g.ops.reduce.cb_ctx. Returns
// the callback's status; UCC_ERR_NOT_SUPPORTED when the type cannot reduce.
ucc_status_t reduce_generic(const Generic &g, void *dst, const void *a, const void *b,
                            size_t count);

// buf[i] = buf[i] / n, the tail of an AVG reduction, for a predefined dt that supports
// AVG. Integers: truncating division (toward zero) in the type's signedness, exact
// for every n; floats: division in the type (float16/bfloat16 via float32, rounded);
// complex: both parts; float128: padding zeroed. n == 0 leaves buf unchanged.
void avg_finalize(ucc_datatype_t dt, void *buf, size_t count, uint64_t n);

}  // namespace ucc::dt
