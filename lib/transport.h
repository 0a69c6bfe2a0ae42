// The one seam between the library and the world.
//
// Algorithms (lib/coll) and the core (lib/core) talk to a network only through
// this interface; a transport (transports/sim, transports/ucx, ...) implements
// it and never learns which collective is running.
//
// Model:
//  * A transport object belongs to one UCC context. It has an address (an
//    opaque byte string) that peers learn through the OOB exchange; `resolve`
//    turns a peer's address into a `Peer` id used for all traffic.
//  * Tagged point-to-point: `isend`/`irecv` with a 64-bit tag. Messages from one
//    sender to one receiver with one tag are matched in posting order
//    (non-overtaking). Nothing else about order is promised.
//  * Every operation takes a caller-owned `Xfer` that must stay alive until it
//    completes or is cancelled. Completion sets `Xfer::status` and calls the
//    completion sink (if one is set) from inside `progress()` or, for
//    operations that complete at once, before the posting call returns (then
//    without calling the sink).
//  * RMA: register memory, pack a remote key, put/get/atomic add against a
//    peer's registered memory, flush to wait for remote completion.
//  * `now()` is the transport's clock in seconds (virtual on the simulator).
//  * `idle(deadline)`: the caller found nothing to do; a simulated transport
//    blocks the calling rank until its next event or `deadline` (virtual
//    seconds), a real one may return at once or yield the CPU.
//  * What only a simulated world can do (virtual compute costs, timing-only
//    runs, timelines, the event trace, diagnosis) is not here: a transport
//    that simulates offers it through `simulated()` (lib/simulated.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lib/tag.h"
#include "traces/trace_event.h"
#include "ucc/api/ucc.h"

namespace ucc {

using Peer = uint64_t;
using Tag = uint64_t;

struct Xfer;

// Receives completions of asynchronous transfers.
class CompletionSink {
  public:
    virtual ~CompletionSink() = default;
    virtual void on_complete(Xfer *x) = 0;
    // A peer failed (its process died): every collective that needs it must
    // fail, also those that wait on it only through other members. Called
    // from inside progress(); the sink acts on it after the transport's pass.
    virtual void on_peer_failed(Peer peer) { (void)peer; }
};

// A transfer request, owned by the caller (usually a collective's coroutine frame).
struct Xfer {
    // (The members are laid out without padding: a collective holds one per
    // message in flight, each a pool block of its own, lib/util/pool.h.)
    ucc_status_t status = UCC_OPERATION_INITIALIZED;  // UCC_INPROGRESS while posted
    uint32_t peer_index = 0;         // the caller's name for the peer (e.g. team rank)
    size_t bytes = 0;                // bytes actually received (recv) / sent (send)
    void *owner = nullptr;           // for the sink: who waits on this transfer
    void *transport_priv = nullptr;  // private to the transport (for cancel)
    // Opaque description of the operation this transfer belongs to (0: none).
    // A transport that can carry it compares the sender's and the receiver's
    // at matching: on a difference the receive fails with UCC_ERR_INVALID_PARAM
    // and `peer_signature` holds the sender's (desync detection).
    uint64_t signature = 0;
    uint64_t peer_signature = 0;
    // Receives: the length the caller expects (its buffer's capacity); a
    // message of another length is a desync the caller reports (kNotRecv: a
    // send or RMA).
    static constexpr size_t kNotRecv = SIZE_MAX;
    size_t expected = kNotRecv;
    // A simulated world that models caches: the bytes of the rank's buffers
    // of the collective this transfer belongs to (0: unknown).
    uint64_t working_set = 0;
    // Event trace (recording transports only): the request this transfer
    // belongs to (0: none), and which user buffer `buf` lies in, at what offset.
    uint64_t trace_req = 0;
    uint64_t trace_offset = 0;
    TraceBuffer trace_buffer = TraceBuffer::kNone;
    // The caller may cancel this transfer while its peer goes on (a collective
    // with a timeout) and then free the buffer: a transport that cannot stop a
    // transfer in flight (a UCX rendezvous, read or written by the peer's side
    // at any later time) copies through memory it owns and frees it when the
    // transfer ends. Host memory only.
    bool stage = false;
    // The library's own data (a team split's membership): a simulated world
    // moves it even in a timing-only run, where payloads are not moved.
    bool carry = false;
    // A simulated world whose pulls of just-written data cost more (sends
    // only): the payload lies in the caller's input buffer (src), which the
    // collective does not write.
    bool input = false;
    bool done() const { return status != UCC_INPROGRESS && status != UCC_OPERATION_INITIALIZED; }
};

// Registered memory, local side.
struct MemRegion {
    void *base = nullptr;
    size_t length = 0;
    void *transport_priv = nullptr;
};

class SimulatedWorld;
namespace cost {
struct Params;
}

class Transport {
  public:
    virtual ~Transport() = default;

    // Human-readable name: "sim", "ucx", "self".
    virtual const char *name() const = 0;

