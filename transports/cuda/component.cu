// libucc_cuda.so: the CUDA runtime behind the table of transports/cuda/cuda_component.h.
//
// Each entry is one runtime call or a few; nothing here keeps state of its own (the
// runtime keeps its per-process device state, as it does for any CUDA program). The
// runtime is linked statically and opens the driver at its first call, so this
// object loads on a machine without one and `device_count` says why nothing is usable.
#include <cuda_runtime.h>

#include <cstdio>

#include "lib/cuda_component.h"
#include "transports/cuda/reduce.h"

namespace {

int code(cudaError_t e) {
    return static_cast<int>(e);
}

int device_count(char *why, size_t len) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        if (why != nullptr && len > 0) {
            std::snprintf(why, len, "%s",
                          e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
        }
        (void)cudaGetLastError();  // not sticky: the next call starts clean
        return 0;
    }
    return n;
}

ucc_memory_type_t memory_type(const void *ptr) {
    cudaPointerAttributes attr{};
    if (ptr == nullptr || cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return UCC_MEMORY_TYPE_HOST;
    }
    switch (attr.type) {
        case cudaMemoryTypeDevice:
            return UCC_MEMORY_TYPE_CUDA;
        case cudaMemoryTypeManaged:
            return UCC_MEMORY_TYPE_CUDA_MANAGED;
        default:
            return UCC_MEMORY_TYPE_HOST;
    }
}

int alloc(ucc_cuda_alloc_kind_t kind, size_t bytes, void **out) {
    *out = nullptr;
    switch (kind) {
        case UCC_CUDA_ALLOC_DEVICE:
            return code(cudaMalloc(out, bytes));
        case UCC_CUDA_ALLOC_MANAGED:
            return code(cudaMallocManaged(out, bytes));
        case UCC_CUDA_ALLOC_HOST_PINNED:
            return code(cudaHostAlloc(out, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    }
    return code(cudaErrorInvalidValue);
}

int release(ucc_cuda_alloc_kind_t kind, void *ptr) {
    if (ptr == nullptr) {
        return 0;
    }
    return code(kind == UCC_CUDA_ALLOC_HOST_PINNED ? cudaFreeHost(ptr) : cudaFree(ptr));
}

int stream_create(void **stream) {
    cudaStream_t s = nullptr;
    const cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    *stream = s;
    return code(e);
}

int stream_destroy(void *stream) {
    return code(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
}

int stream_query(void *stream) {
    return code(cudaStreamQuery(static_cast<cudaStream_t>(stream)));
}

int stream_sync(void *stream) {
    return code(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
}

int copy_async(void *dst, const void *src, size_t bytes, void *stream) {
    if (bytes == 0) {
        return 0;
    }
    return code(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
}

int reduce_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    return ucc::cuda::reduce_supported(dt, op) ? 1 : 0;
}

const char *error_string(int c) {
    return cudaGetErrorString(static_cast<cudaError_t>(c));
}

#define UCC_CUDA_STR2(x) #x
#define UCC_CUDA_STR(x) UCC_CUDA_STR2(x)

constexpr ucc_cuda_component_t kComponent = {
    UCC_CUDA_COMPONENT_ABI,
    sizeof(ucc_cuda_component_t),
    UCC_CUDA_STR(__CUDACC_VER_MAJOR__) "." UCC_CUDA_STR(__CUDACC_VER_MINOR__),
    &device_count,
    &memory_type,
    &alloc,
    &release,
    &stream_create,
    &stream_destroy,
    &stream_query,
    &stream_sync,
    &copy_async,
    &reduce_supported,
    &ucc::cuda::reduce_async,
    &ucc::cuda::avg_async,
    &ucc::cuda::reduce_on_host,
    &ucc::cuda::avg_on_host,
    &error_string,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ucc_cuda_component_t *ucc_cuda_component_v1(
    uint32_t abi) {
    return abi == UCC_CUDA_COMPONENT_ABI ? &kComponent : nullptr;
}
