// A stand-in for libucc_cuda.so on machines without a GPU: the component's table
// (lib/cuda_component.h) over host memory, so that the core's paths for CUDA memory
// run in CI. Its "device" memory is mapped PROT_NONE except while one of its own
// copies runs: a CPU access to it from the library (an algorithm reading a device
// buffer it should have staged) is a segmentation fault, and the test fails.
//
// Its streams are worker threads (fake_streams.h): copies and the stream engine's
// write and wait happen later, in order, as on a GPU; a test queues its own
// "kernels" with fake_cuda_stream_launch.
//
// FAKE_CUDA_DEVICES=0 in the environment makes it count no device. The test reads
// what moved through fake_cuda_stats().
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "lib/cuda_component.h"
#include "tests/fake_cuda/fake_streams.h"

namespace {

struct Region {
    size_t bytes;
    ucc_cuda_alloc_kind_t kind;
};

// A test double's state: one per process, as a real runtime's.
struct State {
    std::mutex mu;
    std::map<uintptr_t, Region> regions;
    uint64_t stats[6] = {};  // device and pinned allocations, bytes to host and to device,
                             // streams created, stream writes queued
};

State &state() {
    static State s;
    return s;
}

size_t page_round(size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (bytes + page - 1) / page * page;
}

// The region holding p (under mu), or nullptr.
const Region *find(uintptr_t p, uintptr_t *base) {
    auto &regions = state().regions;
    auto it = regions.upper_bound(p);
    if (it == regions.begin()) {
        return nullptr;
    }
    --it;
    if (p >= it->first + it->second.bytes) {
        return nullptr;
    }
    *base = it->first;
    return &it->second;
}

int device_count(char *why, size_t len) {
    const char *v = std::getenv("FAKE_CUDA_DEVICES");
    if (v != nullptr && std::strcmp(v, "0") == 0) {
        std::snprintf(why, len, "fake: no device");
        return 0;
    }
    return 1;
}

ucc_memory_type_t memory_type(const void *ptr) {
    std::lock_guard<std::mutex> lock(state().mu);
    uintptr_t base = 0;
    const Region *r = find(reinterpret_cast<uintptr_t>(ptr), &base);
    if (r == nullptr || r->kind == UCC_CUDA_ALLOC_HOST_PINNED) {
        return UCC_MEMORY_TYPE_HOST;
    }
    return r->kind == UCC_CUDA_ALLOC_DEVICE ? UCC_MEMORY_TYPE_CUDA : UCC_MEMORY_TYPE_CUDA_MANAGED;
}

int alloc(ucc_cuda_alloc_kind_t kind, size_t bytes, void **out) {
    const size_t len = page_round(bytes == 0 ? 1 : bytes);
    void *p = mmap(nullptr, len, kind == UCC_CUDA_ALLOC_DEVICE ? PROT_NONE : PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        *out = nullptr;
        return 2;  // cudaErrorMemoryAllocation
    }
    std::lock_guard<std::mutex> lock(state().mu);
    state().regions[reinterpret_cast<uintptr_t>(p)] = Region{len, kind};
    state().stats[kind == UCC_CUDA_ALLOC_DEVICE ? 0 : 1]++;
    *out = p;
    return 0;
}

int release(ucc_cuda_alloc_kind_t, void *ptr) {
    if (ptr == nullptr) {
        return 0;
    }
    std::lock_guard<std::mutex> lock(state().mu);
    auto it = state().regions.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == state().regions.end()) {
        return 1;  // cudaErrorInvalidValue
    }
    munmap(ptr, it->second.bytes);
    state().regions.erase(it);
    return 0;
}

int stream_create(void **stream) {
    *stream = fake::stream_new();
    std::lock_guard<std::mutex> lock(state().mu);
    state().stats[4]++;
    return 0;
}
int current_device(int *device) {
    *device = 0;
    return 0;
}
int stream_destroy(void *stream) {
    fake::stream_delete(stream);
    return 0;
}

// Opens (or closes) the device region holding p for the CPU; whether p is device memory.
bool open_device(const void *p, int prot) {
    uintptr_t base = 0;
    const Region *r = find(reinterpret_cast<uintptr_t>(p), &base);
    if (r == nullptr || r->kind != UCC_CUDA_ALLOC_DEVICE) {
        return false;
    }
    mprotect(reinterpret_cast<void *>(base), r->bytes, prot);
    return true;
}

