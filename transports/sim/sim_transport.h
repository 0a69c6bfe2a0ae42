// The simulator's transport: one endpoint of the simulated cluster.
//
// A SimTransport belongs to the rank that created it (through make_transport()
// from inside that rank) and must only be used from that rank. Its address is
// its 8-byte endpoint id: a rank's first endpoint has id == rank, its k-th
// later one n_ranks * k + rank.
//
// Semantics (see lib/transport.h for the interface):
//  * isend copies the payload (eager; no copy in timing-only mode) and
//    completes at once (UCC_OK before it returns, no sink call). The sender pays
//    o_send; the NIC serialises messages (gap g + bytes * G); the message
//    arrives L + bytes * G (+ jitter) after it leaves the NIC.
//  * Messages with one (sender, receiver, tag) arrive in sending order; others
//    may overtake each other (jitter, tie-breaks).
//  * progress() moves arrived messages into matching: the oldest posted irecv
//    with the same (peer, tag), else the unexpected queue; irecv first takes
//    the oldest unexpected message. The receiver pays o_recv per match. A
//    message longer than the receive buffer completes the receive with
//    UCC_ERR_NO_MESSAGE and bytes = 0.
//  * RMA: put copies its source at once (local completion) and writes the
//    target at arrival; atomic_add adds at arrival; get is a request and a
//    reply; flush(peer) completes when every put/atomic issued to `peer` before
//    it has been applied and acknowledged. RMA operations from one endpoint to
//    one peer are applied in issue order.
//  * isend/irecv/put/get/atomic_add/flush return UCC_OK when accepted (the Xfer
//    then says whether it completed at once) or an error for bad arguments.
//  * cancel() withdraws a pending receive, get or flush; the Xfer's status is
//    left as it was (UCC_INPROGRESS) and never touched again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/simulated.h"
#include "lib/transport.h"
#include "lib/util/common.h"
#include "transports/sim/cluster.h"
#include "transports/sim/small_map.h"

namespace ucc::sim {

// Counters per endpoint, for tests and reports.
struct EndpointStats {
    uint64_t msgs_sent = 0;
    uint64_t bytes_sent = 0;
    uint64_t msgs_recv = 0;  // matched receives
    uint64_t bytes_recv = 0;
    uint64_t unexpected = 0;  // messages that arrived before their receive
    uint64_t direct = 0;      // sends written straight into a posted receive
    uint64_t puts = 0;
    uint64_t gets = 0;
    uint64_t atomics = 0;
    uint64_t flushes = 0;
};

class SimTransport final : public ucc::Transport, public ucc::SimulatedWorld {
  public:
    // Use make_transport(); the cluster constructs endpoints.
    SimTransport(Cluster *cluster, uint32_t rank, uint64_t id);
    ~SimTransport() override;
    SimTransport(const SimTransport &) = delete;
    SimTransport &operator=(const SimTransport &) = delete;

    const char *name() const override { return "sim"; }
    size_t address_length() const override { return sizeof(uint64_t); }
    void address(void *out) const override;
    ucc_status_t resolve(const void *address, Peer *peer) override;
    Peer self() const override { return id_; }
    uint64_t node_key(Peer peer) const override;
    bool regular_nodes(Peer first, uint64_t count, uint64_t *world_first,
                       uint32_t *ppn) const override;

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
    // RMA operations to one peer are applied in issue order already.
    ucc_status_t fence() override { return UCC_OK; }

    int progress() override;
    double now() const override;
    void idle(double deadline) override;
    ucc::SimulatedWorld *simulated() override { return this; }
    const ucc::cost::Params *cost_params() const override;
    bool has_arrivals() const { return inbox_head_ != nullptr; }

    // ---- lib/simulated.h ----
    ucc_status_t exchange_post(const ucc_oob_coll_t &oob, uint64_t value, uint64_t check,
                               void **req) override;
    ucc_status_t exchange_test(void *req, Exchange *out) override;
    void exchange_cancel(void *req) override;
    bool find_conflict(Tag base, Tag mask, uint64_t signature, Peer *peer,
                       uint64_t *theirs) const override;
    ucc::select::MemoBook *memo_book() override;
    void charge(Work kind, size_t bytes, uint64_t working = 0) override;
    void charge_gpu_fold(size_t bytes, uint32_t inputs, uint32_t peers) override;
    bool wants_working_set() const override;
    bool wants_inputs() const override;
    // Remember the algorithm (ucc_sim_last_algorithm) and, when the run records
    // a timeline, the collective's slice (transports/sim/timeline.h).
    void trace_begin(const SpanInfo &span) override;
    void trace_end(const SpanInfo &span, ucc_status_t status) override;
    void trace_stream(uint32_t stream, StreamMark mark, const SpanInfo &span,
                      ucc_status_t status) override;
    bool timing_only() const override;
    bool aborted() const override;
    void idle_draining(ucc::Drain &d) override;
    void attach(ucc::Drain *d) override { owner_ = d; }
    bool can_wait() const override;
    bool recording() const override;
    void record(TraceEvent &e) override;
    size_t pending_ops(Tag base, Tag mask) const override;
    bool reduces_in_network() const override;
    ucc_status_t reduce_in_network(Peer first, Tag tag, uint32_t member, uint32_t members,
                                   const void *buf, uint64_t count, size_t bytes, Combine combine,
                                   Xfer *x) override;
    bool fail_allocation(AllocSite site) override;
    uint32_t thread() const override;
    void yield_thread(bool blocked) override;

