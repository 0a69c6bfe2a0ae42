// What each member of a collective over CUDA IPC (device_ipc.h) does with
// its peers' device buffers, once every member has mapped them: which of its
// own buffers it shows the others, which of theirs it reads, and the device
// work of its steps. The protocol (cards, mapping, barriers) is device_ipc.cc.
//
//   allreduce       reduce block r of the vector from every src, in rank
//                   order, into its dst; a barrier; copy the other blocks
//                   from their owners' dst.
//   reduce_scatter  reduce its result block from block r of every src, in
//                   rank order, into its dst.
//   allgather       copy every peer's src into block p of its dst.
//   alltoall        copy block r of every peer's src into block p of its dst.
//   bcast           a non-root copies the root's buffer into its own.
//   reduce          fold block r of the vector from every src, in rank order,
//                   into the root's dst (a write into the root's memory).
//   gather(v)       the root copies every peer's src to its block (or
//                   displacement) of its dst.
//   scatter(v)      a non-root copies its block of the root's src (at the
//                   offset the root's card names) into its dst.
//   allgatherv      copy every peer's src to its displacement in dst.
//   reduce_scatterv reduce its result block (at its prefix of the counts in
//                   every src) into its dst (in place: at that prefix).
//   alltoallv       copy from every peer's src the block that peer sends it
//                   (at the displacement the peer's card names) to its
//                   displacement in dst.
//
// Reductions fold in rank order ((s0 op s1) op s2 ...) in one kernel that
// reads every input of an element before writing it, so every member's
// result is bitwise the same whatever the team's layout, and in place needs
// no scratch; AVG divides once.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/coll/coll.h"

namespace ucc::core {

class IpcDevice;

// A member's own buffers as the protocol sees them: `src` (its input, as
// the peers read it) and `dst` (its output; read by peers in an allreduce,
// written by them at a reduce's root); nullptr where it has none.
struct IpcOwn {
    void *src = nullptr;
    void *dst = nullptr;
};
IpcOwn ipc_own_buffers(const ucc::coll::Args &a, uint32_t me);

// What a member's card to peer p names besides its buffers: the offset in
// bytes, in its src, of the block it sends p (alltoallv; 0 otherwise).
uint64_t ipc_offset_for(const ucc::coll::Args &a, uint32_t p);

// Whether member `me` shows its peers its src, and its dst (exports them
// in its card), and whether it reads peer p's src, and p's dst.
bool ipc_shows_src(const ucc::coll::Args &a, uint32_t me);
bool ipc_shows_dst(const ucc::coll::Args &a, uint32_t me);
bool ipc_reads_src(const ucc::coll::Args &a, uint32_t me, uint32_t p);
bool ipc_reads_dst(const ucc::coll::Args &a, uint32_t p);
// Whether the root's buffer that the decision (device_ipc_applies) leaves
// out is device memory: a reduce's dst, a scatter's src (true elsewhere).
// Not: the member says so in its card, and every member stages.
bool ipc_root_buffer_on_device(const ucc::coll::Args &a, uint32_t me);

// The peers' buffers as this member reads them (its own included), and the
// offsets their cards named for it (ipc_offset_for).
struct IpcPeers {
    std::vector<uint8_t *> src;
    std::vector<uint8_t *> dst;
    std::vector<uint64_t> offset;
};

// The step that reduces (allreduce, reduce_scatter; 0 and nothing queued for
// the others), and the step that copies (allreduce after a barrier,
// allgather, alltoall, bcast): an error code, as IpcDevice's operations.
bool ipc_reduces(const ucc::coll::Args &a);
bool ipc_copies(const ucc::coll::Args &a);
int ipc_reduce_step(const ucc::coll::Args &a, uint32_t n, uint32_t me, IpcDevice &dev,
                    const IpcPeers &peers);
int ipc_copy_step(const ucc::coll::Args &a, uint32_t n, uint32_t me, IpcDevice &dev,
                  const IpcPeers &peers);

}  // namespace ucc::core
