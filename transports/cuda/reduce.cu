// Reductions on GPU memory: one kernel per (datatype, op), built from the host's
// element arithmetic (lib/dt/elem.h), so a device reduction is bitwise the host's.
//
// A kernel is a grid-stride loop over `reduce_one`: thread t of a grid of T threads
// takes elements t, t + T, t + 2T, ... The same loop runs on the CPU with t = 0 and
// T = 1 (reduce_on_host), which is what tests without a GPU check against the model.
// Each element is independent and written once, so dst may be a or b exactly.
// The fold of n inputs (`fold_one`) is one such loop too: its inputs' addresses
// travel in the kernel's parameters (at most UCC_CUDA_REDUCE_MAX_INPUTS).
// Cost: memory-bound, 3 x count x size bytes of device traffic (a fold's n + 1
// x count x size, where n - 1 two-input kernels move 3 (n - 1)); the launch is
// 256 threads per block and at most 4,096 blocks (enough to fill an H100 several
// times over; more only adds scheduling).
#include "transports/cuda/reduce.h"

#include <cuda_runtime.h>

#include "lib/cuda_component.h"

#include "lib/dt/dt.h"
#include "lib/dt/elem.h"

namespace ucc::cuda {
namespace {

using namespace ucc::dt::elem;

constexpr unsigned kThreads = 256;
constexpr size_t kMaxBlocks = 4096;
constexpr size_t kOps = UCC_OP_LAST;

template <class Tr, class Op>
__host__ __device__ void reduce_range(Byte *d, const Byte *x, const Byte *y, size_t first,
                                      size_t stride, size_t count) {
    for (size_t i = first; i < count; i += stride) {
        reduce_one<Tr, Op>(d, x, y, i);
    }
}

// The inputs of a fold, by value in the kernel's parameters.
struct Inputs {
    const Byte *p[UCC_CUDA_REDUCE_MAX_INPUTS];
};

template <class Tr, class Op>
__host__ __device__ void fold_range(Byte *d, const Inputs &in, uint32_t n, size_t first,
                                    size_t stride, size_t count) {
    for (size_t i = first; i < count; i += stride) {
        fold_one<Tr, Op>(d, in.p, n, i);
    }
}

template <class Tr>
__host__ __device__ void avg_range(Byte *p, size_t first, size_t stride, size_t count, uint64_t n) {
    for (size_t i = first; i < count; i += stride) {
        avg_one<Tr>(p, i, n);
    }
}

template <class Tr, class Op>
__global__ void reduce_kernel(Byte *d, const Byte *x, const Byte *y, size_t count) {
    const size_t first = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    reduce_range<Tr, Op>(d, x, y, first, size_t{gridDim.x} * blockDim.x, count);
}

template <class Tr, class Op>
__global__ void fold_kernel(Byte *d, const Inputs in, uint32_t n, size_t count) {
    const size_t first = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    fold_range<Tr, Op>(d, in, n, first, size_t{gridDim.x} * blockDim.x, count);
}

template <class Tr>
__global__ void avg_kernel(Byte *p, size_t count, uint64_t n) {
    const size_t first = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
    avg_range<Tr>(p, first, size_t{gridDim.x} * blockDim.x, count, n);
}

unsigned blocks_for(size_t count) {
    const size_t b = (count + kThreads - 1) / kThreads;
    return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

template <class Tr, class Op>
int launch_reduce(void *d, const void *a, const void *b, size_t count, cudaStream_t s) {
    reduce_kernel<Tr, Op><<<blocks_for(count), kThreads, 0, s>>>(
        static_cast<Byte *>(d), static_cast<const Byte *>(a), static_cast<const Byte *>(b), count);
    return static_cast<int>(cudaGetLastError());
}

template <class Tr, class Op>
int launch_fold(void *d, const Inputs &in, uint32_t n, size_t count, cudaStream_t s) {
    fold_kernel<Tr, Op>
        <<<blocks_for(count), kThreads, 0, s>>>(static_cast<Byte *>(d), in, n, count);
    return static_cast<int>(cudaGetLastError());
}

template <class Tr>
int launch_avg(void *p, size_t count, uint64_t n, cudaStream_t s) {
    avg_kernel<Tr><<<blocks_for(count), kThreads, 0, s>>>(static_cast<Byte *>(p), count, n);
    return static_cast<int>(cudaGetLastError());
}

template <class Tr, class Op>
void host_reduce(void *d, const void *a, const void *b, size_t count) {
    reduce_range<Tr, Op>(static_cast<Byte *>(d), static_cast<const Byte *>(a),
                         static_cast<const Byte *>(b), 0, 1, count);
}

template <class Tr, class Op>
void host_fold(void *d, const Inputs &in, uint32_t n, size_t count) {
    fold_range<Tr, Op>(static_cast<Byte *>(d), in, n, 0, 1, count);
}

template <class Tr>
void host_avg(void *p, size_t count, uint64_t n) {
    avg_range<Tr>(static_cast<Byte *>(p), 0, 1, count, n);
}

using LaunchReduce = int (*)(void *, const void *, const void *, size_t, cudaStream_t);
using LaunchAvg = int (*)(void *, size_t, uint64_t, cudaStream_t);
using HostReduce = void (*)(void *, const void *, const void *, size_t);
using HostAvg = void (*)(void *, size_t, uint64_t);
using LaunchFold = int (*)(void *, const Inputs &, uint32_t, size_t, cudaStream_t);
using HostFold = void (*)(void *, const Inputs &, uint32_t, size_t);

struct Entry {
    LaunchReduce reduce[kOps];
    HostReduce host_reduce[kOps];
    LaunchFold fold[kOps];
    HostFold host_fold[kOps];
    LaunchAvg avg;
    HostAvg host_avg;
};

struct Table {
    Entry t[ucc::dt::kPredefinedCount];
};

// Device-capable types only (Tr::kDevice); the rest stay null: not supported.
Table make_table() {
    Table table{};
    for_each_type([&table]<class Tr>(uint64_t id, const char *) {
        if constexpr (Tr::kDevice) {
            Entry &e = table.t[id];
            e.avg = &launch_avg<Tr>;
            e.host_avg = &host_avg<Tr>;
            for_each_op<Tr>([&e]<class Op>(ucc_reduction_op_t op) {
                e.reduce[op] = &launch_reduce<Tr, Op>;
                e.host_reduce[op] = &host_reduce<Tr, Op>;
                e.fold[op] = &launch_fold<Tr, Op>;
                e.host_fold[op] = &host_fold<Tr, Op>;
            });
        }
    });
    return table;
}

const Table kTable = make_table();

const Entry *entry_of(ucc_datatype_t dt) {
    if ((dt & UCC_DATATYPE_CLASS_MASK) != UCC_DATATYPE_PREDEFINED) {
        return nullptr;
    }
    const uint64_t id = dt >> UCC_DATATYPE_SHIFT;
    return id < ucc::dt::kPredefinedCount ? &kTable.t[id] : nullptr;
}

int op_index(ucc_reduction_op_t op) {
    const auto i = static_cast<uint64_t>(op);
    return i < kOps ? static_cast<int>(i) : -1;
}

// The inputs of a fold of n (2 <= n <= the most), or false.
bool inputs_of(const void *const *srcs, uint32_t n, Inputs *in) {
    if (srcs == nullptr || n < 2 || n > UCC_CUDA_REDUCE_MAX_INPUTS) {
        return false;
    }
    for (uint32_t k = 0; k < n; ++k) {
        in->p[k] = static_cast<const Byte *>(srcs[k]);
    }
    return true;
}

}  // namespace

bool reduce_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    const Entry *e = entry_of(dt);
    const int i = op_index(op);
    return e != nullptr && i >= 0 && e->reduce[i] != nullptr;
}

int reduce_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
                 size_t count, void *stream) {
    if (!reduce_supported(dt, op)) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    if (count == 0) {
        return 0;
    }
    return entry_of(dt)->reduce[op_index(op)](dst, a, b, count, static_cast<cudaStream_t>(stream));
}

