// Pipelined staging of CUDA memory (lib/core/device_staging.h): allreduce,
// reduce and bcast of at least two chunks (DEVICE_PIPELINE bytes each, 4 MiB
// by default) run chunk by chunk on the pinned host copies, so that the
// copies between the device and the host overlap the transfers.
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
// engines while the host reduces or the network moves another chunk.
//
// Not pipelined (staged whole, as before): other collectives, a post below
// two chunks, synchronised teams (UCC_SYNC_COLLECTIVES), members checking
// their arguments (CHECK_ASYMMETRIC_DT), one-sided algorithms, an algorithm
// that does not support a chunk's count, a component without stream writes.
#pragma once

#include <cstdint>

#include "lib/coll/coll.h"
#include "lib/util/task.h"

namespace ucc::core {

struct CollRequest;
struct DeviceStaging;

// How many chunks `r`'s post runs in (0: not pipelined), and their length in
// elements (the last one may be shorter).
uint32_t device_pipeline_chunks(const CollRequest &r, uint64_t *chunk_elems);
// The same from the arguments alone (no staging, no component): what the
// simulator charges for (lib/core/device_staging.h charge_device_copies).
uint32_t pipeline_chunks(const CollRequest &r, uint64_t *chunk_elems);

// The post's collective: `alg` on each chunk of `whole`'s arguments (the
// pinned copies), waiting for each chunk's copy in and queuing its copy out
// (`s`); `scratch`: the request's scratch buffers, which every chunk reuses.
ucc::Task run_device_pipeline(ucc::coll::Coll &whole, ucc::coll::AlgFn alg, DeviceStaging &s,
                              ucc::coll::ScratchCache *scratch, bool may_end_early);

}  // namespace ucc::core
