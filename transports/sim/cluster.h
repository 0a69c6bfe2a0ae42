// The simulated cluster: ranks as fibers on one OS thread, virtual time as a
// discrete-event queue, a LogGP network between them.
//
// run() starts a fresh OS thread and creates one fiber per rank
// (boost::context::fiber, the primitive under Boost.Fiber, switched directly:
// no scheduler, no wall clock). The thread's own context is the event loop: it
// runs every ready rank, in the order they became ready, until it blocks or
// finishes, then pops the next event (ordered by time, a seeded tie-break and
// insertion order), moves the global clock there, applies it and wakes the
// rank(s) it concerns.
//
// Each rank has a local clock t_r >= global now. Local costs (send overhead,
// copies, reductions) advance t_r without blocking; a rank woken by an event at
// time T continues at max(t_r, T). A rank that finds nothing to do calls
// idle(): it blocks until its next event (or until the global clock catches up
// with t_r). No ready rank and no pending event while some rank has not
// finished is a deadlock: it is reported, and the cluster switches to abort
// mode so that well-behaved programs unwind. A rank that never lets the world
// advance (1,000,000 idle() calls in a row that cannot block, or 100,000,000
// empty progress() calls without idle()) gets a message and std::abort()
// rather than a silent hang.
//
// Fiber stacks come from mmap'd slabs, committed lazily, with a guard page per
// stack up to 8,192 ranks (beyond that the kernel's map-count limit forbids
// one mapping per stack).
//
// Determinism: everything that affects a run (event order, jitter, tie-breaks)
// comes from the cluster's seeded PRNG and from the FIFO ready order; the same
// parameters and seed give the same run and the same trace hash, bit for bit.
#pragma once

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/net/network_model.h"
#include "lib/select/memo.h"
#include "lib/simulated.h"
#include "lib/transport.h"
#include "transports/sim/calendar.h"
#include "transports/sim/event_queue.h"
#include "transports/sim/faults.h"
#include "transports/sim/rng.h"
#include "ucc/api/ucc.h"

