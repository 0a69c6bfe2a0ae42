// Pipelined staging of CUDA memory (lib/core/device_staging.h): allreduce,
// reduce, bcast, allgather, alltoall and reduce_scatter of at least two
// chunks (DEVICE_PIPELINE bytes each, 4 MiB by default) run chunk by chunk
// on the pinned host copies, so that the copies between the device and the
// host overlap the transfers.
//
// A chunk of a vector collective (allreduce, reduce, bcast) is a range of
// the vector. A chunk of a block collective is the same range of every
// member's block (allgather's dst, alltoall's src and dst, reduce_scatter's
// src and in-place dst): its pieces are copied together by one 2D copy
// (the component's copy2d_async) into a packed region of the pinned copy,
// n pieces back to back, where the collective runs on blocks of the
// chunk's length; the result's pieces go back by one 2D copy too. The
// pinned copies stay as large as a whole staging's, chunk after chunk.
//
// At the post every chunk's input copy is queued on the staging's stream,
// each followed by a stream write of its number (1, 2, ...) into a pinned
// counter, and the post returns without waiting. The collective's coroutine
// then, for each chunk in turn: waits until the counter says the chunk is on
// the host (the transport's watch polls it, as one-sided collectives wait
// on their counters), runs the chosen algorithm on that chunk's elements,
// and queues the chunk's result copy to the device on a second stream,
// followed by a write into a second counter; the collective completes once
// that counter reaches the last chunk. Chunks run one after another under
// the collective's tags (per-pair non-overtaking keeps them apart), on every
// rank the same, since the chunking depends only on the arguments.
//
// Cost: where a whole-buffer staging pays copy in + collective + copy out,
// the pipeline pays about one chunk's copy in, the collective's time (plus
// its latency once per chunk), and one chunk's copy out: for a 256 MiB
// allreduce at 25 GB/s each way, about 2 x 0.17 ms of copies on the critical
// path instead of 2 x 10.7 ms. Copies of a chunk run on the GPU's copy
// engines while the host reduces or the network moves another chunk. A block
// collective's chunk holds DEVICE_PIPELINE bytes on its larger side (n
// pieces): its blocks are cut in pieces of DEVICE_PIPELINE / n bytes.
//
// Not pipelined (staged whole, as before): the v-collectives, gather and
// scatter, a post below two chunks, synchronised teams
// (UCC_SYNC_COLLECTIVES), members checking their arguments
// (CHECK_ASYMMETRIC_DT), one-sided algorithms, an algorithm that does not
// support a chunk's count, a component without stream writes (or, for a
// block collective, without 2D copies).
#pragma once

#include <cstdint>

#include "lib/coll/coll.h"
#include "lib/util/task.h"

namespace ucc::core {

struct CollRequest;
struct DeviceStaging;

// How a post is cut: `chunks` (0: not pipelined) of `elems` elements of each
// block (the last chunk's may be fewer), src and dst holding `src_pieces`
// and `dst_pieces` blocks (1: the vector, or one block; n: every member's).
struct ChunkPlan {
    uint32_t chunks = 0;
    uint64_t elems = 0;
    uint32_t src_pieces = 1;
    uint32_t dst_pieces = 1;
    // Chunk k's range [*first, *first + *len) of each block of `count`.
    void range(uint64_t count, uint32_t k, uint64_t *first, uint64_t *len) const;
    // The bytes of a side's chunk (`pieces` blocks of the longest chunk).
    uint64_t bytes(uint32_t pieces, size_t esize) const { return elems * pieces * esize; }
};

// How `r`'s post is cut (plan->chunks 0: not pipelined).
void device_pipeline_plan(const CollRequest &r, ChunkPlan *plan);
// The same from the arguments alone (no staging, no component): what the
// simulator charges for (lib/core/device_staging.h charge_device_copies).
void pipeline_plan(const CollRequest &r, ChunkPlan *plan);

// The post's collective: `alg` on each chunk of `whole`'s arguments (the
// pinned copies), waiting for each chunk's copy in and queuing its copy out
// (`s`); `scratch`: the request's scratch buffers, which every chunk reuses.
ucc::Task run_device_pipeline(ucc::coll::Coll &whole, ucc::coll::AlgFn alg, DeviceStaging &s,
                              ucc::coll::ScratchCache *scratch, bool may_end_early);

}  // namespace ucc::core