void copy_now(void *dst, const void *src, size_t bytes) {
    std::lock_guard<std::mutex> lock(state().mu);
    const bool dst_dev = open_device(dst, PROT_READ | PROT_WRITE);
    const bool src_dev = open_device(src, PROT_READ | PROT_WRITE);
    std::memmove(dst, src, bytes);
    if (dst_dev) {
        open_device(dst, PROT_NONE);
        state().stats[3] += bytes;
    }
    if (src_dev) {
        open_device(src, PROT_NONE);
        state().stats[2] += bytes;
    }
}

int copy_async(void *dst, const void *src, size_t bytes, void *stream) {
    if (bytes == 0) {
        return 0;
    }
    return fake::stream_enqueue(stream, [=] {
        copy_now(dst, src, bytes);
        return 0;
    });
}

int stream_write_value(void *stream, uint32_t *addr, uint32_t value) {
    {
        std::lock_guard<std::mutex> lock(state().mu);
        state().stats[5]++;
    }
    return fake::stream_enqueue(stream, [=] {
        __atomic_store_n(addr, value, __ATOMIC_RELEASE);
        return 0;
    });
}

// A wait no write satisfies within a minute fails the stream (a GPU's would wait
// for ever; a test must not). It spins for its first millisecond, reacting to
// the write at once as a GPU's would (races with the host show), then sleeps.
int stream_wait_value(void *stream, const uint32_t *addr, uint32_t value) {
    return fake::stream_enqueue(stream, [=] {
        const auto start = std::chrono::steady_clock::now();
        const auto spin_until = start + std::chrono::milliseconds(1);
        const auto deadline = start + std::chrono::seconds(60);
        while (static_cast<int32_t>(__atomic_load_n(addr, __ATOMIC_ACQUIRE) - value) < 0) {
            const auto now = std::chrono::steady_clock::now();
            if (now > deadline) {
                return 702;  // cudaErrorLaunchTimeout
            }
            if (now > spin_until) {
                std::this_thread::sleep_for(std::chrono::microseconds(20));
            }
        }
        return 0;
    });
}

int reduce_supported(ucc_datatype_t, ucc_reduction_op_t) {
    return 0;
}
int reduce_async(ucc_datatype_t, ucc_reduction_op_t, void *, const void *, const void *, size_t,
                 void *) {
    return 801;  // cudaErrorNotSupported
}
int avg_async(ucc_datatype_t, void *, size_t, uint64_t, void *) {
    return 801;
}
int reduce_on_host(ucc_datatype_t, ucc_reduction_op_t, void *, const void *, const void *, size_t) {
    return 801;
}
int avg_on_host(ucc_datatype_t, void *, size_t, uint64_t) {
    return 801;
}
const char *error_string(int code) {
    switch (code) {
        case 2:
            return "fake: out of memory";
        case 702:
            return "fake: a stream wait was never satisfied";
        default:
            return "fake: error";
    }
}

constexpr ucc_cuda_component_t kFake = {
    UCC_CUDA_COMPONENT_ABI,
    sizeof(ucc_cuda_component_t),
    "fake",
    &device_count,
    &memory_type,
    &alloc,
    &release,
    &stream_create,
    &stream_destroy,
    &fake::stream_query,
    &fake::stream_sync,
    &copy_async,
    &reduce_supported,
    &reduce_async,
    &avg_async,
    &reduce_on_host,
    &avg_on_host,
    &error_string,
    &stream_write_value,
    &stream_wait_value,
    &current_device,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ucc_cuda_component_t *ucc_cuda_component_v1(
    uint32_t abi) {
    return abi == UCC_CUDA_COMPONENT_ABI ? &kFake : nullptr;
}

// [0] device allocations, [1] pinned and managed allocations, [2] bytes copied off
// the device, [3] bytes copied onto it, [4] streams created, [5] stream writes queued.
extern "C" __attribute__((visibility("default"))) const uint64_t *fake_cuda_stats() {
    return state().stats;
}

// A test's "kernel": fn(arg) runs on the stream after the work queued before it.
extern "C" __attribute__((visibility("default"))) int fake_cuda_stream_launch(void *stream,
                                                                              void (*fn)(void *),
                                                                              void *arg) {
    return fake::stream_enqueue(stream, [=] {
        fn(arg);
        return 0;
    });
}
