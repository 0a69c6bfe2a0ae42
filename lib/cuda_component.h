/*
 * The seam between libucc.so and its CUDA component, libucc_cuda.so.
 *
 * The component is a separate shared object so that a libucc.so built with the CUDA
 * Toolkit loads and runs where there is no GPU, no driver and no toolkit: the core
 * (lib/core/cuda_loader.cc) dlopens the component and asks it for this table; every
 * CUDA call happens behind it. The component links the CUDA runtime statically, and
 * the runtime finds the driver (libcuda.so) itself at the first call, so the
 * component loads everywhere and says through `device_count` whether a device is
 * usable.
 *
 * C only, versioned: `abi` is UCC_CUDA_COMPONENT_ABI; `size` is the table's size, and
 * later versions only append entries, so a core reads an entry only when `size` covers
 * it. Every entry that can fail returns a CUDA runtime error code (0 = success; the
 * text from `error_string`); `stream` arguments are cudaStream_t values (NULL: the
 * legacy default stream).
 */
#ifndef UCC_LIB_CUDA_COMPONENT_H_
#define UCC_LIB_CUDA_COMPONENT_H_

#include <stddef.h>
#include <stdint.h>

#include "ucc/api/ucc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UCC_CUDA_COMPONENT_ABI 1u
/* The one symbol the component exports: const ucc_cuda_component_t *(uint32_t abi). */
#define UCC_CUDA_COMPONENT_ENTRY "ucc_cuda_component_v1"
/* Its file name, looked up in the "ucc" directory beside libucc.so. */
#define UCC_CUDA_COMPONENT_FILE "libucc_cuda.so"
/* cudaErrorNotReady: what stream_query answers while work is queued. */
#define UCC_CUDA_NOT_READY 600
/* The most inputs reduce_many_async folds in one kernel. */
#define UCC_CUDA_REDUCE_MAX_INPUTS 32
/* The bytes of an IPC handle (cudaIpcMemHandle_t). */
#define UCC_CUDA_IPC_HANDLE_BYTES 64

typedef enum {
    UCC_CUDA_ALLOC_DEVICE = 0,     /* cudaMalloc */
    UCC_CUDA_ALLOC_MANAGED = 1,    /* cudaMallocManaged */
    UCC_CUDA_ALLOC_HOST_PINNED = 2 /* cudaHostAlloc (portable, mapped) */
} ucc_cuda_alloc_kind_t;