namespace ucc::sim {

using net::NetworkModel;

// ---------------------------------------------------------------------------
// Public interface
// ---------------------------------------------------------------------------

struct ClusterParams {
    uint32_t n_ranks = 1;
    uint64_t seed = 1;
    NetworkModel net;
    size_t stack_bytes = 256 * 1024;  // per rank fiber; lazily committed, pooled
    bool timing_only = false;         // move no payload bytes
    // The program writes its inputs before each call, so a pull of one is
    // one of just-written data (NetworkModel::cma_written); false: a
    // benchmark's loop over the same inputs.
    bool inputs_written = false;
    // Chrome trace JSON timeline (transports/sim/timeline.h): the file to write
    // (empty: none, nothing is recorded) and the ranks it records ("" = all).
    std::string timeline;
    std::string timeline_ranks;
    // Keep the library's event trace (traces/trace_event.h) in RunResult::events
    // for the model's checkers (model/trace.h). Payload runs only.
    bool record_events = false;
    // Crashed ranks (transports/sim/faults.h).
    FaultPlan faults;
    // Drain on the event loop: a packet for a rank that waits in the
    // library's progress (SimulatedWorld::idle_draining) is progressed on the
    // loop's stack, and the rank's fiber resumes only when that completed a
    // request. Same run, same trace hash; false resumes the fiber every time.
    bool drain = true;
    // Ranks without a fiber (a program in completion-callback style):
    // program(rank) runs once on the event loop's stack and must not wait; it
    // posts work and returns, and the rank goes on in the callbacks that the
    // loop's passes over its contexts run (Drain::step) and in its progress
    // hooks (on_progress). No stack per rank.
    bool fiberless = false;
};

struct RunResult {
    ucc_status_t status = UCC_OK;  // UCC_ERR_NO_MESSAGE on deadlock
    uint64_t trace_hash = 0;       // over every processed event and finish time
    double virtual_time_s = 0;     // when the last rank finished
    uint64_t events = 0;           // processed events
    uint64_t resumes = 0;          // switches to a rank's fiber
    uint64_t drains = 0;           // arrivals progressed on the loop's stack (ClusterParams::drain)
    uint64_t faults_injected = 0;  // failed allocations and failed or stalled OOB exchanges
    std::string report;            // deadlock report and other notes; empty if clean
    std::vector<TraceEvent> trace;  // the event trace (ClusterParams::record_events)
};

// Runs `program(rank)` once per rank on a simulated cluster and returns when
// every rank has finished (or the run was aborted after a deadlock). Must not
// be called from inside a rank of the same thread's simulation (it would block
// that rank's thread); it spawns and joins its own OS thread.
RunResult run(const ClusterParams &p, std::function<void(uint32_t rank)> program);

// Inside a rank (false/0 elsewhere).
bool in_rank();
uint32_t current_rank();
uint32_t cluster_size();
double now_s();  // the calling rank's local clock, virtual seconds
// The calling rank computes for `seconds` (its clock moves on); false outside a rank.
bool compute(double seconds);
// Inside a rank without a fiber (ClusterParams::fiberless): fn(arg) runs after
// each pass of the loop over the rank's contexts until it returns anything
// but UCC_INPROGRESS. UCC_ERR_INVALID_PARAM elsewhere or for a null fn.
ucc_status_t on_progress(ucc_status_t (*fn)(void *arg), void *arg);
// Whether the calling rank runs without a fiber (false outside a rank).
bool fiberless();

// Adds the program's own mark to the event trace (when it is recorded), stamped
// with the calling rank and its clock. No effect outside a rank.
void record_user_event(TraceEvent e);

// Threads of a rank (UCC_THREAD_MULTIPLE; CONFORMANCE.md P47): inside a rank,
// runs body(0), ..., body(k-1) on k fibers of the calling rank and returns
// when all have returned. The fibers model the rank's threads: they share its
// clock and endpoints, and the world switches between them at every library
// yield point (sim_threads.cc), each switch drawn from the run's seed, so one
// seed is one interleaving. Otherwise body never runs:
// UCC_ERR_INVALID_PARAM outside a rank, with k == 0 or from inside a thread;
// UCC_ERR_NO_MEMORY when the fibers cannot be made.
ucc_status_t run_threads(uint32_t k, const std::function<void(uint32_t thread)> &body);

// Fault injection (faults.h). exit_rank: the calling rank's program gives up
// after an error, as a process that exits: once its program returns (having
// destroyed what it made), its peers see it as a crashed rank. false outside
// a rank. failed_allocations: how many of the calling rank's allocations the
// fault plan has failed so far (0 outside a rank).
bool exit_rank();
uint32_t failed_allocations();

// An OOB allgather over all ranks of the current cluster (oob_ep = rank).
// UCC_ERR_INVALID_PARAM outside a rank.
ucc_status_t oob(ucc_oob_coll_t *out);

// ---------------------------------------------------------------------------
// Internals shared by the cluster's files (cluster*.cc, sim_threads.cc) and sim_transport.cc
// ---------------------------------------------------------------------------

class Cluster;
class SimTransport;
struct RankThreads;
class StackPool;
class Timeline;
struct OobRequest;
struct OobRound;
struct Hooks;
struct RecvOp;

constexpr uint32_t kNoRank = UINT32_MAX;

// What an Xfer's transport_priv points at while it is pending.
enum class OpKind : uint8_t { kRecv, kGet, kFlush };
struct OpBase {
    OpKind op_kind;
};

// kPeerDown: not a packet but the news that endpoint `src` is dead (faults.h).
// kSwitch: a contribution to an in-network reduction (cluster_switch.cc).
// kSendAck: a rendezvous send's completion, from its receiver once matched.
enum class PacketKind : uint8_t {
    kTagged,
    kPut,
    kAtomic,
    kGetRequest,
    kGetReply,
    kRmaAck,
    kPeerDown,
    kSwitch,
    kSendAck
};

// Ordering channels: packets on one (src, dst, tag, channel) arrive in order.
enum class Channel : uint8_t { kTagged, kRmaRequest, kRmaReply };

// A packet between two endpoints. Pooled by the cluster.
struct Message : OpBase {
    Message() : OpBase{OpKind::kGet} {}
    Message *next = nullptr;
    PacketKind kind = PacketKind::kTagged;
    Channel channel = Channel::kTagged;
    bool counted = false;  // among its rank's unclaimed sends (see claim)
    bool carried = false;  // moved in a timing-only run too (Xfer::carry)
    bool input = false;    // its payload is its sender's input (Xfer::input)
    ucc_status_t status = UCC_OK;
    uint64_t src = 0;  // endpoint ids
    uint64_t dst = 0;
    Tag tag = 0;
    uint64_t bytes = 0;
    uint64_t remote_addr = 0;   // RMA target address
    uint64_t region = 0;        // RMA target region id
    uint64_t value = 0;         // atomic add operand; kSwitch: the element count
    void *local_buf = nullptr;  // get: where the reply lands
    // get, and a rendezvous send: the origin's request (null once cancelled).
    Xfer *xfer = nullptr;
    uint64_t signature = 0;  // the sending operation's signature (Xfer::signature)
    uint64_t flow = 0;       // timeline flow id (0: none); never affects the run
    // A tagged message sent while its receive was already posted carries no
    // payload: the send wrote its bytes into that receive's buffer (`claim`).
    // One that carries its payload is `counted` among its rank's unclaimed
    // sends until its receiver takes it in (RankState::unclaimed_sends).
    RecvOp *claim = nullptr;
    std::vector<uint8_t> payload;
    // kSwitch: the sender's index among the reduction's members, their
    // number (kept in the result, which it marks), and how two
    // contributions fold.
    uint32_t member = 0;
    uint32_t members = 0;
    void (*combine)(void *dst, const void *a, const void *b, size_t count) = nullptr;
};

// A posted receive.
struct RecvOp : OpBase {
    RecvOp() : OpBase{OpKind::kRecv} {}
    RecvOp *prev = nullptr;
    RecvOp *next = nullptr;
    Xfer *x = nullptr;
    void *buf = nullptr;
    size_t capacity = 0;
    Peer peer = 0;
    Tag tag = 0;
    Message *claim = nullptr;  // the message in flight whose bytes are already in buf
};

// A flush waiting for RMA acknowledgements.
struct FlushOp : OpBase {
    FlushOp() : OpBase{OpKind::kFlush} {}
    FlushOp *prev = nullptr;
    FlushOp *next = nullptr;
    Xfer *x = nullptr;
    Peer peer = 0;
    uint64_t target = 0;  // completes when this many operations are acknowledged
};

// Small per-rank state: no member grows with the number of ranks.
struct RankState {
    int64_t clock_ps = 0;              // local clock, >= global now while running
    int64_t nic_free_ps = 0;           // when the NIC can start the next message
    boost::context::fiber fiber;       // the rank's continuation while it is not running
    const void *stack_hint = nullptr;  // near its stack top when it last suspended
#if defined(__SANITIZE_ADDRESS__)
    const void *stack_top = nullptr;  // of its fiber's stack, for AddressSanitizer
#endif
    SimTransport *endpoints = nullptr;     // list through SimTransport::next_in_rank_
    OobRequest *oob = nullptr;             // pending OOB allgather, for reports
    const char *last_algorithm = nullptr;  // of the rank's latest collective (static string)
    int64_t ahead_ps = 0;                  // blocked ahead of the world, at this local time
    uint32_t wake_gen = 0;                 // invalidates stale timer events
    uint32_t oob_calls = 0;                // k-th allgather matches everyone's k-th
    uint32_t exchange_calls = 0;           // k-th peer exchange matches everyone's k-th
    uint32_t spins = 0;                    // idle() calls that did not block
    uint32_t unclaimed_sends = 0;          // its payload-carrying tagged messages not yet taken in
    uint32_t polls = 0;                    // empty progress() calls since the last idle()
    bool blocked = false;
    bool finished = false;
    bool crashed =
        false;  // stopped by the fault plan or exited (never resumed; counts as finished)
    bool exiting = false;  // its program gave up (exit_rank): dead to its peers once it returns
    uint32_t alloc_visits = 0;       // visits to the library's allocation sites (faults.h nomem)
    uint32_t alloc_failures = 0;     // ... that the fault plan failed
    int64_t stalled_until_ps = 0;    // stalled by the fault plan: not resumed before this
    bool primary_used = false;       // the endpoint id == rank has been handed out
    uint32_t later_endpoints = 0;    // endpoints handed out after the first (ids n * k + rank)
    RankThreads *threads = nullptr;  // while the rank runs threads (run_threads)
    // While it waits in idle_draining: what the loop may run on its behalf,
    // the endpoint it waits on, and whether only packets for that endpoint
    // have woken it since.
    ucc::Drain *drain = nullptr;
    const SimTransport *drain_ep = nullptr;
    bool drain_ok = false;
    // Ranks without a fiber: whether the program's start has run, its
    // progress hooks (null: none), and a count of endpoint changes (a pass
    // over the endpoints stops when a callback made or dropped one).
    bool started = false;
    uint32_t endpoint_gen = 0;
    Hooks *hooks = nullptr;
};

// A fiberless rank's progress hooks (on_progress), in the order they were added.
struct Hooks {
    struct Hook {
        ucc_status_t (*fn)(void *);
        void *arg;
    };
    std::vector<Hook> list;
};

struct OobRequest {
    OobRound *round = nullptr;  // null once complete or freed
    void *recv_buf = nullptr;
    size_t size = 0;
    uint64_t round_id = 0;
    uint32_t rank = 0;
    ucc_status_t status = UCC_INPROGRESS;
    bool done = false;
    // Peer exchanges (exchange_start): the shared result.
    std::shared_ptr<const std::vector<uint64_t>> table;  // null when arithmetic
    uint64_t start = 0;
    int64_t stride = 1;
    uint64_t max_value = 0;
    bool checks_agree = true;
};

struct OobRound {
    uint64_t id = 0;
    size_t size = 0;
    uint32_t arrived = 0;
    int64_t max_entry_ps = 0;
    bool mismatch = false;
    std::vector<uint8_t> data;       // n * size, rank i at i * size
    std::vector<OobRequest *> reqs;  // by rank; null if not called yet or freed
    // Peer exchanges: every rank's endpoint id and the max of the values.
    bool exchange = false;
    std::vector<uint64_t> endpoints;
    uint64_t max_value = 0;
    uint64_t min_check = UINT64_MAX;
    uint64_t max_check = 0;
};

class Cluster {
  public:
    Cluster(const ClusterParams &p, std::function<void(uint32_t)> program);
    ~Cluster();
    Cluster(const Cluster &) = delete;
    Cluster &operator=(const Cluster &) = delete;

