// The UCX transport: real processes and hosts over UCP (shared memory, TCP,
// InfiniBand: whatever UCX finds; UCX_TLS and UCX_NET_DEVICES restrict it).
//
//  * One UCP context and one worker per UCC context. The address a peer
//    learns through the OOB is [magic][sender index][length][pid][host key]
//    [worker address]; the sender index is the process's OOB ep (or, for a
//    context created without an OOB, a hash of its worker address, with
//    collisions refused at resolve); the host key names the host and PID
//    namespace the pid is valid in.
//  * Endpoints are created on first use (a send, a receive from that peer,
//    RMA). A peer that fails fails every transfer with it — receives posted
//    for it and sends in flight — with one log line naming the peer and the
//    cause. Every endpoint has an error handler, whatever its mode: without
//    one UCX 1.13 aborts the process when a transport fails on it (a CMA
//    rendezvous read from a process that died). UCX 1.13's shared-memory transports cannot report a
//    peer's failure, and UCX's peer error handling excludes them, so (default, PeerErrors::kAuto)
//    endpoints to a peer on another host use UCX's peer error handling, and endpoints within a host
//    use none (shared memory) while progress() checks, every 50 ms while transfers wait on such a
//    peer, that its process still exists. kPeer: UCX's error handling
//    everywhere (TCP within a host); kNone: no checks at all.
//  * Tagged send/receive on UCP tag matching. UCP matches no source, so the
//    sender's index is part of the UCP tag (lib/tag.h, "wire tag"); UCP keeps
//    messages of one sender and tag in order, which is the non-overtaking
//    lib/transport.h promises. Large messages go zero-copy by UCX rendezvous;
//    nothing is staged, except the transfers of a collective with a timeout
//    (Xfer::stage): a peer may read or write a rendezvous buffer long after
//    such a collective ended, so they go through a copy.
//  * RMA through ucp_mem_map; a packed remote key is unpacked once per peer
//    and key and cached until the transport goes away.
//  * progress() drives the worker; completions reach the core's sink from
//    inside it. now() is the monotonic wall clock. An idle poll yields the CPU
//    when the host runs more of the job's processes than the CPUs they may
//    run on together (the union of the affinities each address carries):
//    oversubscribed, as four ranks on two cores or two ranks bound to one.
//    Ranks bound to a core each busy-poll.
#pragma once

#include <sched.h>
#include <ucp/api/ucp.h>

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/transport.h"

namespace ucc::ucx {

// 64-bit words of a CPU set in a transport address (CPUs 0..1023).
inline constexpr uint32_t kCpuWords = 16;

// Creates the transport of one context (`why` names the cause on failure).
ucc_status_t create(const TransportParams &p, std::unique_ptr<Transport> *out, std::string *why);

class UcxTransport final : public Transport {
  public:
    UcxTransport() = default;
    ~UcxTransport() override;
    UcxTransport(const UcxTransport &) = delete;
    UcxTransport &operator=(const UcxTransport &) = delete;

    ucc_status_t init(const TransportParams &p, std::string *why);

    const char *name() const override { return "ucx"; }
    size_t address_length() const override { return address_.size(); }
    void address(void *out) const override {
        std::copy(address_.begin(), address_.end(), static_cast<uint8_t *>(out));
    }
    ucc_status_t resolve(const void *address, Peer *peer) override;
    Peer self() const override { return self_; }
    // The peer's host key (its address header; UINT64_MAX: unknown peer).
    uint64_t node_key(Peer peer) const override {
        auto it = peers_.find(peer);
        return it != peers_.end() ? it->second->host_key : UINT64_MAX;
    }

    ucc_status_t isend(Peer peer, Tag tag, const void *buf, size_t bytes, ucc_memory_type_t mem,
                       Xfer *x) override;
    ucc_status_t irecv(Peer peer, Tag tag, void *buf, size_t bytes, ucc_memory_type_t mem,
                       Xfer *x) override;
    void cancel(Xfer *x) override;

