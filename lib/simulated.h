// What a transport that simulates its world (transports/sim) offers beyond
// lib/transport.h, reached through Transport::simulated(): virtual compute
// costs, timing-only runs, a world that can give up (deadlock), a peer
// exchange that needs no per-rank table, timelines, the event trace the
// model's checkers read (traces/trace_event.h), and diagnosis (desync,
// resources a team left behind). A real transport has none of these; the core
// and the collectives ask for them only when `simulated()` is not null.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "lib/transport.h"
#include "traces/trace_event.h"

namespace ucc {

namespace select {
class MemoBook;
}

// What the core tells the world about a collective, for timelines.
struct SpanInfo {
    const char *collective = "";  // "allreduce", ...
    const char *algorithm = "";   // "recursive_doubling", ...
    const char *dtype = "";       // "float32", ...
    uint32_t team_id = 0;
    uint32_t seq = 0;  // sequence number (or tag) the collective runs under
    uint32_t team_size = 0;
    uint32_t rank = 0;  // this member's team rank
    uint64_t in_elems = 0;
    uint64_t out_elems = 0;
    Tag tag_base = 0;  // tags of its messages share this prefix (lib/tag.h kInstanceMask)
};

// Compute-cost classes the world charges virtual time for: copies and
// reductions of `bytes`, and the library's own time for one collective call
// (kCall, bytes unused: the network's o_call) and for initialising and
// finalizing one (kInit: o_init), a copy of `bytes` between a rank's GPU
// and its host memory (kDeviceCopy: pcie_lat + bytes / pcie_bw), and work on
// the rank's GPU within a node (lib/core/device_ipc.h): a copy within the GPU
// (kGpuCopy) or from a peer GPU's memory (kGpuPeerCopy) (the network model's
// gpu_copy_ps; its reduction kernels: SimulatedWorld::charge_gpu_fold).
enum class Work : uint8_t { kCopy, kReduce, kCall, kInit, kDeviceCopy, kGpuCopy, kGpuPeerCopy };

// What the world may run on a waiting rank's behalf (idle_draining): one pass
// of progress that never waits. Returns true when the pass did something the
// rank's program can see (a request completed, the world gave up), or when
// the rank must run for another reason; false: the rank goes on waiting.
//
// A world that runs a rank without a fiber of its own (a program in
// completion-callback style, ucc_sim.h UCC_SIM_FLAG_FIBERLESS) has no wait
// to drain: it runs step() on each of the rank's contexts (attach) whenever
// something reaches the rank, and the rank's program goes on in the
// callbacks those passes run.
class Drain {
  public:
    virtual bool drain() = 0;
    struct Step {
        bool again = false;  // another pass right away may find more
        double deadline = std::numeric_limits<double>::infinity();  // earliest timeout pending
    };
    virtual Step step() = 0;
    // Requests, team creations or OOB steps in flight: something may still
    // complete (and call back) without the program asking again.
    virtual bool busy() const = 0;
    // Where drain() reads first, for a world that fetches it ahead of time
    // (cache prefetches: never part of what a run does).
    const void *hot[3] = {};

  protected:
    ~Drain() = default;
};

class SimulatedWorld {
  public:
    virtual ~SimulatedWorld() = default;

    // Charge local compute (copies, reductions) to the rank's virtual clock;
    // `working`: the bytes of the rank's buffers of the collective it is
    // for (0: unknown), which decide whether it runs within the caches.
    virtual void charge(Work kind, size_t bytes, uint64_t working = 0) = 0;
    // A reduction kernel on the rank's GPU writing `bytes` from `inputs`
    // inputs as long, `peers` of them in peer GPUs' memory (the network
    // model's gpu_fold_ps).
    virtual void charge_gpu_fold(size_t bytes, uint32_t inputs, uint32_t peers) = 0;
    // Whether charges and transfers depend on their working set (a modelled
    // cache): else callers need not compute it.
    virtual bool wants_working_set() const { return false; }
    // Whether sends say when their payload is the caller's input
    // (Xfer::input): a world whose pulls of a buffer not written since its
    // last pull cost less than those of just-written data, in a run whose
    // inputs are not rewritten between calls.
    virtual bool wants_inputs() const { return false; }
    // True when payload bytes are not moved (timing-only simulation).
    virtual bool timing_only() const = 0;
    // True once the world has given up (a deadlock): nothing will ever
    // complete; unwind with an error.
    virtual bool aborted() const = 0;
    // Transport::idle() with no deadline, for a caller that would only loop
    // back into progress until `d` has something to show: while the rank
    // waits, the world may run d.drain() on its behalf each time something
    // arrives for this endpoint, without switching to the rank's stack, and
    // returns once a drain() returned true or anything else woke the rank.
    // The rank's clock, sends and costs are the same as if it had resumed
    // and called progress itself.
    virtual void idle_draining(Drain &d) = 0;
    // The context this endpoint serves (null: none now). A world that runs
    // ranks without a fiber progresses it through d->step().
    virtual void attach(Drain *d) = 0;
    // False on a rank without a fiber of its own: no call may wait for other
    // ranks (idle() returns at once), so a blocking exchange cannot be done.
    virtual bool can_wait() const = 0;