    // ---- addressing ----
    virtual size_t address_length() const = 0;
    virtual void address(void *out) const = 0;
    // Turn a peer's address (as exchanged through the OOB) into a Peer id.
    virtual ucc_status_t resolve(const void *address, Peer *peer) = 0;
    // This transport's own Peer id (what resolve() of its own address gives).
    virtual Peer self() const = 0;

    // ---- topology (the hierarchical algorithms; lib/coll/topology.h) ----
    // A key equal for the peers on one node (host), different across nodes.
    virtual uint64_t node_key(Peer peer) const {
        (void)peer;
        return 0;
    }
    // When peers first .. first + count - 1 are consecutive ranks of a world
    // whose nodes hold `*ppn` ranks each: true, with `*world_first` the
    // rank of `first` (the simulator; a topology then needs no table).
    virtual bool regular_nodes(Peer first, uint64_t count, uint64_t *world_first,
                               uint32_t *ppn) const {
        (void)first;
        (void)count;
        (void)world_first;
        (void)ppn;
        return false;
    }

    // ---- the network, for selection by cost (lib/cost/cost.h) ----
    // Its parameters, world rank r on node r / ppn; nullptr: unknown (the
    // core then selects by its built-in rules). Lives as long as the
    // transport.
    virtual const cost::Params *cost_params() const { return nullptr; }

    // ---- tagged point-to-point ----
    virtual ucc_status_t isend(Peer peer, Tag tag, const void *buf, size_t bytes,
                               ucc_memory_type_t mem, Xfer *x) = 0;
    // `bytes` is the capacity of `buf`; a longer message is an error
    // (UCC_ERR_NO_MESSAGE on the Xfer, the data truncated to nothing, and
    // `Xfer::bytes` the message's length when the transport knows it, else
    // `bytes` + 1). A shorter one completes with its length in `Xfer::bytes`.
    virtual ucc_status_t irecv(Peer peer, Tag tag, void *buf, size_t bytes, ucc_memory_type_t mem,
                               Xfer *x) = 0;
    // Withdraw a posted, not yet completed transfer. After cancel the transport
    // never touches the Xfer again, nor its buffer: a transfer it cannot stop
    // goes through a copy (Xfer::stage) or is waited for, bounded, before
    // cancel returns. Cancelling a completed Xfer is a no-op.
    virtual void cancel(Xfer *x) = 0;

    // ---- RMA ----
    virtual ucc_status_t mem_register(void *base, size_t length, MemRegion *region) = 0;
    virtual void mem_deregister(MemRegion *region) = 0;
    // Serialised remote key of a region, to hand to peers.
    virtual std::vector<uint8_t> rkey_pack(const MemRegion &region) = 0;
    // Write `bytes` from `src` into the peer's registered memory at `remote_addr`
    // (an address inside the region whose packed key is `rkey`). Completes
    // locally when `src` may be reused; remote completion needs flush().
    virtual ucc_status_t put(Peer peer, const void *src, size_t bytes, uint64_t remote_addr,
                             const std::vector<uint8_t> &rkey, Xfer *x) = 0;
    virtual ucc_status_t get(Peer peer, void *dst, size_t bytes, uint64_t remote_addr,
                             const std::vector<uint8_t> &rkey, Xfer *x) = 0;
    // Atomically add `value` to the 64-bit word at `remote_addr`.
    virtual ucc_status_t atomic_add(Peer peer, uint64_t remote_addr, uint64_t value,
                                    const std::vector<uint8_t> &rkey, Xfer *x) = 0;
    // Complete when every put/atomic issued so far to `peer` is visible there.
    virtual ucc_status_t flush(Peer peer, Xfer *x) = 0;
    // Every put and atomic issued after the fence is applied at its target
    // after every one issued before it to the same target (no waiting).
    virtual ucc_status_t fence() = 0;
    // Complete `x` (UCC_OK) once the 64-bit word at `word`, in this process's
    // registered memory and changed by peers' atomic_add, reads at least
    // `at_least` (checked now and at each progress(); cancel() withdraws it).
    // One-sided collectives count their arrivals so.
    ucc_status_t watch(const uint64_t *word, uint64_t at_least, Xfer *x) {
        x->bytes = 0;
        if (word_at_least(word, at_least)) {
            x->status = UCC_OK;
            return UCC_OK;
        }
        x->status = UCC_INPROGRESS;
        try {
            watches_.push_back({x, word, at_least});
        } catch (...) {
            x->status = UCC_ERR_NO_MEMORY;
            return UCC_ERR_NO_MEMORY;
        }
        return UCC_OK;
    }
    // Whether a watch waits (the simulator then wakes the rank when an RMA
    // operation lands in its memory).
    bool watching() const { return !watches_.empty(); }

    // ---- progress and time ----
    // Drive completions; returns how many transfers completed in this call.
    virtual int progress() = 0;
    virtual double now() const = 0;
    virtual void idle(double deadline) = 0;

