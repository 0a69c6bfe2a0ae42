// Collectives on CUDA device memory within one host through CUDA IPC:
// every collective that moves data, each rank reading
// its peers' device buffers directly (a handle of each, opened once and
// cached), so no byte of the data goes through host memory.
//
// The members exchange a card each (the IPC handles of the buffers the
// others read, their offsets, the process id: a peer in the same process is
// read at its address, with nothing opened) and map what they read; then
// they agree, by a dissemination AND, whether every member mapped every
// peer. If one did not (another host's GPU, a handle CUDA refused, the
// fake's processes without /proc access), all of them run the staged path
// instead (lib/core/device_staging.h: pinned host copies, the chosen
// algorithm). Otherwise each runs its steps on the devices
// (device_ipc_steps.h: what each collective reads and writes):
//   1. the reduction (allreduce, reduce_scatter): the member's block from
//      every member's src by one of the component's kernels, folding in rank
//      order ((s0 op s1) op s2 ...: bitwise the same result at every rank,
//      whatever the team's layout); allreduce then waits at a barrier;
//   2. the copies (allreduce: the other blocks from their owners' dst;
//      allgather, alltoall, bcast: the peers' src), device to device;
//   3. a closing barrier: nobody's buffers are read any more once a member
//      completes.
// The kernels and copies run on the staging's stream, and the coroutine
// waits for them through a stream write into a pinned counter (the
// transport's watch), so the host thread never blocks; the barriers carry
// a flag, so a member whose stream failed makes all fail together
// (UCC_ERR_NO_RESOURCE) rather than leave them waiting.
//
// Cost per rank, after n - 1 cards and a log2(n)-round agreement: allreduce
// one kernel reading n inputs of count/n elements, n - 1 copies of count/n
// elements and two barriers; reduce_scatter and reduce one kernel over its
// block and one barrier; allgather and alltoall n - 1 copies of a block and
// one barrier; gather n - 1 copies at the root; scatter and bcast one copy
// at a non-root (the v-variants alike). Device-to-device bandwidth (NVLink between GPUs, or
// the GPU's own memory on one); no PCIe crossing, where staging pays every
// byte each way over PCIe and the host's reduction.
//
// Where the device work runs is an IpcDevice: the CUDA component's stream on
// real processes (ipc_device_stream.cc), or, on the simulator, the ranks'
// host memory with each operation charged to the rank's clock at the network
// model's GPU and NVLink rates (ipc_device_sim.cc): the same protocol, its
// messages simulated like any others.
//
// Applies to allreduce and reduce_scatter(v) with src (or in place dst) and
// dst device memory and a (datatype, op) the kernels support (a component
// with reduce_many_async), reduce with src (or the root in place) device
// memory and such a (datatype, op), allgather(v) with src (or in place) and
// dst device memory, gather(v) with src (or the root in place) device
// memory, alltoall(v) out of place with both, scatter(v) with dst (the
// root: src) device memory, and bcast with a device buffer (a root's other
// buffer is checked when it exports it: host memory fails the export, and
// every member stages); 2 to kMaxIpcRanks members all on one host, no
// member checking arguments or synchronising collectives, no active set,
// DEVICE_IPC set (the default); every member must pass device memory (as
// the reference's TL/CUDA assumes: a member with host buffers runs the host
// algorithm and the others wait for it until their timeout).
#pragma once

#include <cstdint>
#include <memory>

#include "lib/coll/coll.h"
#include "lib/core/ipc_cache.h"
#include "lib/cuda_component.h"
#include "lib/util/task.h"

namespace ucc {
class SimulatedWorld;
}

namespace ucc::core {

struct CollRequest;
struct DeviceStaging;
class Logger;

// The most members the IPC path runs with (its first exchange is n^2 messages).
inline constexpr uint32_t kMaxIpcRanks = 32;

// What a member tells the others of one buffer.
struct IpcBuffer {
    uint8_t handle[UCC_CUDA_IPC_HANDLE_BYTES];
    uint64_t offset;   // in its allocation
    uint64_t address;  // as the member sees it (a peer of the same process reads it there)
};

struct IpcCard {
    uint32_t ok;      // the member exported its buffers
    int32_t pid;      // its process (IpcDevice::pid)
    IpcBuffer src;    // its input as the peers read it (device_ipc_steps.h ipc_own_buffers)
    IpcBuffer dst;    // (allreduce only)
    uint64_t offset;  // for the receiver (device_ipc_steps.h ipc_offset_for)
};

// Where the protocol's device work runs. Operations are queued in order and
// return an error code (0: queued); `peer`: an input is in a peer's memory.
class IpcDevice {
  public:
    virtual ~IpcDevice() = default;
    // The process whose addresses this member's cards carry.
    virtual int32_t pid() const = 0;
    // What the post needs before its card (false: this member cannot take part).
    virtual bool ready() = 0;
    virtual bool export_buffer(const void *p, IpcBuffer *out) = 0;
    // A buffer of another process's card, mapped here (nullptr: it cannot be).
    virtual uint8_t *import_buffer(const IpcBuffer &b) = 0;
    // dst = the rank-order fold of `n` inputs of `count` elements, in one
    // kernel (dst may be any input), `peers` of them in peer GPUs' memory.
    virtual int fold(const ucc::coll::Args &a, void *dst, const void *const *inputs, uint32_t n,
                     uint64_t count, uint32_t peers) = 0;
    virtual int avg(const ucc::coll::Args &a, void *buf, uint64_t count, uint32_t n) = 0;
    virtual int copy(void *dst, const void *src, uint64_t bytes, bool peer) = 0;
    // Waits (without blocking) for the work queued so far; `rc`: queuing
    // failed (logged, *fine false). `step` numbers the waits of a post.
    virtual ucc::Task reached(ucc::coll::Coll &c, int rc, uint32_t step, bool *fine) = 0;
    // A member could not map its peers': `alg` on staged copies instead.
    virtual ucc::Task staged(ucc::coll::Coll &c, ucc::coll::AlgFn alg,
                             ucc::coll::ScratchCache *scratch, bool may_end_early) = 0;
    // The collective runs on the user's buffers (nothing to copy back).
    virtual void direct() {}
    virtual Logger &log() = 0;
};

// Whether `r`'s post takes the IPC path (the conditions above; the same at
// every member, from the arguments, the team and the configuration).
bool device_ipc_applies(const CollRequest &r);

// The component's stream (the staging's) and the context's cache of mappings.
std::unique_ptr<IpcDevice> stream_ipc_device(DeviceStaging &s, std::shared_ptr<IpcCache> cache);
// The simulator's: host memory (nothing moved in a timing-only run), each
// operation charged to the rank's clock (lib/simulated.h Work::kGpu*).
std::unique_ptr<IpcDevice> sim_ipc_device(ucc::SimulatedWorld &world, Logger &log);

// The post's collective: the protocol above on `c`'s arguments (the user's
// device buffers), or `alg` on staged copies when a member could not map
// its peers (`scratch`: the request's scratch buffers).
ucc::Task run_device_ipc(ucc::coll::Coll &c, ucc::coll::AlgFn alg, std::unique_ptr<IpcDevice> dev,
                         ucc::coll::ScratchCache *scratch, bool may_end_early);

}  // namespace ucc::core
