// The CUDA component's reductions (reduce.cu): kernels on a stream, and the same
// arithmetic on the CPU for tests. Return values are CUDA runtime error codes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ucc/api/ucc.h"

namespace ucc::cuda {

bool reduce_supported(ucc_datatype_t dt, ucc_reduction_op_t op);
int reduce_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
                 size_t count, void *stream);
int avg_async(ucc_datatype_t dt, void *buf, size_t count, uint64_t n, void *stream);
int reduce_on_host(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a,
                   const void *b, size_t count);
int avg_on_host(ucc_datatype_t dt, void *buf, size_t count, uint64_t n);
// The fold of n inputs in one kernel (lib/cuda_component.h reduce_many_async).
int reduce_many_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *const *srcs,
                      uint32_t n, size_t count, void *stream);
int reduce_many_on_host(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst,
                        const void *const *srcs, uint32_t n, size_t count);

}  // namespace ucc::cuda
