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
// Its device allocations are memfds, so that its IPC is real: a handle names the
// exporting process and the memfd, and another process of the host maps the same
// pages through /proc/<pid>/fd (opening a handle of the calling process fails, as in
// CUDA). Its reduction "kernels" cover the common types (SUM, PROD, MIN, MAX; AVG
// on floating point) so that the IPC path reduces device data.
//
// FAKE_CUDA_DEVICES=0 in the environment makes it count no device; FAKE_CUDA_IPC=0
// makes every ipc_open fail. The test reads what moved through fake_cuda_stats().
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "lib/cuda_component.h"
#include "tests/fake_cuda/fake_streams.h"

namespace {

struct Region {
    size_t bytes;
    ucc_cuda_alloc_kind_t kind;
    int fd = -1;          // device allocations: the memfd (-1 for a mapping ipc_open made)
    uint64_t serial = 0;  // device allocations: this process's number for it
    bool opened = false;  // made by ipc_open
};

// The fake's IPC handle (UCC_CUDA_IPC_HANDLE_BYTES bytes).
struct Handle {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    uint32_t pad;
    uint64_t serial;
    uint64_t bytes;
};
static_assert(sizeof(Handle) <= UCC_CUDA_IPC_HANDLE_BYTES);
constexpr uint32_t kHandleMagic = 0x46414b45;  // "FAKE"

// A test double's state: one per process, as a real runtime's.
struct State {
    std::mutex mu;
    std::map<uintptr_t, Region> regions;
    uint64_t serials = 0;
    uint64_t stats[11] = {};  // device and pinned allocations, bytes to host and to device,
                              // streams created, stream writes queued, IPC opens and closes,
                              // reductions queued, bytes from device to device, 2D copies
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

std::string memfd_name(uint64_t serial) {
    return "fake-cuda-" + std::to_string(serial);
}

int alloc(ucc_cuda_alloc_kind_t kind, size_t bytes, void **out) {
    const size_t len = page_round(bytes == 0 ? 1 : bytes);
    *out = nullptr;
    if (kind != UCC_CUDA_ALLOC_DEVICE) {
        void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            return 2;  // cudaErrorMemoryAllocation
        }
        std::lock_guard<std::mutex> lock(state().mu);
        state().regions[reinterpret_cast<uintptr_t>(p)] = Region{len, kind};
        state().stats[1]++;
        *out = p;
        return 0;
    }
    std::lock_guard<std::mutex> lock(state().mu);
    const uint64_t serial = ++state().serials;
    const int fd = memfd_create(memfd_name(serial).c_str(), MFD_CLOEXEC);
    if (fd < 0) {
        return 2;
    }
    void *p = MAP_FAILED;
    if (ftruncate(fd, static_cast<off_t>(len)) == 0) {
        p = mmap(nullptr, len, PROT_NONE, MAP_SHARED, fd, 0);
    }
    if (p == MAP_FAILED) {
        close(fd);
        return 2;
    }
    state().regions[reinterpret_cast<uintptr_t>(p)] = Region{len, kind, fd, serial};
    state().stats[0]++;
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
    if (it->second.opened) {
        return 1;  // (ipc_close unmaps those)
    }
    munmap(ptr, it->second.bytes);
    if (it->second.fd >= 0) {
        close(it->second.fd);
    }
    state().regions.erase(it);
    return 0;
}

int ipc_get_handle(const void *ptr, void *handle, size_t *offset) {
    std::lock_guard<std::mutex> lock(state().mu);
    uintptr_t base = 0;
    const Region *r = find(reinterpret_cast<uintptr_t>(ptr), &base);
    if (r == nullptr || r->kind != UCC_CUDA_ALLOC_DEVICE || r->opened) {
        return 1;  // cudaErrorInvalidValue
    }
    Handle h{kHandleMagic, static_cast<int32_t>(getpid()), r->fd, 0, r->serial, r->bytes};
    std::memset(handle, 0, UCC_CUDA_IPC_HANDLE_BYTES);
    std::memcpy(handle, &h, sizeof h);
    *offset = reinterpret_cast<uintptr_t>(ptr) - base;
    return 0;
}

// The exporter's memfd, through /proc (-1 when it is gone or not the handle's).
int open_exported(const Handle &h) {
    const std::string path = "/proc/" + std::to_string(h.pid) + "/fd/" + std::to_string(h.fd);
    char target[256] = {};
    const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
    const std::string want = "/memfd:" + memfd_name(h.serial) + " ";
    if (n <= 0 || std::strncmp(target, want.c_str(), want.size()) != 0) {
        return -1;
    }
    const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) != h.bytes)) {
        close(fd);
        return -1;
    }
    return fd;
}