    ucc_status_t mem_register(void *base, size_t length, MemRegion *region) override;
    void mem_deregister(MemRegion *region) override;
    std::vector<uint8_t> rkey_pack(const MemRegion &region) override;
    ucc_status_t put(Peer peer, const void *src, size_t bytes, uint64_t remote_addr,
                     const std::vector<uint8_t> &rkey, Xfer *x) override;
    ucc_status_t get(Peer peer, void *dst, size_t bytes, uint64_t remote_addr,
                     const std::vector<uint8_t> &rkey, Xfer *x) override;
    ucc_status_t atomic_add(Peer peer, uint64_t remote_addr, uint64_t value,
                            const std::vector<uint8_t> &rkey, Xfer *x) override;
    ucc_status_t flush(Peer peer, Xfer *x) override;
    ucc_status_t fence() override;

    bool find_type_conflict(Tag base, Peer *peer, uint32_t *type_bit) override;
    int progress() override;
    double now() const override;
    // Nothing to do: when this host runs more processes of the job than this
    // process may use CPUs, give the CPU to them (a busy poll would keep a
    // peer on the same CPU from running until the scheduler's next tick).
    void idle(double) override {
        if (!told_polling_) [[unlikely]] {
            tell_polling();
        }
        if (oversubscribed_) {
            sched_yield();
        }
    }

  private:
    // Memory a request owns, freed with it (release()):
    //  * UCC_DESYNC_CHECK: each message travels as [signature][payload]. A
    //    send goes from a contiguous copy; a receive lands in an IOV of
    //    [signature][caller's buffer], or in `copy` when staged.
    //  * Xfer::stage: a send goes from `copy`; a receive lands in `copy` and
    //    reaches `dst` (the caller's buffer) only when it completes for a
    //    transfer not cancelled. UCX may read or write `copy` long after the
    //    collective ended (a peer stopped past its timeout); never the
    //    caller's memory.
    // Sends with the check always copy: a send UCX cannot withdraw never
    // reads the caller's buffer after its collective ended.
    // Anonymous memory of its own (mmap) that a copy lives in: leak checkers
    // do not track it, so a send's copy that a late reader may still need can
    // stay mapped on purpose when the transport goes (~UcxTransport).
    class Mapping {
      public:
        Mapping() = default;
        // `bytes` of fresh memory; empty when out of memory.
        static Mapping make(size_t bytes);
        Mapping(Mapping &&o) noexcept
            : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
        Mapping &operator=(Mapping &&o) noexcept;
        Mapping(const Mapping &) = delete;
        Mapping &operator=(const Mapping &) = delete;
        ~Mapping() { unmap(); }
        uint8_t *get() const { return p_; }
        size_t size() const { return bytes_; }
        explicit operator bool() const { return p_ != nullptr; }
        // Leaves the memory mapped until the process ends.
        void abandon() {
            p_ = nullptr;
            bytes_ = 0;
        }

      private:
        void unmap();
        uint8_t *p_ = nullptr;
        size_t bytes_ = 0;
    };

    struct Owned {
        uint64_t signature = 0;
        ucp_dt_iov_t iov[2] = {};
        Mapping copy;
        unsigned copy_class = 0;  // its capacity: kCopyClassMin << copy_class bytes
        size_t header = 0;        // bytes before the payload: the signature's, or 0
        size_t payload = 0;       // a receive's capacity, header excluded
        bool is_send = false;
        // Its place in detached_ once its transfer was cancelled (npos: none).
        size_t detached_at = SIZE_MAX;
        void *dst = nullptr;  // a staged receive's destination
    };
    // An Owned with at least `copy_bytes` of copy (uninitialised), from the
    // spares when one fits; nullptr when out of memory.
    std::unique_ptr<Owned> make_owned(size_t copy_bytes);
    // The copy of a message of `bytes` (with the signature's room under
    // UCC_DESYNC_CHECK); nullptr, with a log line naming `what` and the peer,
    // when out of memory.
    std::unique_ptr<Owned> copy_for(const char *what, Peer peer, size_t bytes);
    // Copies are kept for reuse, by power-of-two class, up to kSpareBytesMax
    // in all: a fresh copy of a large message costs a page fault per page and
    // its free a TLB shootdown (several times the copy itself, measured).
    static constexpr size_t kCopyClassMin = 4096;  // a page
    static constexpr unsigned kCopyClasses = 48;
    static constexpr size_t kSpareBytesMax = size_t{64} << 20;
    std::vector<Mapping> spares_[kCopyClasses];
    size_t spare_bytes_ = 0;