    // The cluster running on this thread (null outside a simulation thread).
    static Cluster *current();

    // Runs the whole simulation on the calling (fresh) thread.
    RunResult execute();

    // ---- for ranks and endpoints ----
    uint32_t size() const { return n_; }
    const NetworkModel &net() const { return params_.net; }
    // The network's parameters for the core's selection by cost.
    const cost::Params &cost() const { return cost_; }
    // Every rank's selections by cost (SimulatedWorld::memo_book).
    select::MemoBook &memos() { return memos_; }
    bool timing_only() const { return params_.timing_only; }
    bool inputs_written() const { return params_.inputs_written; }
    bool fiberless() const { return params_.fiberless; }
    // A progress hook of fiberless rank r (on_progress).
    ucc_status_t add_hook(uint32_t r, ucc_status_t (*fn)(void *), void *arg);
    // The run's timeline; null when none was asked for (then nothing is recorded).
    Timeline *timeline() const { return timeline_; }
    void set_timeline(Timeline *t) { timeline_ = t; }
    bool aborted() const { return aborted_; }
    int64_t now_ps() const { return now_ps_; }
    uint32_t running_rank() const;  // kNoRank in the event loop
    // What the core computes once for every rank of this run
    // (TransportEntry::run_share).
    std::unique_ptr<RunShare> &run_share() { return run_share_; }
    RankState &rank_state(uint32_t r) { return ranks_[r]; }
    // m, a tagged message, has reached its receiver's queues (or is dropped):
    // no longer among its rank's unclaimed sends.
    void taken_in(Message *m) {
        if (m->counted) {
            m->counted = false;
            --ranks_[m->src % n_].unclaimed_sends;
        }
    }
    // The rank's local clock, first raised to the global clock.
    int64_t clock_ps(uint32_t r);
    // Rank r's CPU busy for `ps`: on its core's calendar where its node has
    // more ranks than cores (core_of).
    void advance(uint32_t r, int64_t ps);
    // When rank r, starting at `start`, has done `cpu` ps of work (0: when it
    // can act at all), the detours of the operating system on its node
    // included (NetworkModel: noise_hz, noise).
    int64_t after_noise(uint32_t r, int64_t start, int64_t cpu) const {
        return noise_phase_.empty() ? start + cpu : noisy_end(r, start, cpu);
    }
    // How many ranks of this run share rank r's node.
    uint32_t node_ranks(uint32_t r) const;
    // See Transport::idle(); `deadline_s` in virtual seconds (+inf: none).
    // `lazy`: the caller only waits for something to arrive (a message, an
    // OOB completion) or for its deadline, never for its own clock: a rank
    // ahead of the world then needs no timer at its local time.
    void idle(uint32_t r, double deadline_s, bool lazy = false);
    // A lazy idle() with no deadline of the library's progress on endpoint
    // `ep` (SimulatedWorld::idle_draining): packets for `ep` are progressed
    // by d->drain() on the loop's stack while the rank waits.
    void idle_draining(uint32_t r, const SimTransport *ep, ucc::Drain *d);
    // Threads of a rank (run_threads; sim_threads.cc). thread_of: 0 for the
    // rank's own fiber, 1 + i for its thread i. yield_thread: a library yield
    // point, where the seed may switch to another thread of the rank;
    // `blocked`: the caller cannot go on before another thread has run (it
    // waits for a lock one of them holds).
    ucc_status_t run_threads(uint32_t r, uint32_t k, const std::function<void(uint32_t)> &body);
    uint32_t thread_of(uint32_t r) const;
    void yield_thread(uint32_t r, bool blocked);
    // progress() found nothing: a rank that polls forever without idle() would
    // hang the whole simulation, so that is fatal after many polls.
    void count_empty_poll(uint32_t r);