    // ---- simulator side ----
    uint32_t rank() const { return rank_; }
    uint64_t id() const { return id_; }
    const EndpointStats &stats() const { return stats_; }
    size_t posted_receives() const;
    size_t unexpected_messages() const;

    // Records a message event (and the user-buffer access it is) of a traced transfer.
    void record_message(const Xfer &x, bool send, uint64_t peer_endpoint, size_t bytes);

    // Called by the cluster's event loop.
    void push_inbox(Message *m);
    ucc_status_t apply_put(const Message &m);
    ucc_status_t apply_atomic(const Message &m);
    ucc_status_t read_for_get(Message *m);
    // Appends what this endpoint waits for, one indented line each.
    void describe_waits(std::string *out) const;
    // The cluster is going away: drop queued state, refuse further work.
    void detach_cluster();
    // Endpoint `peer`'s rank crashed (faults.h): receives posted for it fail
    // with UCC_ERR_NO_MESSAGE, later transfers with it fail at once, and the
    // core hears of it. Called from progress().
    void peer_down(uint64_t peer);
    bool peer_dead(uint64_t peer) const {
        return std::find(dead_.begin(), dead_.end(), peer) != dead_.end();
    }

  private:
    friend class Cluster;
    using Key = std::pair<Peer, Tag>;
    // Plain aggregates (no member initialisers, so that they are default-
    // constructible inside this class): SmallMap value-initialises them.
    struct RecvQueue {
        RecvOp *head;
        RecvOp *tail;
    };
    struct MsgQueue {
        Message *head;
        Message *tail;
    };
    struct Region {
        uint64_t base;
        uint64_t length;
    };
    struct RmaPeer {
        uint64_t issued = 0;
        uint64_t acked = 0;
        ucc_status_t error = UCC_OK;
        FlushOp *head = nullptr;
        FlushOp *tail = nullptr;
    };

    // Delivers m into a receive; returns the receive's status. Frees nothing.
    ucc_status_t match(const Message &m, void *buf, size_t capacity, Xfer *x);
    // Writes a send's bytes straight into the receive it will match when that
    // receive is already posted (no copy on the simulated wire); false when
    // the message has to carry them.
    bool send_into_posted(Message *m, const void *buf);
    // An eager send's steps shared by isend and reduce_in_network: the
    // payload copied onto the simulated wire (false: no memory, `m` freed);
    // the packet scheduled (to the switches or to its peer; `m` freed if
    // that throws); the send counted and `x` complete.
    bool copy_payload(Message *m, const void *buf);
    void launch(Message *m, bool to_switch);
    ucc_status_t sent(Xfer *x, size_t bytes);
    // A tagged message this endpoint matched: freed, or (a rendezvous send's)
    // sent back as its sender's acknowledgement.
    void taken(Message *m);
    // The first receive posted for key that no message in flight has claimed.
    RecvOp *first_unclaimed(const Key &key);
    // A claimed receive leaves before its message arrived (cancelled, its peer
    // crashed): the message takes its bytes back from the receive's buffer.
    void unclaim(RecvOp *op);
    void handle_ack(Message *m);
    ucc_status_t check_rkey(Peer peer, uint64_t remote_addr, size_t bytes,
                            const std::vector<uint8_t> &rkey, uint64_t *region) const;
    Message *rma_request(PacketKind kind, Peer peer, size_t bytes, uint64_t remote_addr,
                         const std::vector<uint8_t> &rkey, Xfer *x, ucc_status_t *st);
    void release_all();

    Cluster *cluster_;
    uint32_t rank_;
    uint64_t id_;
    SimTransport *next_in_rank_ = nullptr;  // the rank's list of endpoints
    ucc::Drain *owner_ = nullptr;           // the context it serves (attach)
    Message *inbox_head_ = nullptr;
    Message *inbox_tail_ = nullptr;
    SmallMap<Key, RecvQueue, 3> posted_;
    SmallMap<Key, MsgQueue, 2> unexpected_;
    std::vector<uint64_t> dead_;  // endpoints of crashed ranks (few: a list)
    std::map<uint64_t, Region> regions_;
    std::map<Peer, RmaPeer> rma_;
    uint64_t next_region_ = 1;
    uint64_t gets_in_flight_ = 0;
    size_t posted_count_ = 0;
    size_t unexpected_count_ = 0;
    EndpointStats stats_;
};

// A new endpoint for the calling rank; nullptr when not called from inside a
// simulated rank.
std::unique_ptr<ucc::Transport> make_transport();

// "0x0001000000020003 (team=1 seq=2 step=3)": tag = team << 48 | seq << 16 | step.
std::string describe_tag(Tag tag);

}  // namespace ucc::sim