    // A collective instance (tags `base` | step) failed: is a message of
    // another collective type waiting unmatched under the same instance (a
    // peer that posted another collective at this sequence number)? Then
    // its sender and its type (the tag's type field, lib/tag.h). Real
    // transports answer from their unexpected-message queue; the simulator
    // answers through simulated() with whole signatures.
    virtual bool find_type_conflict(Tag base, Peer *peer, uint32_t *type_bit) {
        (void)base;
        (void)peer;
        (void)type_bit;
        return false;
    }

    // The simulated world's extras (lib/simulated.h); nullptr for a real
    // transport. Constant for the transport's lifetime.
    virtual SimulatedWorld *simulated() { return nullptr; }

    void set_sink(CompletionSink *sink) { sink_ = sink; }

  protected:
    // Call when a peer is known to have failed.
    void peer_failed_notify(Peer peer) {
        if (sink_ != nullptr) {
            sink_->on_peer_failed(peer);
        }
    }
    // Call when an Xfer completes asynchronously.
    void complete(Xfer *x, ucc_status_t st) {
        x->status = st;
        if (sink_ != nullptr) {
            sink_->on_complete(x);
        }
    }
    // For progress(): completes the watches whose word reached its value;
    // how many.
    int poll_watches() {
        int n = 0;
        for (size_t i = 0; i < watches_.size();) {
            if (word_at_least(watches_[i].word, watches_[i].at_least)) {
                Xfer *x = watches_[i].x;
                watches_[i] = watches_.back();
                watches_.pop_back();
                complete(x, UCC_OK);
                ++n;
            } else {
                ++i;
            }
        }
        return n;
    }
    // For cancel(): withdraws `x` when it is a watch (true).
    bool cancel_watch(Xfer *x) {
        for (size_t i = 0; i < watches_.size(); ++i) {
            if (watches_[i].x == x) {
                watches_[i] = watches_.back();
                watches_.pop_back();
                return true;
            }
        }
        return false;
    }

  private:
    static bool word_at_least(const uint64_t *word, uint64_t at_least) {
        return __atomic_load_n(word, __ATOMIC_ACQUIRE) >= at_least;
    }
    struct Watch {
        Xfer *x;
        const uint64_t *word;
        uint64_t at_least;
    };
    CompletionSink *sink_ = nullptr;
    std::vector<Watch> watches_;
};

// ---- the transport registry
//
// The core chooses a context's transport from a table of the transports built
// into the library (generated by CMake from the UCC_WITH_* options; the core
// includes no transport). Each transport defines one TransportEntry.

// What a transport learns about the context it is asked to serve.
struct TransportParams {
    bool has_oob = false;          // the context was created with an OOB
    uint32_t oob_ep = 0;           // this process's OOB ep (when has_oob)
    uint32_t n_oob_eps = 0;        // OOB members (when has_oob)
    bool thread_multiple = false;  // several threads may call into the context at once
    // How a peer that dies is noticed (the transfers waiting on it fail):
    //  kAuto: the fastest paths that still notice — on one host by the peer
    //         process's liveness (UCX: shared memory), across hosts by the
    //         transport's own error handling;
    //  kPeer: the transport's error handling on every path (UCX 1.13: no
    //         shared memory, TCP even within a host);
    //  kNone: not at all: a dead peer is left to collective timeouts.
    enum class PeerErrors : uint8_t { kAuto, kPeer, kNone };
    PeerErrors peer_errors = PeerErrors::kAuto;
    // DESYNC_CHECK: every message carries its Xfer's signature, and a
    // receive whose sender's differs fails with UCC_ERR_INVALID_PARAM and
    // `peer_signature` set (what the simulator always does). Every process
    // of a job must agree on it.
    bool desync_check = false;
    // Where the transport reports after creation, one line each (a failure:
    // the peer and the cause; `error` false: a debug line); nullptr: stderr.
    void (*log)(void *log_ctx, bool error, const char *line) = nullptr;
    void *log_ctx = nullptr;
};

// What every rank of one in-process world (a simulation's run) would compute
// alike, computed once for the run: the core keeps its own kind of share
// (lib/core/config.h: the configuration file as read) in the world's slot,
// and the world destroys it with the run. Read-only once made.
class RunShare {
  public:
    virtual ~RunShare() = default;
};

struct TransportEntry {
    const char *name;         // as UCC_TLS names it: "sim", "ucx", "self"
    const char *alias;        // another accepted name ("ucp" for ucx), or nullptr
    const char *description;  // one line, for ucc_info and logs
    // Whether it would serve a context with these params when not forced;
    // when not, `why` says so in a few words.
    bool (*available)(const TransportParams &p, std::string *why);
    // Creates it (also when forced by UCC_TLS); on failure `why` names the cause.
    ucc_status_t (*create)(const TransportParams &p, std::unique_ptr<Transport> *out,
                           std::string *why);
    // Called inside a rank of a world that runs many ranks in this process:
    // that run's slot for the core's RunShare. Null (the function, or what
    // it returns): no such world here; the core computes per call.
    std::unique_ptr<RunShare> *(*run_share)() = nullptr;
};

// Every transport built in, in the order the core prefers them (generated).
std::span<const TransportEntry> transport_table();

}  // namespace ucc