    // Endpoints: the first of a rank gets id == rank, its k-th later one
    // n * k + rank (k >= 1). Every id ever handed out names its rank, and only
    // live endpoints take memory: a rank may make and drop endpoints forever.
    std::unique_ptr<SimTransport> create_endpoint(uint32_t rank);
    void remove_endpoint(SimTransport *ep);
    SimTransport *endpoint(uint64_t id) const;
    bool endpoint_id_valid(uint64_t id) const;
    uint32_t rank_of_endpoint(uint64_t id) const;  // kNoRank if unknown

    // Packets. send_packet charges the sender (o_send, NIC gap) and schedules
    // the arrival; send_reply is sent by a passive target at the global time.
    Message *alloc_message();
    void free_message(Message *m);
    void send_packet(uint32_t src_rank, Message *m, uint64_t wire_bytes);
    void send_reply(Message *m, uint64_t wire_bytes);
    // A rendezvous send's message, matched by rank `receiver`: back to its
    // sender as kSendAck, a latency after the receiver's clock.
    void send_ack(uint32_t receiver, Message *m);
    // An in-network reduction's contribution (cluster_switch.cc): charges
    // the sender as send_packet does and schedules its arrival at the switches.
    void send_to_switch(uint32_t src_rank, Message *m);
    // In-network reductions with contributions still missing.
    size_t switch_reductions() const { return switch_.size(); }
    // A packet's arrival through what the nodes share (NodeState).
    int64_t shared_arrival(uint32_t src, uint32_t dst, uint64_t bytes, int64_t departure,
                           int64_t latency, int64_t wire);

