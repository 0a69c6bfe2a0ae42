// Allreduce (and bcast) on CUDA device memory within one host through CUDA IPC: each
// rank reads its peers' device buffers directly (a handle of each, opened
// once and cached), so no byte of the vector goes through host memory.
//
// The members exchange a card each (the IPC handles of their src and dst,
// their offsets, the process id: a peer in the same process is read at its
// address, with nothing opened) and map what the others exported; then they
// agree, by a dissemination AND, whether every member mapped every peer. If
// one did not (another host's GPU, a handle CUDA refused, the fake's
// processes without /proc access), all of them run the staged path instead
// (lib/core/device_staging.h: pinned host copies, the chosen algorithm).
// Otherwise, reduce-scatter then allgather, both on the devices:
//   1. rank r owns block r of the vector (count split into n nearly equal
//      blocks) and reduces it from every member's src with the component's
//      kernels, in rank order ((s0 op s1) op s2 ...: bitwise the same
//      result at every rank, whatever the team's layout), into its dst
//      (in place, from rank 2 on, through a device scratch block: its own
//      input is still to be read); AVG divides once at the end;
//   2. a barrier (every block reduced), then each rank copies the other
//      blocks from their owners' dst into its own (device to device);
//   3. a closing barrier: nobody's buffers are read any more once a member
//      completes.
// The kernels and copies run on the staging's stream, and the coroutine
// waits for them through a stream write into a pinned counter (the
// transport's watch), so the host thread never blocks; the barriers carry
// a flag, so a member whose stream failed makes all fail together
// (UCC_ERR_NO_RESOURCE) rather than leave them waiting.
//
// Cost: n - 1 reduction kernels over count/n elements and n - 1 copies of
// count/n elements, per rank, at the device-to-device bandwidth (NVLink
// between GPUs, or the GPU's own memory on one), plus 2 log2(n) + 1 small
// message rounds; no PCIe crossing. Staging pays count elements each way
// over PCIe and the host's reduction.
//
// Bcast takes the same path: cards and agreement (a non-root maps only the
// root's buffer), then each non-root copies the root's buffer into its own
// (device to device), then the closing barrier.
//
// Applies to allreduce with src (or in place dst) and dst device memory
// and a (datatype, op) the kernels support, and to bcast with a device
// buffer; 2 to kMaxIpcRanks members all on
// one host, no member checking arguments or synchronising collectives, no
// active set, DEVICE_IPC set (the default); every member must pass device
// memory (as the reference's TL/CUDA assumes: a member with host buffers
// runs the host algorithm and the others wait for it until their timeout).
#pragma once

#include <cstdint>
#include <memory>

#include "lib/coll/coll.h"
#include "lib/core/ipc_cache.h"
#include "lib/cuda_component.h"
#include "lib/util/task.h"

namespace ucc::core {

struct CollRequest;
struct DeviceStaging;

// The most members the IPC path runs with (its first exchange is n^2 messages).
inline constexpr uint32_t kMaxIpcRanks = 32;

// Whether `r`'s post takes the IPC path (the conditions above; the same at
// every member, from the arguments, the team and the configuration).
bool device_ipc_applies(const CollRequest &r);

// The post's collective: the protocol above on `c`'s arguments (the user's
// device buffers), or `alg` on staged copies when a member could not map
// its peers (`scratch`: the request's scratch buffers).
ucc::Task run_device_ipc(ucc::coll::Coll &c, ucc::coll::AlgFn alg, DeviceStaging &s,
                         std::shared_ptr<IpcCache> cache, ucc::coll::ScratchCache *scratch,
                         bool may_end_early);

}  // namespace ucc::core