    // What a UCP request serves (UCP_PARAM_FIELD_REQUEST_SIZE bytes of it).
    struct Slot {
        Xfer *x;  // nullptr once the Xfer was cancelled or completed
        Peer peer;
        bool is_recv;
        Owned *owned = nullptr;  // freed with the request
        // Its place in its peer's list of receives or sends (no allocation per
        // message, unlike a set of requests).
        bool linked = false;
        Slot *prev = nullptr;
        Slot *next = nullptr;
    };

    // The UCP requests of one kind posted for a peer: a list through their slots.
    class SlotList {
      public:
        bool empty() const { return head_ == nullptr; }
        void link(Slot *s) {
            s->linked = true;
            s->prev = nullptr;
            s->next = head_;
            if (head_ != nullptr) {
                head_->prev = s;
            }
            head_ = s;
        }
        // Does nothing for a slot not in the list.
        void unlink(Slot *s) {
            if (!s->linked) {
                return;
            }
            (s->prev != nullptr ? s->prev->next : head_) = s->next;
            if (s->next != nullptr) {
                s->next->prev = s->prev;
            }
            s->linked = false;
            s->prev = s->next = nullptr;
        }
        // Empties the list, returning its slots.
        std::vector<Slot *> take() {
            std::vector<Slot *> out;
            while (head_ != nullptr) {
                out.push_back(head_);
                unlink(head_);
            }
            return out;
        }

      private:
        Slot *head_ = nullptr;
    };

    struct PeerState {
        UcxTransport *owner = nullptr;
        uint32_t sender = 0;  // its sender index (the wire tag's)
        std::vector<uint8_t> worker_address;
        ucp_ep_h ep = nullptr;
        bool ep_peer_errors = false;  // the endpoint has UCX's peer error handling
        uint32_t pid = 0;
        bool same_host = false;  // `pid` is valid here: liveness can be checked
        uint64_t host_key = 0;   // its host (and PID namespace)
        ucc_status_t failed = UCC_OK;
        SlotList recvs;  // UCP requests of receives posted for it
        SlotList sends;  // UCP requests of its sends and RMA in flight
        // Remote keys unpacked on this peer's endpoint, by packed bytes.
        std::map<std::vector<uint8_t>, ucp_rkey_h> rkeys;
    };

    static void request_init(void *request);
    // Frees a UCP request of ours and what its slot owns (its copy to the spares).
    void release(void *request);
    // Keeps `o`'s copy as a spare (within kSpareBytesMax) and frees the rest.
    void recycle(std::unique_ptr<Owned> o);
    // UCC_DESYNC_CHECK, a receive not staged: points the operation at
    // [signature][buf]; returns the buffer and count to hand UCP.
    static std::pair<void *, size_t> wrap(Owned *h, void *buf, size_t bytes,
                                          ucp_request_param_t *rp);
    // A receive's outcome through what it owns: the peer's signature checked
    // (a difference fails it with UCC_ERR_INVALID_PARAM), the payload's
    // length, and a staged payload copied to its destination; `length` is
    // what UCP received, signature included.
    static ucc_status_t unwrap(Owned &h, Xfer *x, ucc_status_t st, size_t length);
    // cancel(): waits, bounded, until UCX is done with the request in
    // `draining_` (a transfer with `peer`), so that the caller may free its
    // buffer; `what` names the transfer in the log line if it is not.
    void drain(Peer peer, const char *what);
    // The parameters of every UCP operation: its callback and this transport
    // as the callback's user data (a request's slot holds nothing yet while
    // the call that posts it runs).
    ucp_request_param_t op_params(bool recv);
    // Around the UCP call that posts an operation. UCX may complete the
    // request inside that call and still return it (a receive whose message's
    // remaining fragments had already arrived): the callback then runs before
    // the request is ours, finds posting_ set and a slot not linked, and leaves
    // the outcome here; settle() turns it into an immediate completion (NULL,
    // or an error status pointer) and frees the request. `length`: the length
    // received (receives).
    void begin_post() {
        posting_ = true;
        n_early_ = 0;
    }
    ucs_status_ptr_t settle(ucs_status_ptr_t r, size_t *length = nullptr);
    // From a callback: true when it ran during a posting call for a request
    // not yet ours (recorded for settle()).
    bool early(void *request, ucs_status_t status, size_t length);
    static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status);
    static void on_send(void *request, ucs_status_t status, void *user_data);
    static void on_recv(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                        void *user_data);
    static ucc_status_t to_ucc(ucs_status_t us);