int reduce_many_async(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *const *srcs,
                      uint32_t n, size_t count, void *stream) {
    Inputs in{};
    if (!reduce_supported(dt, op) || !inputs_of(srcs, n, &in)) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    if (count == 0) {
        return 0;
    }
    return entry_of(dt)->fold[op_index(op)](dst, in, n, count, static_cast<cudaStream_t>(stream));
}

int reduce_many_on_host(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst,
                        const void *const *srcs, uint32_t n, size_t count) {
    Inputs in{};
    if (!reduce_supported(dt, op) || !inputs_of(srcs, n, &in)) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    entry_of(dt)->host_fold[op_index(op)](dst, in, n, count);
    return 0;
}

int avg_async(ucc_datatype_t dt, void *buf, size_t count, uint64_t n, void *stream) {
    const Entry *e = entry_of(dt);
    if (e == nullptr || e->avg == nullptr) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    if (count == 0 || n == 0) {
        return 0;
    }
    return e->avg(buf, count, n, static_cast<cudaStream_t>(stream));
}

int reduce_on_host(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a,
                   const void *b, size_t count) {
    if (!reduce_supported(dt, op)) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    entry_of(dt)->host_reduce[op_index(op)](dst, a, b, count);
    return 0;
}

int avg_on_host(ucc_datatype_t dt, void *buf, size_t count, uint64_t n) {
    const Entry *e = entry_of(dt);
    if (e == nullptr || e->host_avg == nullptr) {
        return static_cast<int>(cudaErrorInvalidValue);
    }
    if (n != 0) {
        e->host_avg(buf, count, n);
    }
    return 0;
}

}  // namespace ucc::cuda