int ipc_open(const void *handle, void **base) {
    constexpr int kInvalidHandle = 400;  // cudaErrorInvalidResourceHandle
    Handle h{};
    std::memcpy(&h, handle, sizeof h);
    *base = nullptr;
    const char *v = std::getenv("FAKE_CUDA_IPC");
    if (h.magic != kHandleMagic || h.pid == static_cast<int32_t>(getpid()) ||
        (v != nullptr && std::strcmp(v, "0") == 0)) {
        return kInvalidHandle;
    }
    const int fd = open_exported(h);
    if (fd < 0) {
        return kInvalidHandle;
    }
    void *p = mmap(nullptr, h.bytes, PROT_NONE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return 2;
    }
    std::lock_guard<std::mutex> lock(state().mu);
    Region r{h.bytes, UCC_CUDA_ALLOC_DEVICE};
    r.opened = true;
    state().regions[reinterpret_cast<uintptr_t>(p)] = r;
    state().stats[6]++;
    *base = p;
    return 0;
}

int ipc_close(void *base) {
    std::lock_guard<std::mutex> lock(state().mu);
    auto it = state().regions.find(reinterpret_cast<uintptr_t>(base));
    if (it == state().regions.end() || !it->second.opened) {
        return 400;
    }
    munmap(base, it->second.bytes);
    state().regions.erase(it);
    state().stats[7]++;
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
    }
    if (src_dev) {
        open_device(src, PROT_NONE);
    }
    state().stats[dst_dev && src_dev ? 9 : dst_dev ? 3 : 2] += src_dev || dst_dev ? bytes : 0;
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

int copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                 size_t height, void *stream) {
    if (width == 0 || height == 0) {
        return 0;
    }
    {
        std::lock_guard<std::mutex> lock(state().mu);
        state().stats[10]++;
    }
    return fake::stream_enqueue(stream, [=] {
        for (size_t i = 0; i < height; ++i) {
            copy_now(static_cast<char *>(dst) + i * dpitch,
                     static_cast<const char *>(src) + i * spitch, width);
        }
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

// The "kernels": dst[i] = a[i] op b[i] on the stream's thread, the device regions
// opened meanwhile (under the lock, as a copy: no other access closes them).
template <class T>
void reduce_typed(ucc_reduction_op_t op, T *dst, const T *a, const T *b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        switch (op) {
            case UCC_OP_PROD:
                dst[i] = a[i] * b[i];
                break;
            case UCC_OP_MAX:
                dst[i] = a[i] < b[i] ? b[i] : a[i];
                break;
            case UCC_OP_MIN:
                dst[i] = b[i] < a[i] ? b[i] : a[i];
                break;
            default:  // SUM, and AVG's sums
                dst[i] = a[i] + b[i];
                break;
        }
    }
}

bool floating(ucc_datatype_t dt) {
    return dt == UCC_DT_FLOAT32 || dt == UCC_DT_FLOAT64;
}

int reduce_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    const bool type = dt == UCC_DT_INT32 || dt == UCC_DT_INT64 || dt == UCC_DT_UINT32 ||
                      dt == UCC_DT_UINT64 || floating(dt);
    const bool fn = op == UCC_OP_SUM || op == UCC_OP_PROD || op == UCC_OP_MAX || op == UCC_OP_MIN ||
                    (op == UCC_OP_AVG && floating(dt));
    return type && fn ? 1 : 0;
}

void reduce_now(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
                size_t n) {
    std::lock_guard<std::mutex> lock(state().mu);
    const void *ptrs[3] = {dst, a, b};
    bool opened[3] = {};
    for (int k = 0; k < 3; ++k) {
        opened[k] = open_device(ptrs[k], PROT_READ | PROT_WRITE);
    }
    switch (dt) {
        case UCC_DT_INT32:
            reduce_typed(op, static_cast<int32_t *>(dst), static_cast<const int32_t *>(a),
                         static_cast<const int32_t *>(b), n);
            break;
        case UCC_DT_INT64:
            reduce_typed(op, static_cast<int64_t *>(dst), static_cast<const int64_t *>(a),
                         static_cast<const int64_t *>(b), n);
            break;
        case UCC_DT_UINT32:
            reduce_typed(op, static_cast<uint32_t *>(dst), static_cast<const uint32_t *>(a),
                         static_cast<const uint32_t *>(b), n);
            break;
        case UCC_DT_UINT64:
            reduce_typed(op, static_cast<uint64_t *>(dst), static_cast<const uint64_t *>(a),
                         static_cast<const uint64_t *>(b), n);
            break;
        case UCC_DT_FLOAT32:
            reduce_typed(op, static_cast<float *>(dst), static_cast<const float *>(a),
                         static_cast<const float *>(b), n);
            break;
        default:
            reduce_typed(op, static_cast<double *>(dst), static_cast<const double *>(a),
                         static_cast<const double *>(b), n);
            break;
    }
    for (int k = 0; k < 3; ++k) {
        if (opened[k]) {
            open_device(ptrs[k], PROT_NONE);
        }
    }
}

int reduce_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
                 size_t count, void *stream) {
    if (reduce_supported(dt, op) == 0) {
        return 801;  // cudaErrorNotSupported
    }
    {
        std::lock_guard<std::mutex> lock(state().mu);
        state().stats[8]++;
    }
    return fake::stream_enqueue(stream, [=] {
        reduce_now(dt, op, dst, a, b, count);
        return 0;
    });
}