    // OOB allgather (the functions behind oob()).
    ucc_status_t oob_allgather(const void *src, void *recv, size_t size, void **request);
    // A peer exchange over all ranks, kept in cluster memory: every rank gives
    // its endpoint id and a value; the result (endpoint of every rank, stored
    // once and shared, or as a progression; the max value) costs each rank O(1).
    ucc_status_t exchange_start(uint64_t endpoint, uint64_t value, uint64_t check,
                                OobRequest **request);
    // Whether `oob` is this cluster's all-ranks OOB as seen by the running rank.
    bool is_cluster_oob(const ucc_oob_coll_t &oob) const;
    ucc_status_t oob_test(OobRequest *req);
    ucc_status_t oob_free(OobRequest *req);

    // Fault injection (faults.h): whether rank r's current visit to `site`
    // fails (lib/simulated.h), and the fault, if any, of its next OOB exchange.
    bool fail_allocation(uint32_t r, AllocSite site);
    const OobFault *oob_fault(uint32_t r) const;

    // Ordering keys with packets in flight (bounded memory check).
    size_t order_keys() {
        flush_sends();
        return order_.size();
    }
    size_t pending_events() {
        flush_sends();
        return events_.size();
    }

    // Event trace: whether it is kept, and one event (rank and time stamped here).
    bool recording() const { return params_.record_events && !params_.timing_only; }
    void record(uint32_t rank, TraceEvent &e);