    void log(const std::string &line, bool error = true) const;
    ucc_status_t endpoint(Peer peer, ucp_ep_h *ep);
    // `cause`: why, for the one log line naming the peer.
    // `gone`: the process is known to have exited (not only an endpoint
    // error, which a peer closing its context also raises): the core then
    // fails every collective that needs the peer.
    void peer_failed(PeerState &p, const std::string &cause, bool gone);
    ucc_status_t rkey(Peer peer, const std::vector<uint8_t> &packed, ucp_rkey_h *out);
    // Put (local -> remote) or get (remote -> local).
    ucc_status_t rma(bool is_put, Peer peer, void *local, size_t bytes, uint64_t remote_addr,
                     const std::vector<uint8_t> &key, Xfer *x);
    // Hands a non-blocking RMA result to the Xfer (at once or by callback).
    ucc_status_t track(ucs_status_ptr_t r, Peer peer, Xfer *x, const char *what);
    void close_endpoints();
    // Fails the transfers of same-host peers whose process is gone (kAuto).
    void check_liveness();
    void destroy_rma();

    TransportParams params_;
    ucp_context_h context_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    uint32_t sender_ = 0;
    std::vector<uint8_t> address_;
    Peer self_ = 0;
    // Peers by Peer id, which is the peer's sender index: the same number on
    // every process (its OOB ep), so ids are global like the simulator's.
    // Entries are never removed, so a PeerState's address is stable; `last_`
    // caches the latest lookup (every message looks its peer up two or three
    // times, and at two ranks it is always the same one).
    std::unordered_map<Peer, std::unique_ptr<PeerState>> peers_;
    // What the transfers cancelled while UCX still uses their copies own.
    // Held here, not through their requests: whatever UCX never completes
    // (its worker's destruction frees requests without a callback) is
    // still found, once, when the transport goes.
    std::vector<Owned *> detached_;
    void detach(Owned *o);
    void undetach(Owned *o);
    PeerState *last_ = nullptr;
    PeerState *find_peer(Peer id) {
        if (last_ == nullptr || last_->sender != id) {
            auto it = peers_.find(id);
            if (it == peers_.end()) {
                return nullptr;
            }
            last_ = it->second.get();
        }
        return last_;
    }
    PeerState &peer(Peer id) {
        PeerState *p = find_peer(id);
        return p != nullptr ? *p : *peers_.at(id);  // at() throws for an unknown id
    }
    uint64_t completions_ = 0;  // in the current progress() call
    // Requests completed inside the call that posted them (see begin_post).
    struct Early {
        void *request;
        ucs_status_t status;
        size_t length;
    };
    bool posting_ = false;
    Early early_[4] = {};
    uint32_t n_early_ = 0;
    uint64_t host_key_ = 0;
    // The processes of the job on this host (peers resolved there, itself
    // included) and the CPUs they may run on together (the union of their
    // affinities, from their addresses).
    uint32_t local_processes_ = 0;
    uint64_t local_cpus_[kCpuWords] = {};
    uint32_t local_cpu_count() const;
    bool oversubscribed_ = false;  // local_processes_ > local_cpu_count()
    bool told_polling_ = false;    // the polling decision was logged
    void tell_polling();
    uint64_t polls_ = 0;
    // cancel() of a transfer UCX may still use the buffer of: the request it
    // waits on, and whether UCX is done; the cancels between two progress()
    // calls (one collective's teardown) share one deadline.
    static constexpr double kCancelDrainS = 0.5;
    void *draining_ = nullptr;
    bool drained_ = false;
    bool in_drain_burst_ = false;
    double drain_deadline_ = 0;
    uint64_t closes_done_ = 0;     // endpoint closes completed (close_endpoints)
    bool worker_flushed_ = false;  // the worker's flush completed (close_endpoints)
    double last_liveness_check_ = 0;
};

}  // namespace ucc::ucx
