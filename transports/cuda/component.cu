// libucc_cuda.so: the CUDA runtime behind the table of lib/cuda_component.h.
//
// Each entry is one runtime call or a few; nothing here keeps state of its own (the
// runtime keeps its per-process device state, as it does for any CUDA program; the
// driver's entry points looked up once are constants of the process). The
// runtime is linked statically and opens the driver at its first call, so this
// object loads on a machine without one and `device_count` says why nothing is usable.
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

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

int copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                 size_t height, void *stream) {
    if (width == 0 || height == 0) {
        return 0;
    }
    auto s = static_cast<cudaStream_t>(stream);
    // cudaMemcpy2D refuses pitches beyond the device's limit (cudaDevAttrMaxPitch,
    // 2^31 - 1 on current GPUs): such rows go one copy each.
    constexpr size_t kMaxPitch = 0x7fffffff;
    if (dpitch <= kMaxPitch && spitch <= kMaxPitch) {
        return code(
            cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, s));
    }
    for (size_t i = 0; i < height; ++i) {
        const cudaError_t e = cudaMemcpyAsync(static_cast<char *>(dst) + i * dpitch,
                                              static_cast<const char *>(src) + i * spitch, width,
                                              cudaMemcpyDefault, s);
        if (e != cudaSuccess) {
            return code(e);
        }
    }
    return 0;
}

int reduce_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    return ucc::cuda::reduce_supported(dt, op) ? 1 : 0;
}

// The stream engine's handshake (lib/core/stream_gate.h says why): the driver's stream
// memory operations when it has them (a write or a wait executed by the GPU's front
// end, no SM used), else a one-thread kernel that does the same. The driver's entry
// points are looked up once, through the runtime (this object does not link
// libcuda.so): they are constants of the process, as the driver is.
struct StreamOps {
    PFN_cuStreamWriteValue32_v11070 write = nullptr;
    PFN_cuStreamWaitValue32_v11070 wait = nullptr;
};

const StreamOps &stream_ops() {
    static const StreamOps ops = [] {
        StreamOps o;
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", &fn, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess) {
            o.write = reinterpret_cast<PFN_cuStreamWriteValue32_v11070>(fn);
        }
        fn = nullptr;
        if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess) {
            o.wait = reinterpret_cast<PFN_cuStreamWaitValue32_v11070>(fn);
        }
        (void)cudaGetLastError();
        return o;
    }();
    return ops;
}

__global__ void write_value_kernel(uint32_t *addr, uint32_t value) {
    __threadfence_system();  // the stream's earlier writes before the flag
    *reinterpret_cast<volatile uint32_t *>(addr) = value;
    __threadfence_system();
}

__global__ void wait_value_kernel(const uint32_t *addr, uint32_t value) {
    const volatile uint32_t *p = addr;
    while (static_cast<int32_t>(*p - value) < 0) {
        __nanosleep(1000);
    }
}

// The device's address of pinned host memory (the same one under unified addressing).
cudaError_t device_address(const uint32_t *host, uint32_t **dev) {
    void *d = nullptr;
    const cudaError_t e = cudaHostGetDevicePointer(&d, const_cast<uint32_t *>(host), 0);
    *dev = static_cast<uint32_t *>(d);
    return e;
}

// Queues the write (or the wait) of `value` at `addr` on the stream: the driver's
// operation when it takes it, else the kernel.
int stream_value(bool wait, void *stream, const uint32_t *addr, uint32_t value) {
    uint32_t *dev = nullptr;
    if (const cudaError_t e = device_address(addr, &dev); e != cudaSuccess) {
        return code(e);
    }
    const auto s = static_cast<cudaStream_t>(stream);
    const auto cs = reinterpret_cast<CUstream>(s);
    const auto cp = reinterpret_cast<CUdeviceptr>(dev);
    const StreamOps &o = stream_ops();
    if (wait ? o.wait != nullptr && o.wait(cs, cp, value, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS
             : o.write != nullptr &&
                   o.write(cs, cp, value, CU_STREAM_WRITE_VALUE_DEFAULT) == CUDA_SUCCESS) {
        return 0;
    }
    if (wait) {
        wait_value_kernel<<<1, 1, 0, s>>>(dev, value);
    } else {
        write_value_kernel<<<1, 1, 0, s>>>(dev, value);
    }
    return code(cudaGetLastError());
}

int stream_write_value(void *stream, uint32_t *addr, uint32_t value) {
    return stream_value(false, stream, addr, value);
}

int stream_wait_value(void *stream, const uint32_t *addr, uint32_t value) {
    return stream_value(true, stream, addr, value);
}

int current_device(int *device) {
    return code(cudaGetDevice(device));
}

// CUDA IPC (lib/core/device_ipc.h). cudaIpcGetMemHandle wants an allocation's base:
// the driver's cuMemGetAddressRange finds it (looked up once, as the stream
// operations are).
PFN_cuMemGetAddressRange_v3020 address_range() {
    static const PFN_cuMemGetAddressRange_v3020 fn = [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault,
                                             &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess) {
            p = nullptr;
        }
        (void)cudaGetLastError();
        return reinterpret_cast<PFN_cuMemGetAddressRange_v3020>(p);
    }();
    return fn;
}

int ipc_get_handle(const void *ptr, void *handle, size_t *offset) {
    static_assert(sizeof(cudaIpcMemHandle_t) == UCC_CUDA_IPC_HANDLE_BYTES);
    const PFN_cuMemGetAddressRange_v3020 range = address_range();
    if (range == nullptr) {
        return code(cudaErrorNotSupported);
    }
    CUdeviceptr base = 0;
    size_t length = 0;
    if (range(&base, &length, reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) {
        return code(cudaErrorInvalidValue);
    }
    cudaIpcMemHandle_t h{};
    const cudaError_t e = cudaIpcGetMemHandle(&h, reinterpret_cast<void *>(base));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return code(e);
    }
    std::memcpy(handle, &h, sizeof h);
    *offset = reinterpret_cast<uintptr_t>(ptr) - static_cast<uintptr_t>(base);
    return 0;
}

int ipc_open(const void *handle, void **base) {
    cudaIpcMemHandle_t h{};
    std::memcpy(&h, handle, sizeof h);
    *base = nullptr;
    const cudaError_t e = cudaIpcOpenMemHandle(base, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky: the caller falls back to staging
    }
    return code(e);
}

int ipc_close(void *base) {
    return code(cudaIpcCloseMemHandle(base));
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
    &stream_write_value,
    &stream_wait_value,
    &current_device,
    &ipc_get_handle,
    &ipc_open,
    &ipc_close,
    &copy2d_async,
    &ucc::cuda::reduce_many_async,
    &ucc::cuda::reduce_many_on_host,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ucc_cuda_component_t *ucc_cuda_component_v1(
    uint32_t abi) {
    return abi == UCC_CUDA_COMPONENT_ABI ? &kComponent : nullptr;
}