    // Adds a line to the run's report (and to stderr).
    void note(const std::string &line);

    // Pools for small records (posted receives, flushes, messages): they
    // come from blocks of kBlock allocated together and go back to a free
    // list when done, never to the heap. A million-rank collective has a
    // million of each in flight at once: one allocation per block instead of
    // one per record, and one free per block when the cluster goes.
    template <class T>
    class FreeList {
      public:
        T *get() {
            if (free_.empty()) {
                grow();
            }
            T *p = free_.back();
            free_.pop_back();
            return p;
        }
        // Back to the list, reset to T() / as it is (what it keeps is the
        // caller's choice). Never allocates: the list has room for every record.
        void put(T *p) {
            *p = T();
            keep(p);
        }
        void keep(T *p) { free_.push_back(p); }
        // Records the free list has room for (for tests).
        size_t list_capacity() const { return free_.capacity(); }

      private:
        static constexpr size_t kBlock = 64;
        void grow() {
            auto block = std::make_unique<T[]>(kBlock);
            // Room for every record (put never allocates), grown by doubling:
            // a million records in flight must not copy the list per block.
            const size_t records = (blocks_.size() + 1) * kBlock;
            if (free_.capacity() < records) {
                free_.reserve(std::max(records, 2 * free_.capacity()));
            }
            blocks_.push_back(std::move(block));
            for (size_t i = kBlock; i-- > 0;) {
                free_.push_back(&blocks_.back()[i]);
            }
        }
        std::vector<std::unique_ptr<T[]>> blocks_;
        std::vector<T *> free_;
    };
    FreeList<RecvOp> &recv_ops() { return recv_ops_; }
    FreeList<FlushOp> &flush_ops() { return flush_ops_; }

  private:
    enum class EventKind : uint8_t { kPacket, kWake, kOobDone, kCrash, kStall };
    struct Event {
        int64_t time_ps;
        uint64_t tie;
        uint64_t seq;
        Message *msg;
        uint64_t arg;   // kWake: generation; kOobDone: round id
        uint32_t rank;  // kWake: the rank; kPacket: the receiving rank (kNoRank: unknown)
        EventKind kind;
    };
    struct OrderKey {
        uint64_t src;
        uint64_t dst;
        uint64_t tag;
        Channel channel;
        bool operator==(const OrderKey &o) const {
            return src == o.src && dst == o.dst && tag == o.tag && channel == o.channel;
        }
    };
    struct OrderKeyHash {
        size_t operator()(const OrderKey &k) const;
    };
    struct OrderState {
        int64_t last_arrival_ps;
        uint64_t in_flight;
    };