    // Peer exchange without per-rank O(n) memory, for a world that owns the
    // OOB: every participant of `oob` contributes its own peer and `value`;
    // the result maps each OOB ep to its peer — as a progression (start +
    // i*stride) or a table shared by all participants — and gives the max
    // value. UCC_ERR_NOT_SUPPORTED: use the OOB allgather.
    struct Exchange {
        std::shared_ptr<const std::vector<Peer>> table;  // null when arithmetic
        Peer start = 0;
        int64_t stride = 1;
        uint64_t max_value = 0;
        bool checks_agree = true;  // every participant gave the same `check`
    };
    virtual ucc_status_t exchange_post(const ucc_oob_coll_t &oob, uint64_t value, uint64_t check,
                                       void **req) = 0;
    // UCC_INPROGRESS until done (and may block the rank until its next
    // event); on any other status the request is released.
    virtual ucc_status_t exchange_test(void *req, Exchange *out) = 0;
    // Releases a request before it completed (its context is destroyed):
    // the exchange goes on for the others, this rank's endpoint in it.
    virtual void exchange_cancel(void *req) = 0;

    // Timelines: a collective starts / ends on this rank.
    virtual void trace_begin(const SpanInfo &span) = 0;
    virtual void trace_end(const SpanInfo &span, ucc_status_t status) = 0;
    // Timelines: a simulated CUDA stream of this rank, number `stream`
    // (lib/core/sim_stream.h): a collective was queued on it (kQueued), it
    // reached the collective (kBegin), the collective ended (kEnd, with its
    // span and status, UCC_INPROGRESS when the stream was released while it
    // ran; the others read only span.collective).
    enum class StreamMark : uint8_t { kQueued, kBegin, kEnd };
    virtual void trace_stream(uint32_t stream, StreamMark mark, const SpanInfo &span,
                              ucc_status_t status) = 0;

    // Desync diagnosis (after a failure): finds a message that arrived with a
    // tag t such that (t & mask) == (base & mask) but a signature other than
    // `signature`.
    virtual bool find_conflict(Tag base, Tag mask, uint64_t signature, Peer *peer,
                               uint64_t *theirs) const = 0;

    // The event trace (traces/trace_event.h): whether the run keeps one, and
    // the recording (rank and time are stamped here). A recording world also
    // records kSend/kRecv (and the buffer accesses they are) for transfers
    // whose Xfer names a `trace_req`.
    virtual bool recording() const = 0;
    virtual void record(TraceEvent &e) = 0;
    // Threads of a simulated rank (a program that drives one context from
    // several threads, UCC_THREAD_MULTIPLE): the world runs them as fibers
    // and switches between them at the library's yield points.
    // thread(): the calling thread (0 when the rank runs no threads).
    // yield_thread(): a yield point, where the world may run another thread
    // of the rank; `blocked`: the caller cannot go on before another thread
    // has run (it waits for the context's lock).
    virtual uint32_t thread() const = 0;
    virtual void yield_thread(bool blocked) = 0;

    // Fault injection: true when the world fails this visit of `site` (the
    // caller then fails as if the allocation had).
    virtual bool fail_allocation(AllocSite site) = 0;

    // Where the contexts of this world's ranks remember their selections by
    // cost (lib/select/memo.h): one book for the whole world, so that ranks
    // with alike settings predict each choice once; nullptr: each context
    // keeps its own.
    virtual select::MemoBook *memo_book() { return nullptr; }

    // In-network reduction (a switch tree that reduces, as SHARP; the
    // network's sharp_lat): whether this world has one.
    virtual bool reduces_in_network() const { return false; }
    // Sends this member's contribution (`count` elements, `bytes` bytes of
    // `buf`) to the reduction `tag` of `members` members whose member 0 is
    // the endpoint `first`. When every contribution is in, the switches fold
    // them in member order (acc = combine(acc, next), as dst = a (op) b) and
    // send the result to every member as a message from the member's own
    // endpoint under `tag` (its data went out and came back through the
    // switches), which the member receives with irecv. The contribution is
    // copied: `x` completes at once.
    using Combine = void (*)(void *dst, const void *a, const void *b, size_t count);
    virtual ucc_status_t reduce_in_network(Peer first, Tag tag, uint32_t member, uint32_t members,
                                           const void *buf, uint64_t count, size_t bytes,
                                           Combine combine, Xfer *x) {
        (void)first;
        (void)tag;
        (void)member;
        (void)members;
        (void)buf;
        (void)count;
        (void)bytes;
        (void)combine;
        (void)x;
        return UCC_ERR_NOT_SUPPORTED;
    }

    // Tagged operations still held for this endpoint (posted receives,
    // unexpected messages) whose tag t has (t & mask) == base: what a
    // resource-drift check counts for one team.
    virtual size_t pending_ops(Tag base, Tag mask) const = 0;
};

// An allocation site (AllocSite): throws std::bad_alloc when `world` fails it.
inline void alloc_site(SimulatedWorld *world, AllocSite site) {
    if (world != nullptr && world->fail_allocation(site)) [[unlikely]] {
        throw std::bad_alloc();
    }
}

}  // namespace ucc