typedef struct ucc_cuda_component {
    uint32_t abi;
    uint32_t size;
    /* The toolkit the component was built with, "13.0". */
    const char *built_with;
    /* Devices usable by this process (> 0), or 0 with the reason in why[0..len). */
    int (*device_count)(char *why, size_t len);
    /* CUDA for device memory, CUDA_MANAGED for managed memory, HOST for anything
     * else (pageable or pinned host memory, or a pointer CUDA does not know). */
    ucc_memory_type_t (*memory_type)(const void *ptr);
    int (*alloc)(ucc_cuda_alloc_kind_t kind, size_t bytes, void **out);
    int (*free)(ucc_cuda_alloc_kind_t kind, void *ptr);
    int (*stream_create)(void **stream);
    int (*stream_destroy)(void *stream);
    /* 0 when everything queued on the stream has finished; UCC_CUDA_NOT_READY while
     * work is pending; another code when the stream failed. */
    int (*stream_query)(void *stream);
    int (*stream_sync)(void *stream);
    /* Any direction (cudaMemcpyDefault), queued on the stream. */
    int (*copy_async)(void *dst, const void *src, size_t bytes, void *stream);
    /* 1 when the device kernels reduce (dt, op): every predefined type but float128
     * and float128_complex (a GPU has no long double), every op the host supports. */
    int (*reduce_supported)(ucc_datatype_t dt, ucc_reduction_op_t op);
    /* dst[i] = a[i] op b[i] for i < count, as a kernel on the stream; AVG reduces as
     * SUM and avg_async divides once at the end, as on the host. */
    int (*reduce_async)(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a,
                        const void *b, size_t count, void *stream);
    int (*avg_async)(ucc_datatype_t dt, void *buf, size_t count, uint64_t n, void *stream);
    /* The kernels' arithmetic run on the CPU: the same __host__ __device__ functions
     * and loop the kernels run, compiled by the same compiler, on host memory. Tests
     * check it against the model on machines without a GPU. 0, or
     * cudaErrorInvalidValue for an unsupported (dt, op). */
    int (*reduce_on_host)(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a,
                          const void *b, size_t count);
    int (*avg_on_host)(ucc_datatype_t dt, void *buf, size_t count, uint64_t n);
    const char *(*error_string)(int code);
    /* The CUDA-stream execution engine's handshake (lib/core/stream_gate.h); `addr` is
     * pinned host memory from alloc(UCC_CUDA_ALLOC_HOST_PINNED).
     * stream_write_value: when the stream reaches this point (everything queued before
     * it has finished and its writes are visible), *addr = value.
     * stream_wait_value: the stream's later work waits until
     * (int32_t)(*addr - value) >= 0 (a cyclic comparison: counters may wrap).
     * Neither blocks the calling thread. */
    int (*stream_write_value)(void *stream, uint32_t *addr, uint32_t value);
    int (*stream_wait_value)(void *stream, const uint32_t *addr, uint32_t value);
    /* The calling thread's current device (cudaGetDevice): streams belong to the
     * device current when they were made (lib/core/staging_pool.h keeps them per
     * device). */
    int (*current_device)(int *device);
    /* CUDA IPC within a node (lib/core/device_ipc.h). ipc_get_handle: the handle
     * (UCC_CUDA_IPC_HANDLE_BYTES bytes) of the device allocation holding `ptr`
     * (cudaIpcGetMemHandle on its base) and ptr's offset in it. ipc_open: maps an
     * allocation another process of this host exported (cudaIpcOpenMemHandle, peer
     * access enabled as needed), *base its address here; a handle of the calling
     * process itself is an error, as in CUDA. ipc_close: unmaps what ipc_open mapped
     * (cudaIpcCloseMemHandle). */
    int (*ipc_get_handle)(const void *ptr, void *handle, size_t *offset);
    int (*ipc_open)(const void *handle, void **base);
    int (*ipc_close)(void *base);
    /* `height` rows of `width` bytes, row i from src + i * spitch to dst + i * dpitch,
     * any direction, queued on the stream (cudaMemcpy2DAsync; one copy per row where a
     * pitch exceeds what it takes). Pipelined staging's chunks of the blocks of every
     * member (lib/core/device_pipeline.h). */
    int (*copy2d_async)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                        size_t height, void *stream);
    /* dst[i] = ((srcs[0][i] op srcs[1][i]) op srcs[2][i]) ... op srcs[n-1][i], for i <
     * count and 2 <= n <= UCC_CUDA_REDUCE_MAX_INPUTS, in one kernel: bitwise n - 1
     * reduce_async calls through dst (rounded to the type at every step), each element's
     * inputs read before it is written (dst may be any input). AVG reduces as SUM. The
     * CUDA IPC path's reductions (lib/core/device_ipc.h). reduce_many_on_host: the same
     * arithmetic on the CPU, as reduce_on_host. */
    int (*reduce_many_async)(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst,
                             const void *const *srcs, uint32_t n, size_t count, void *stream);
    int (*reduce_many_on_host)(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst,
                               const void *const *srcs, uint32_t n, size_t count);
} ucc_cuda_component_t;

/* Whether `table` (of `table->size` bytes) has the entry `field`: a core built
 * against a later header reads an entry only when the component has it. */
#define UCC_CUDA_COMPONENT_HAS(table, field) \
    ((table)->size >= offsetof(ucc_cuda_component_t, field) + sizeof((table)->field))

typedef const ucc_cuda_component_t *(*ucc_cuda_component_entry_t)(uint32_t abi);

#ifdef __cplusplus
}
#endif

#endif /* UCC_LIB_CUDA_COMPONENT_H_ */