    void rank_main(uint32_t r);
    // The program of rank r, its exceptions caught (a fiber's body or a fiberless start).
    void run_program(uint32_t r);
    // Rank r's program has ended (or, fiberless, has nothing left to do).
    void finish_rank(uint32_t r);
    // A pass of fiberless rank r: its start, or a step of each of its
    // contexts and its hooks; then it runs again, waits or has finished.
    void run_pass(uint32_t r);
    // Runs each of rank r's hooks once; true when one of them was done.
    bool run_hooks(uint32_t r);
    // idle() of a fiberless rank: it cannot wait (returns at once); a deadline
    // is kept for the end of the pass.
    void idle_fiberless(uint32_t r, double deadline_s);
    void event_loop();
    void push_event(Event e);
    void schedule_arrival(Message *m, int64_t arrival_ps);
    void apply(const Event &e);
    void deliver_packet(Message *m);
    // A contribution reached the switches; the last one sends the results.
    void switch_arrival(Message *m);
    // `via`: the endpoint a packet arrived at (null: another cause).
    void wake(uint32_t r, const SimTransport *via = nullptr);
    // Runs the drain of ready rank r; true when its fiber must resume.
    bool drain_ready(uint32_t r);
    void prefetch();
    void block(uint32_t r);
    // idle() of the rank itself (the fiber the event loop resumes).
    void idle_rank(uint32_t r, double deadline_s, bool lazy);
    // A thread of rank r hands control back to the rank's scheduler.
    void switch_to_scheduler(uint32_t r, uint8_t state, double deadline_s, bool lazy);
    // Switches from the running rank back to the event loop.
    void suspend_running();
    const void *rank_stack_bottom(uint32_t r) const;  // for AddressSanitizer; else null
    void count_spin(uint32_t r, const char *what);
    void deadlock();
    // Arms a timer at its own time for every rank blocked ahead of the world;
    // false when there was none (then no rank can ever run again: deadlock).
    bool arm_ahead_timers();
    // Packets sent through a NIC (send_packet) on one (src, dst) pair leave at
    // least g apart and arrive at most jitter apart from that order: with
    // g > jitter they cannot overtake each other, and need no ordering state.
    bool nic_orders(Channel ch) const {
        return ch != Channel::kRmaReply && params_.net.gap_ps > params_.net.jitter_max_ps &&
               spike_ps_ == 0;
    }
    std::string describe_blocked(size_t max_ranks) const;
    // Rank r joins an OOB round with its request, `late_ps` late (faults.h
    // oob stalls); true when it is the last.
    bool join_oob_round(uint32_t r, OobRound *round, OobRequest *req, int64_t late_ps);
    // The fault plan for rank r's next OOB exchange: -1 when it fails, else
    // how late it joins (0: no fault).
    int64_t oob_fault_late_ps(uint32_t r);
    // Everyone has joined: the round completes (kOobDone) after a log-depth
    // exchange of inter-node latencies.
    void schedule_oob_done(const OobRound &round);
    void complete_oob_round(uint64_t id);
    // The last rank joined a peer exchange: its result to every request.
    void publish_exchange(OobRound *round);
    // Stops rank r (faults.h) and tells every other rank's endpoints.
    void crash(uint32_t r);
    // Rank r is dead (crashed, or exited after exit_rank): OOB rounds it never
    // joined fail, and the endpoints of every other rank hear of each endpoint
    // it ever had, detect_s from now.
    void announce_death(uint32_t r);
    // The event loop ran out of memory: ends the run, leaving the ranks as they are.
    void give_up_out_of_memory() noexcept;
    // An OOB round that a crashed rank never joined (it can never complete).
    bool oob_round_lost(const OobRound &round) const;
    void fold(uint64_t v);

