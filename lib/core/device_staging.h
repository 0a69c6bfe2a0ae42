// Collectives on CUDA device memory over a transport that moves host memory
// (Debian's UCX has no CUDA support): the algorithm runs on pinned host copies
// of the user's device buffers.
//
// At each post the device inputs are copied to the pinned copies (device to
// host over PCIe, on a stream of the request's own); the algorithm runs on them
// unchanged, so every collective, every datatype and op and the reduction order
// are the host's; when it completes, the outputs go back to the device. Cost
// per post: one device-to-host copy of the input extent and one host-to-device
// copy of the output extent, at the link's bandwidth, outside the collective's
// own time (lib/core/device_pipeline.h overlaps them for large allreduce,
// reduce and bcast; a GPU-aware UCX would move device memory directly). The
// stream is taken at init, the pinned copies at the first post that stages,
// from the library's pool (lib/core/staging_pool.h); both are kept for
// persistent re-posts and given back when the request is freed. Allreduce
// within a host reads device memory directly instead (lib/core/device_ipc.h).
//
// What is copied: src whenever the collective reads it; dst in as well when
// the collective leaves parts of it alone (in place, the v-collectives'
// displacements) so those parts come back unchanged; dst out, and bcast's
// buffer out at a non-root. CUDA_MANAGED memory needs none of this (the CPU
// reads it directly), and neither does a timing-only context.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/core/device_pipeline.h"
#include "lib/core/staging.h"
#include "lib/cuda_component.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

class Logger;

// What a post of `a` copies at one rank between the device and the host:
// src in whenever the collective reads it, dst in as well when it leaves
// parts of dst alone, dst out, and bcast's buffer out at a non-root (the
// plan both the staging and the simulator's charges follow).
struct DeviceCopies {
    uint64_t src_bytes = 0;   // src's extent when it is device memory (else 0)
    uint64_t dst_bytes = 0;   // dst's, likewise
    bool src_device = false;  // the user's src (dst) is device memory
    bool dst_device = false;
    bool dst_in = false;   // dst is copied in too (parts of it stay as they were)
    bool src_out = false;  // bcast at a non-root: src is the output
};

// The copies of `a` at `rank` of `size` (CUDA memory types only; CUDA_MANAGED
// needs none); false when an extent in bytes overflows.
bool plan_device_copies(const ucc::coll::Args &a, uint32_t size, uint32_t rank, DeviceCopies *out);

struct CollRequest;

// On the simulator, which moves no device memory: charges the rank's clock
// for the copies a real transport's staging would make for `r` (the inputs
// at its post, `out`: the outputs at its completion), each at the network
// model's pcie_lat + bytes / pcie_bw (lib/net/network_model.h).
void charge_device_copies(CollRequest &r, bool out);

class StagingPool;
class IpcCache;

struct DeviceStaging final : Staging {
    DeviceStaging(const ucc_cuda_component_t *ops, std::shared_ptr<StagingPool> pool, Logger *log)
        : ops(ops), pool(std::move(pool)), log(log) {}
    ~DeviceStaging() override;
    // The pinned copies, from the pool at the first post that stages (an
    // IPC post never does); logged under `fn` on failure.
    ucc_status_t take_copies(const char *fn);
    // At a post: the inputs to the pinned copies; run points at them.
    ucc_status_t stage_in(const ucc::coll::Args &a) override;
    // When the collective completed successfully: the outputs back (a
    // pipelined post copied them chunk by chunk already).
    ucc_status_t stage_out(const ucc::coll::Args &a) override;
    // Whatever the status: no copy of a pipelined post runs on after it.
    void settle() override;

    // Pipelined posts (defined in lib/core/device_pipeline.cc). At the post:
    // queues the inputs' copies chunk by chunk (as `p` cuts them) on the
    // stream, each chunk followed by a write of its number (1, 2, ...) into
    // arrived(), and points run at the pinned copies; nothing waits.
    ucc_status_t stage_in_chunks(const ucc::coll::Args &a, const ChunkPlan &p);
    // Chunk k's result is in the pinned copy: queues its copy to the device
    // on the second stream, followed by the write of k + 1 into delivered().
    ucc_status_t deliver_chunk(uint32_t k);
    // The counters the streams write (their low 32 bits; 64-bit words for
    // the transport's watch), in pinned memory.
    const uint64_t *arrived() const { return words; }
    const uint64_t *delivered() const { return words + 1; }
    // The two counters, from the pool at the first post that needs them
    // (a CUDA error code); zeroed.
    int take_words();
    // IPC posts (lib/core/device_ipc.h): gives the peers' mappings back to
    // the cache (after the stream's work on them finished).
    void unpin();

    const ucc_cuda_component_t *ops;
    std::shared_ptr<StagingPool> pool;  // where the buffers and the stream go back
    Logger *log;
    void *stream = nullptr;
    int stream_device = -1;    // the device the stream belongs to (-1: unknown)
    void *src_host = nullptr;  // pinned copies, at least copies.src_bytes and dst_bytes long
    void *dst_host = nullptr;
    uint64_t src_capacity = 0;  // their sizes in the pool
    uint64_t dst_capacity = 0;
    DeviceCopies copies;
    // Pipelined posts: the stream of the copies back, its device, the two
    // counters (a pinned buffer of the pool), the user's arguments of the
    // post and its chunking (plan.chunks == 0: the post is not pipelined).
    void *out_stream = nullptr;
    int out_stream_device = -1;
    uint64_t *words = nullptr;
    uint64_t words_capacity = 0;
    ucc::coll::Args user;
    ChunkPlan plan;
    // IPC posts: the post ran on the device buffers directly (nothing to
    // copy back); the peers' mappings it holds (IpcCache pins) and the cache.
    bool direct = false;
    std::shared_ptr<IpcCache> ipc;
    std::vector<void *> pins;
};

// The status a CUDA error code becomes: UCC_ERR_NO_MEMORY for an allocation
// that failed, UCC_ERR_NO_RESOURCE otherwise.
ucc_status_t cuda_status(int code);

// At init: whether `a` (resolved memory types, CUDA on src or dst) can run
// here, and its staging when it can. UCC_ERR_NOT_SUPPORTED with one log line
// when no CUDA device is usable or the collective cannot stage (generic
// datatypes, one-sided collectives).
ucc_status_t prepare_device_staging(const ucc::coll::Args &a, uint32_t size, uint32_t rank,
                                    const ucc_cuda_component_t *ops,
                                    std::shared_ptr<StagingPool> pool, Logger &log,
                                    std::unique_ptr<Staging> *out);

}  // namespace ucc::core