// The fold of n inputs: into a host accumulator step by step (so an input may be
// dst, and the result is n - 1 reduce_async calls'), then into dst.
int reduce_many_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *const *srcs,
                      uint32_t n, size_t count, void *stream) {
    if (reduce_supported(dt, op) == 0 || srcs == nullptr || n < 2 ||
        n > UCC_CUDA_REDUCE_MAX_INPUTS) {
        return 801;  // cudaErrorNotSupported
    }
    {
        std::lock_guard<std::mutex> lock(state().mu);
        state().stats[8]++;
    }
    const std::vector<const void *> in(srcs, srcs + n);
    const size_t bytes =
        count * (dt == UCC_DT_INT32 || dt == UCC_DT_UINT32 || dt == UCC_DT_FLOAT32 ? 4 : 8);
    return fake::stream_enqueue(stream, [=] {
        std::vector<unsigned char> acc(bytes);
        reduce_now(dt, op, acc.data(), in[0], in[1], count);
        for (uint32_t k = 2; k < n; ++k) {
            reduce_now(dt, op, acc.data(), acc.data(), in[k], count);
        }
        std::lock_guard<std::mutex> lock(state().mu);
        const bool opened = open_device(dst, PROT_READ | PROT_WRITE);
        std::memcpy(dst, acc.data(), bytes);
        if (opened) {
            open_device(dst, PROT_NONE);
        }
        return 0;
    });
}

int avg_async(ucc_datatype_t dt, void *buf, size_t count, uint64_t n, void *stream) {
    if (!floating(dt)) {
        return 801;
    }
    return fake::stream_enqueue(stream, [=] {
        std::lock_guard<std::mutex> lock(state().mu);
        const bool opened = open_device(buf, PROT_READ | PROT_WRITE);
        for (size_t i = 0; i < count; ++i) {
            if (dt == UCC_DT_FLOAT32) {
                static_cast<float *>(buf)[i] /= static_cast<float>(n);
            } else {
                static_cast<double *>(buf)[i] /= static_cast<double>(n);
            }
        }
        if (opened) {
            open_device(buf, PROT_NONE);
        }
        return 0;
    });
}
int reduce_on_host(ucc_datatype_t, ucc_reduction_op_t, void *, const void *, const void *, size_t) {
    return 801;
}
int avg_on_host(ucc_datatype_t, void *, size_t, uint64_t) {
    return 801;
}
int reduce_many_on_host(ucc_datatype_t, ucc_reduction_op_t, void *, const void *const *, uint32_t,
                        size_t) {
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
    &ipc_get_handle,
    &ipc_open,
    &ipc_close,
    &copy2d_async,
    &reduce_many_async,
    &reduce_many_on_host,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ucc_cuda_component_t *ucc_cuda_component_v1(
    uint32_t abi) {
    return abi == UCC_CUDA_COMPONENT_ABI ? &kFake : nullptr;
}

// [0] device allocations, [1] pinned and managed allocations, [2] bytes copied off
// the device, [3] bytes copied onto it, [4] streams created, [5] stream writes queued,
// [6] IPC handles opened, [7] closed, [8] reductions queued (a fold of n inputs: one), [9] bytes
// copied from device to device, [10] 2D copies queued.
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