    ClusterParams params_;
    cost::Params cost_;
    select::MemoBook memos_;
    std::unique_ptr<RunShare> run_share_;
    std::function<void(uint32_t)> program_;
    uint32_t n_;
    Rng rng_;
    Rng fault_rng_;                 // delay spikes (faults.h): a stream of their own
    Rng thread_rng_;                // thread switches (run_threads): a stream of their own
    uint64_t spike_threshold_ = 0;  // a packet is delayed when fault_rng_ draws below it
    int64_t spike_ps_ = 0;
    std::vector<RankState> ranks_;
    // What the ranks of one node share (NetworkModel: nic_bw, nic_rate,
    // node_bw), each booked on its calendar. Empty when nothing is shared.
    struct NodeState {
        Calendar nic_out;
        Calendar nic_in;
        Calendar mem;
    };
    std::vector<NodeState> nodes_;
    // Each rank's port, receiving: one message's bytes at a time (LogGP's
    // g and G at the receiving end), booked as the NIC's are.
    std::vector<Calendar> ports_in_;
    // Sends whose receiving port is still to be booked (flush_sends). The
    // receiver's port is memory no one has touched lately (a cache miss per
    // message of a big run): send_packet prefetches it and leaves the
    // booking, and what follows it (the jitter's draw, the arrival's event),
    // to flush_sends, which runs them in the order of the sends before
    // anything that could tell the difference: an event pushed, a draw from
    // rng_, a look at order_ or at the queue. A run is the same either way.
    struct PendingSend {
        Message *m;
        int64_t start;  // when the bytes reach the port
        int64_t hold;   // the port's time for them
        uint32_t src;
        uint32_t dst;
    };
    static constexpr uint32_t kPendingSends = 8;
    PendingSend pending_[kPendingSends];
    uint32_t n_pending_ = 0;
    void flush_sends() {
        if (n_pending_ != 0) {
            book_ports();
        }
    }
    void book_ports();
    // A node of more ranks than cores (NetworkModel::cores) runs them in
    // turns: rank r's work books its core, the one of its index in the node
    // modulo cores; work after another rank's pays the switch (`wake`).
    // Empty where every node has a core per rank.
    std::vector<Calendar> cores_;
    Calendar *core_of(uint32_t r);
    // Per node, when its first detour begins (empty: no noise).
    std::vector<int64_t> noise_phase_;
    int64_t noisy_end(uint32_t r, int64_t start, int64_t cpu) const;
    std::vector<SimTransport *> primary_;                 // endpoint id r < n
    std::unordered_map<uint64_t, SimTransport *> extra_;  // the live ones with id >= n
    EventQueue<Event> events_;
    std::unordered_map<OrderKey, OrderState, OrderKeyHash> order_;  // find/insert/erase only
    std::map<uint64_t, std::unique_ptr<OobRound>> oob_rounds_;
    // In-network reductions in progress, by (first member's endpoint, tag):
    // the contributions in so far, by member index.
    std::map<std::pair<uint64_t, Tag>, std::vector<Message *>> switch_;
    FreeList<Message> messages_;
    size_t pooled_payload_bytes_ = 0;  // capacity kept in the free messages' payloads
    FreeList<RecvOp> recv_ops_;
    FreeList<FlushOp> flush_ops_;
    StackPool *stacks_ = nullptr;              // reference-counted: fibers may outlive the cluster
    boost::context::fiber main_;               // the event loop's continuation while a rank runs
    const void *loop_stack_bottom_ = nullptr;  // the event loop's stack, for AddressSanitizer
    size_t loop_stack_size_ = 0;
    std::deque<uint32_t> ready_;  // ranks to run, in the order they became ready
    uint32_t running_ = kNoRank;
    Timeline *timeline_ = nullptr;  // owned by run()
    std::vector<TraceEvent> trace_;
    int64_t now_ps_ = 0;
    uint64_t seq_ = 0;
    uint64_t events_done_ = 0;
    uint64_t resumes_ = 0;
    uint64_t drains_ = 0;
    int64_t pass_deadline_ps_ = 0;  // fiberless: the earliest deadline of the current pass
    uint64_t hash_ = 0;
    uint64_t dropped_ = 0;
    uint32_t finished_ = 0;
    uint32_t crashed_ = 0;
    uint64_t faults_injected_ = 0;
    bool aborted_ = false;
    ucc_status_t status_ = UCC_OK;
    std::string report_;
};

}  // namespace ucc::sim
