// The objects behind the C handles: library, context, team, collective request.
#pragma once

#include <coroutine>
#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/coll.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/topology.h"
#include "lib/core/config.h"
#include "lib/core/log.h"
#include "lib/core/mapped_memory.h"
#include "lib/core/staging.h"
#include "lib/cuda_component.h"
#include "lib/select/memo.h"
#include "lib/select/select.h"
#include "lib/simulated.h"
#include "lib/tag.h"
#include "lib/transport.h"
#include "lib/util/pool.h"
#include "lib/util/small_vector.h"
#include "lib/util/task.h"
#include "ucc/api/ucc.h"

struct ucc_context;
struct ucc_team;

namespace ucc::core {

struct Context;
class CudaComponent;
class StagingPool;
struct Ee;
struct TraceState;
struct Team;
struct CollRequest;
class IpcCache;

// Maps indices 0..size-1 to transport peers; arithmetic when it can be.
class PeerMap {
  public:
    static PeerMap strided(uint64_t size, Peer start, int64_t stride) {
        PeerMap m;
        m.size_ = size;
        m.start_ = start;
        m.stride_ = stride;
        return m;
    }
    // Takes an explicit table and stores it arithmetically if it is a progression.
    static PeerMap from_table(std::vector<Peer> table);
    // A table shared with other maps (e.g. by every rank of a simulation).
    static PeerMap shared(std::shared_ptr<const std::vector<Peer>> table) {
        PeerMap m;
        m.size_ = table->size();
        m.table_ = std::move(table);
        return m;
    }
    // From a transport's peer exchange.
    static PeerMap from_exchange(const SimulatedWorld::Exchange &ex, uint64_t size) {
        return ex.table ? shared(ex.table) : strided(size, ex.start, ex.stride);
    }

    uint64_t size() const { return size_; }
    Peer at(uint64_t i) const {
        if (!table_) {
            return static_cast<Peer>(static_cast<int64_t>(start_) +
                                     static_cast<int64_t>(i) * stride_);
        }
        return (*table_)[i];
    }
    bool is_strided() const { return !table_; }
    int64_t stride() const { return stride_; }
    // Index of `p` in the map, or -1.
    int64_t index_of(Peer p) const;

  private:
    uint64_t size_ = 0;
    Peer start_ = 0;
    int64_t stride_ = 1;
    std::shared_ptr<const std::vector<Peer>> table_;  // null: arithmetic
};

struct Lib {
    Lib();
    ~Lib();
    Config config{lib_config_table(), "UCC_"};
    Logger log;
    // COLL_TRACE: INFO logs collective inits (team rank 0), DEBUG posts and
    // finalizes too, TRACE all of them on every rank; WARN and below: off.
    LogLevel coll_trace = LogLevel::kWarn;
    ucc_thread_mode_t thread_mode = UCC_THREAD_SINGLE;
    uint64_t coll_types = 0;
    uint64_t reduction_types = 0;
    ucc_coll_sync_type_t sync_type = UCC_NO_SYNC_COLLECTIVES;
    // CHECK_ASYMMETRIC_DT: every collective's members agree on the algorithm
    // (and a rooted one's datatype and memory type) before it runs.
    bool check_asymmetric = false;
    // CLS names hier (or all): the hierarchical algorithms may run.
    bool hier = false;
    // CL_BASIC_TLS and CL_HIER_TLS let sharp in: flat teams of one rank per
    // node, and the levels NODE_LEADERS_SBGP_TLS / NET_SBGP_TLS allow, may
    // reduce in the network (where it can).
    bool basic_sharp = true;
    bool hier_sharp = true;
    uint64_t n_contexts = 0;
    // UCC_THREAD_MULTIPLE: guards n_contexts and rare.
    std::mutex mu;
    // What a library needs rarely, made on first need (rare_locked(), under
    // mu) so that a live library, a simulated rank's, stays small.
    struct Rare {
        Rare();
        ~Rare();
        // Destroyed contexts (with their destroyed teams), kept as small
        // tombstones until ucc_finalize so that a call on a stale handle
        // returns an error instead of touching freed memory (P36).
        std::vector<std::unique_ptr<ucc_context>> dead_contexts;
        // The CUDA component (lib/core/cuda_loader.h): GPU memory.
        std::unique_ptr<CudaComponent> cuda;
        // Pinned buffers and streams for staging device memory
        // (lib/core/staging_pool.h), shared with the requests that hold some.
        std::shared_ptr<StagingPool> staging_pool;
    };
    std::unique_ptr<Rare> rare;
    Rare &rare_locked();
};

// The library's CUDA component, looked for on the first call (under lib.mu).
CudaComponent &cuda_component(Lib &lib);
// The library's staging pool over the component's table `ops`, made on the
// first call (under lib.mu).
std::shared_ptr<StagingPool> staging_pool(Lib &lib, const ucc_cuda_component_t *ops);

// The posted, not yet complete collectives of a context, linked through the
// requests themselves (no allocation per post). Appends at the back.
class ActiveList {
  public:
    bool empty() const { return head_ == nullptr; }
    CollRequest *front() const { return head_; }
    inline void push_back(CollRequest *r);
    inline void erase(CollRequest *r);
    // The next request after `r`, or nullptr.
    static inline CollRequest *next(const CollRequest *r);

  private:
    CollRequest *head_ = nullptr;
    CollRequest *tail_ = nullptr;
};

// What algorithm selection reads from the context's configuration, resolved
// once at context creation (the configuration is fixed from then on), so that
// no collective looks a variable up by name.
struct Tuning {
    // KNOMIAL_RADIX, and the reference's per-algorithm radix variables
    // (KN_RADIX, <COLL>_KN_RADIX, ...: lib/coll/radix.h).
    coll::Radixes radixes;
    select::Thresholds thresholds;  // *_LARGE_MSG
    uint64_t reduce_chunk = 0;      // REDUCE_CHUNK (coll::kSegmentAuto: auto)
    uint64_t bcast_segment = 0;     // BCAST_SEGMENT
    uint64_t reduce_segment = 0;    // REDUCE_SEGMENT
    // Args::segment_bytes of a collective type: BCAST_SEGMENT, REDUCE_SEGMENT
    // or REDUCE_CHUNK (the allreduce ring's chunks), 0 for the others.
    uint64_t segment(ucc_coll_type_t type) const {
        return type == UCC_COLL_TYPE_BCAST       ? bcast_segment
               : type == UCC_COLL_TYPE_REDUCE    ? reduce_segment
               : type == UCC_COLL_TYPE_ALLREDUCE ? reduce_chunk
                                                 : 0;
    }
    // Args::chunk_bytes: REDUCE_CHUNK, coll::kDefaultChunk where auto.
    uint64_t chunk() const {
        return reduce_chunk == coll::kSegmentAuto ? coll::kDefaultChunk : reduce_chunk;
    }
    // ALLTOALLV_HYBRID_* and <ALG>_PIPELINE (cl/hier's), made only where
    // they differ from the defaults (a simulated rank's context holds two
    // null pointers, not 128 bytes): read them through hybrid() and
    // pipelines().
    std::unique_ptr<const coll::HybridSettings> hybrid_set;
    std::unique_ptr<const coll::Pipelines> pipelines_set;
    const coll::HybridSettings &hybrid() const {
        static const coll::HybridSettings kDefaults;
        return hybrid_set != nullptr ? *hybrid_set : kDefaults;
    }
    const coll::Pipelines &pipelines() const {
        static const coll::Pipelines kDefaults;
        return pipelines_set != nullptr ? *pipelines_set : kDefaults;
    }
    // NODE_SIZE: nodes of this many consecutive context eps instead of the
    // transport's hosts (0: the hosts), for two-level runs on one host.
    uint32_t node_size = 0;
    // Levels of the hierarchical algorithms that may reduce in the network
    // (coll::Args::net_reduce_levels): NODE_LEADERS_SBGP_TLS and
    // NET_SBGP_TLS with sharp.
    uint8_t net_reduce_levels = 0;
    // <COLL>_ALG of the collective types that set one (by bit position),
    // pointing into the configuration's values: the few set, not a slot per
    // type (a simulated rank's context holds this list empty).
    std::vector<std::pair<uint32_t, const std::string *>> forced_algs;
    // The <COLL>_ALG of a collective type; nullptr for the default choice
    // ("" or "auto").
    const std::string *forced(ucc_coll_type_t type) const {
        const uint32_t bit = coll::type_index(type);
        for (const auto &[b, v] : forced_algs) {
            if (b == bit) {
                return v;
            }
        }
        return nullptr;
    }
    // Every TUNE string's rules, in the order they apply.
    std::vector<select::TuneRule> rules;
    // SELECT: the cheapest predicted algorithm where the transport knows
    // its network (true), or the built-in rules always.
    bool by_cost = true;
    // DEVICE_PIPELINE: chunk bytes of pipelined device staging
    // (lib/core/device_pipeline.h); 0: off. (Here, it fills the padding.)
    uint32_t device_pipeline = 0;
    // DEVICE_IPC: allreduce and bcast on device memory within a host through CUDA IPC
    // (lib/core/device_ipc.h).
    bool device_ipc = true;
};
// `config` must outlive `out` (Tuning::forced points into it). A TUNE string
// that does not parse is logged on `log` and left out, as the reference
// leaves it out.
void load_tuning(const Config &config, const Logger &log, Tuning *out);
// The network selection by cost predicts on (Context::net): the
// transport's own (the simulator's), else the one UCC_NETWORK names (a
// preset, spec or file: lib/net/network_arg.h), when SELECT is cost. A
// NETWORK that does not resolve: UCC_ERR_INVALID_PARAM with a log line.
ucc_status_t context_network(Context &ctx);
// KNOMIAL_RADIX and the per-algorithm radix variables into `out`.
void load_radixes(const Config &config, const Logger &log, coll::Radixes *out);

// Coroutines ready to resume, first in first out. A vector drained from the
// front and emptied when drained keeps its capacity, so a steady stream of
// completions allocates nothing (a deque allocates a block every few dozen).
// The first few live inside the context: a simulated rank's event pushes and
// pops one or two, and a buffer of their own elsewhere on the heap would be
// one more cache miss per event.
class RunQueue {
  public:
    bool empty() const { return head_ == items_.size(); }
    void push_back(std::coroutine_handle<> h) { items_.push_back(h); }
    std::coroutine_handle<> pop_front() {
        std::coroutine_handle<> h = items_[head_++];
        if (head_ == items_.size()) {
            items_.clear();
            head_ = 0;
        }
        return h;
    }

  private:
    SmallVector<std::coroutine_handle<>, 4> items_;
    size_t head_ = 0;
};

// Something the context polls on every progress call (e.g. an OOB request).
class Poller {
  public:
    virtual ~Poller() = default;
    // Returns true when it made progress.
    virtual bool poll() = 0;
};

struct Context final : CompletionSink, coll::Scheduler, Drain {
    Context(Lib *lib, Config cfg);
    ~Context() override;

    // Frames and transfers of this context's collectives (first member: it
    // outlives everything that may hold its blocks).
    Pool pool;
    // Scratch buffers of finalized requests, for the next inits (real
    // transports; on the simulator every request allocates its own).
    coll::ScratchPool scratch_pool;

    // CompletionSink
    void on_complete(Xfer *x) override;
    void on_peer_failed(Peer peer) override { rare().failed_peers.push_back(peer); }
    // Fails the active collectives and the teams that hold a peer in failed_peers.
    void fail_collectives_of_failed_peers();
    // Fails `t` if a member's process failed (dead_peers); its error status.
    ucc_status_t check_team_members(Team &t);
    // coll::Scheduler
    void schedule(std::coroutine_handle<> h) override { runq.push_back(h); }

    // UCC_THREAD_MULTIPLE: every API call on the context, its teams and its
    // requests holds `mu` (recursive: completion callbacks may call back in).
    // On a simulated world the program's threads are fibers of one OS thread
    // (SimulatedWorld::thread), which a mutex cannot tell apart: the lock is
    // then `sim_owner` (1 + the holding thread; 0: free) and `sim_depth`,
    // taken at a yield point (lock()/unlock()).
    std::recursive_mutex mu;
    bool thread_multiple = false;
    // TIMEOUT_COPY: a collective with a timeout goes through the transport's
    // own copies (Coll::set_may_end_early).
    bool timeout_copy = true;
    // A simulated thread found `completions` moved on while it waited for
    // the lock: its progress() must not idle (it may have nothing left to
    // wait for).
    bool others_completed = false;
    uint32_t sim_owner = 0;
    uint32_t sim_depth = 0;
    uint32_t next_ee = 0;  // engines created so far (their trace numbers)
    void lock();
    void unlock();
    // The transport's idle() on a simulated world, with the lock let go.
    void idle_unlocked(double deadline);

    // One pass of progress; blocks (in the simulator) only when nothing happened.
    ucc_status_t progress();
    // What progress() does before it would wait: true when it did something.
    // `next_deadline`: lowered to the earliest timeout still pending; `result`:
    // UCC_ERR_TIMED_OUT when a request timed out; `polled`: a poller moved on.
    bool pass(double *next_deadline, ucc_status_t *result, bool *polled);
    // Drain, for a simulated rank without a fiber: a pass that never waits,
    // and whether the context still has requests or team work in flight.
    Step step() override;
    bool busy() const override;
    // Drain: the simulator runs a pass of progress for a rank that waits in
    // progress() (idle_draining) when its program could only loop back into
    // progress: no request with a timeout or callback, no poller (OOB steps),
    // one thread, no recorder. True when a request or a team creation
    // completed.
    bool drain() override;
    bool drainable() const {
        return n_timed == 0 && n_callbacks == 0 && pollers.empty() && !thread_multiple && !trace;
    }
    // Fails every outstanding collective and team creation (transport aborted).
    void abort_all(ucc_status_t st);
    // Completes the in-progress requests of team `t` (nullptr: of every team)
    // with UCC_ERR_CANCELED, their transfers withdrawn; returns how many.
    uint64_t cancel_requests(const Team *t);

    Lib *lib;
    Config config;
    Tuning tuning;  // from `config`
    Logger log;
    std::unique_ptr<Transport> transport;
    // What the transport is, read once at creation (fixed for its lifetime).
    SimulatedWorld *sim = nullptr;  // transport->simulated(): null for a real one
    // The network, for selection by cost: transport->cost_params() when
    // SELECT is cost, else the one NETWORK names (own_net), else null (the
    // built-in rules).
    const cost::Params *net = nullptr;
    std::unique_ptr<cost::Params> own_net;
    // Where its selections by cost are remembered (lib/select/memo.h): in
    // the simulated world's book (sim->memo_book()) or in own_memos; null:
    // none (no network, or a full book).
    select::Memo *memo = nullptr;
    std::unique_ptr<select::MemoBook> own_memos;
    bool tl_recording = false;    // sim->recording()
    bool tl_timing_only = false;  // sim->timing_only()
    ucc_context_type_t type = UCC_CONTEXT_SHARED;
    ucc_coll_sync_type_t sync_type = UCC_NO_SYNC_COLLECTIVES;
    bool has_oob = false;
    ucc_oob_coll_t oob{};
    uint64_t ctx_id = 0;
    PeerMap peers;  // context ep -> transport peer (when created with OOB)
    // A context over an OOB made on a simulated rank without a fiber learns
    // its peers in later passes (lib/core/context_peers.h): UCC_INPROGRESS
    // until then, the exchange's error if it failed; `join` polls it, and
    // `deferred_team` is a team posted meanwhile that waits for it.
    ucc_status_t join_status = UCC_OK;
    std::unique_ptr<Poller> join;
    ucc_team *deferred_team = nullptr;
    // Heap memory for the first team's handle, set aside when the context
    // is made (beside it); null once taken. Not in the pool: a destroyed
    // team's handle stays (a tombstone) and must not hold the pool's room.
    void *team_room = nullptr;
    std::vector<uint8_t> address;
    // The segments of mem_params registered, and the segments the peers mapped.
    MappedMemory mapped;

    RunQueue runq;
    ActiveList active;         // posted, not complete
    uint64_t n_timed = 0;      // of which have a finite deadline (a timeout)
    uint64_t n_callbacks = 0;  // of which have a completion callback
    // Requests and team creations completed, and triggered posts fired (what
    // a program sees).
    uint64_t completions = 0;
    std::list<Poller *> pollers;
    std::vector<ucc_team *> live_teams;  // created and not destroyed (the user holds them)
    // Execution engines of live teams, linked through Ee::next (lib/core/ee.h).
    Ee *ees = nullptr;
    uint64_t next_team_id = 0;  // proposal counter for internal team ids
    uint64_t n_mem_maps = 0;
    bool team_create_in_progress = false;
    uint64_t progress_events = 0;  // completions seen by the sink in this pass
    // What few contexts need: made at its first use (rare()), a null pointer
    // on the others (every simulated rank's: 88 bytes fewer per rank).
    struct Rare {
        std::vector<Peer> failed_peers;  // reported by the transport, not yet acted on
        std::vector<Peer> dead_peers;    // every failed peer reported so far (a team
                                         // made after the news fails its first init)
        std::vector<std::unique_ptr<ucc_team>> dead_teams;  // tombstones (Lib::dead_contexts)
        // Peers' device allocations mapped through CUDA IPC
        // (lib/core/device_ipc.h), made at the first collective that maps
        // one; requests pin entries.
        std::shared_ptr<IpcCache> ipc;
    };
    std::unique_ptr<Rare> rare_state;
    // Throws std::bad_alloc the first time, like the vectors it holds.
    Rare &rare() {
        if (rare_state == nullptr) {
            rare_state = std::make_unique<Rare>();
        }
        return *rare_state;
    }
    bool has_failed_peers() const {
        return rare_state != nullptr && !rare_state->failed_peers.empty();
    }
    bool has_dead_peers() const { return rare_state != nullptr && !rare_state->dead_peers.empty(); }
    bool destroyed = false;
    // Requests initialised and not finalized, on every team: a context
    // destroyed with some keeps its resources until the last is finalized.
    uint64_t unfinalized = 0;
    uint64_t next_req = 0;  // request numbers for the event trace
    // The trace of this context's calls (TRACE, traces/FORMAT.md) and its
    // clocks (lib/core/trace_record.h); null: not recorded.
    std::unique_ptr<TraceState> trace;
    void trace_enter();
    void trace_exit();
    // Event trace: records `e` when the transport keeps one.
    void record(TraceEvent &e) {
        if (tl_recording) [[unlikely]] {
            sim->record(e);
        }
    }
    // What team `team_id` still holds after its destroy: the transport's
    // pending operations under its tags (resource drift, P35).
    uint64_t resources(uint16_t team_id) const {
        return sim != nullptr ? sim->pending_ops(tag::team_prefix(team_id), tag::kTeamMask) : 0;
    }
};

// Holds a context's lock for the scope when the library runs in
// UCC_THREAD_MULTIPLE mode; nothing otherwise. Every API call on a context
// holds one, so it also times the calls of a recorded context.
class ContextGuard {
  public:
    explicit ContextGuard(Context &c) : ctx_(c), locked_(c.thread_multiple) {
        if (locked_) {
            c.lock();
        }
        if (c.trace) [[unlikely]] {
            c.trace_enter();  // the library's time, for the trace's `idle`
        }
    }
    ~ContextGuard() {
        if (ctx_.trace) [[unlikely]] {
            ctx_.trace_exit();
        }
        if (locked_) {
            ctx_.unlock();
        }
    }
    ContextGuard(const ContextGuard &) = delete;
    ContextGuard &operator=(const ContextGuard &) = delete;

  private:
    Context &ctx_;
    bool locked_;
};

enum class TeamState { kCreating, kActive, kFailed, kDestroyed };

// "Destroyed" checks of the API entry points: true (and one log line naming
// `fn`) when the handle is a tombstone.
bool team_destroyed(const ucc_team *team, const char *fn);
bool context_destroyed(const ucc_context *context, const char *fn);
// Turns a live team (not creating, no unfinalized request) into a tombstone
// kept by its context: what ucc_team_destroy does, and ucc_context_destroy
// for the teams still on the context.
void retire_team(ucc_team *team);
// Frees what a destroyed context holds (its transport, maps, configuration,
// pooled blocks), leaving the small tombstone that P36 keeps until
// ucc_finalize.
void release_context(Context &ctx);

struct Team final : coll::CollEnv {
    explicit Team(Context *c) : ctx(c) {}
    ~Team() override;

    // coll::CollEnv
    Transport &transport() override { return *ctx->transport; }
    Peer peer_of(uint32_t team_rank) const override { return peers.at(team_rank); }
    coll::Scheduler &scheduler() override { return *ctx; }
    Pool *pool() override { return &ctx->pool; }
    void report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) override;
    void report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) override;
    void report_inconsistent(const char *what) override;
    ucc_status_t remote_of(uint32_t team_rank, const void *local, size_t bytes, uint64_t *addr,
                           const std::vector<uint8_t> **key) override;
    const coll::Algorithm *select_flat(const coll::Args &a, uint32_t size) override;
    uint64_t segment_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t size) override;
    uint32_t radix_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t size) override;

    Context *ctx;
    TeamState state = TeamState::kCreating;
    // One-sided collectives posted on the team (Args::round of the next).
    uint64_t onesided_rounds = 0;
    ucc_status_t create_status = UCC_INPROGRESS;
    ucc_status_t error = UCC_OK;  // sticky failure
    uint32_t rank = 0;
    uint32_t size = 0;
    uint64_t ep = 0;
    PeerMap peers;
    uint16_t id = 0;
    uint64_t user_id = 0;
    bool has_user_id = false;
    ucc_post_ordering_t ordering = UCC_COLLECTIVE_POST_ORDERED;
    uint64_t outstanding_colls = 0;
    ucc_coll_sync_type_t sync_type = UCC_NO_SYNC_COLLECTIVES;
    ucc_ep_range_type_t ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    std::vector<ucc_mem_map_t> mem_segments;
    uint32_t seq = 0;  // next collective sequence number (ordered teams)
    // Ordered teams: requests initialised and not yet posted, and the sequence
    // numbers of failed inits waiting behind them (a failed init takes the
    // place its collective would have had: init order is post order).
    uint32_t unposted = 0;
    uint32_t skipped = 0;
    // An init on this ordered team failed: its collective's sequence number
    // goes unused, so that the next one matches the peers' next one.
    void skip_sequence() {
        if (unposted == 0) {
            seq++;
        } else {
            skipped++;
        }
    }
    // A request initialised on this ordered team was posted for the first
    // time, or finalized without a post.
    void left_unposted() {
        if (--unposted == 0) {
            seq += std::exchange(skipped, 0u);
        }
    }
    uint64_t n_outstanding = 0;       // initialised, not finalized requests
    std::vector<uint64_t> eps_cache;  // for ucc_team_get_attr(EPS), filled on demand
    Task create_task;
    std::unique_ptr<Poller> create_poller;
    bool placeholder = false;  // excluded member of a split
    bool creation_recorded = false;
    uint64_t trace_hash = 0;    // event trace: hash of the members' peers
    uint32_t trace_number = 0;  // the team's number in the context's trace (0: none)
    // Which members share a node: built at the team's first collective when
    // the library runs hierarchical algorithms (lib/core/team_topology.cc).
    std::unique_ptr<coll::Topology> topo;

    // The tag of a collective instance (lib/tag.h: key = sequence number or tag).
    Tag tag_base(uint32_t key) const { return tag::make(id, key); }
};

// An active set (UCC_COLL_ARGS_FIELD_ACTIVE_SET): the collective, of any type,
// runs among team ranks (start + i*stride) mod n, i in [0, size), renumbered
// 0..size-1 by set position (block layouts, v-arrays and roots use positions).
struct ActiveSetEnv final : coll::CollEnv {
    Team *team = nullptr;
    uint64_t start = 0;
    uint64_t stride = 0;  // already reduced mod n, non-negative
    uint32_t size = 0;
    uint32_t member(uint32_t i) const {
        return static_cast<uint32_t>((start + static_cast<uint64_t>(i) * stride) % team->size);
    }
    Transport &transport() override { return team->transport(); }
    Peer peer_of(uint32_t i) const override { return team->peer_of(member(i)); }
    coll::Scheduler &scheduler() override { return team->scheduler(); }
    Pool *pool() override { return team->pool(); }
    void report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) override {
        team->report_desync(member(peer), mine, theirs);
    }
    void report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) override {
        team->report_length(member(peer), mine, expected, got);
    }
    void report_inconsistent(const char *what) override { team->report_inconsistent(what); }
};

// From its context's pool (`new (ctx.pool)`), beside the context.
struct CollRequest : PoolAllocated<CollRequest> {
    ucc_coll_req_t super{};  // must stay the first member: ucc_collective_test reads it
    // The members are laid out without padding where it costs nothing: a
    // request is a pool block (lib/util/pool.h), and a simulated rank holds
    // one per live collective.
    uint32_t set_rank = 0;  // this rank's index in the active set

    struct Owner final : TaskOwner {
        CollRequest *req = nullptr;
        void on_task_done(ucc_status_t status) override;
    };

    Team *team = nullptr;
    ucc_coll_args_t args{};
    coll::Args nargs;
    const coll::Algorithm *alg = nullptr;
    uint64_t signature = 0;  // signature_of(nargs)
    // UCC_CHECK_ASYMMETRIC_DT: the members compare this before the algorithm
    // runs (`checked`, below), alg being null when this member's selection
    // failed.
    coll::Fingerprint fingerprint;
    // Copies the algorithm runs on instead of the user's buffers (pack/unpack
    // datatypes, CUDA device memory): lib/core/staging.h. Declared before
    // coll, so destroyed after it: a Coll refers to its arguments (nargs,
    // above, or staging->run).
    std::unique_ptr<Staging> staging;
    std::optional<coll::Coll> coll;            // while posted
    coll::ScratchCache scratch;                // kept across posts
    std::unique_ptr<ActiveSetEnv> active_set;  // set when the collective runs on a subset
    Task task;
    Owner owner;
    bool persistent = false;
    bool trivial = false;   // zero-size: completes at post without communication
    bool over_ipc = false;  // the current post runs over CUDA IPC (device_ipc.h)
    bool has_cb = false;
    bool checked = false;
    bool in_active = false;  // in the context's ActiveList
    // On an ordered team a triggered post takes its sequence number when it
    // is made (the program's order of posts), not when its trigger fires
    // (reserved_seq, below).
    bool seq_reserved = false;
    bool counted_unposted = false;  // in its team's `unposted` (ordered, not an active set)
    ucc_coll_callback_t cb{};
    double timeout = 0;
    double deadline = std::numeric_limits<double>::infinity();
    SpanInfo span;  // for timelines
    CollRequest *active_prev = nullptr;
    CollRequest *active_next = nullptr;
    uint64_t posts = 0;
    // The execution engine whose trigger this request waits for (a
    // triggered post not yet fired; lib/core/ee.h), else null.
    Ee *trigger = nullptr;
    uint32_t reserved_seq = 0;
    // Triggered on a CUDA-stream engine and not yet ended: its ticket there
    // (lib/core/stream_gate.h), else 0.
    uint32_t stream_ticket = 0;
    uint64_t number = 0;     // per-context request number (event trace)
    uint32_t view_size = 0;  // participants (the team's or the active set's size)
    uint32_t view_rank = 0;  // this rank's index among them

    void complete(ucc_status_t st);
    // A trace event about this request, with its number filled in.
    void record(TraceEvent &e) {
        e.req = number;
        team->ctx->record(e);
    }
};

// What a context's pool reserves at creation (Pool::reserve), carved in the
// order they are made: on a context over an OOB, room for the frames of its
// first team's id agreement (api_team.cc: the team resolves an ep map and
// agrees on an id); then room for its first request with its algorithm's
// frame and first transfers (a log-round collective's). With the room set
// aside for its first team's handle (Context::team_room), a simulated rank's
// context, endpoint, team and first collective sit in one compact run of
// memory, however far the heap has moved on while the context's OOB
// exchange ran.
constexpr size_t kContextAgreementBlocks = 1024;
// The first request's room is its pool block and 512 bytes more, so that the
// frames and transfers of a log-round collective still fit when the request
// grows (when it outgrew a block of 1 KiB, a 65,536-rank barrier's frames
// and transfers went to the heap: 600 bytes more per rank).
constexpr size_t kContextFirstBlocks =
    Pool::block_bytes(Pool::size_class(sizeof(CollRequest) + Pool::kHeader)) + 512;

void ActiveList::push_back(CollRequest *r) {
    r->active_prev = tail_;
    r->active_next = nullptr;
    (tail_ != nullptr ? tail_->active_next : head_) = r;
    tail_ = r;
    r->in_active = true;
}

void ActiveList::erase(CollRequest *r) {
    (r->active_prev != nullptr ? r->active_prev->active_next : head_) = r->active_next;
    (r->active_next != nullptr ? r->active_next->active_prev : tail_) = r->active_prev;
    r->active_prev = r->active_next = nullptr;
    r->in_active = false;
}

CollRequest *ActiveList::next(const CollRequest *r) {
    return r->active_next;
}

// Records kFinalize and frees a request that is not in progress.
void free_request(CollRequest *r);

// Team creation is driven from Context::progress through this.
ucc_status_t team_create_start(Team *team);

// Validation of collective arguments (rules V1..V13 of model/VALIDITY.md).
// `timing_only`: buffers are never touched (simulated timing-only runs), so
// NULL buffers are accepted. With an active set, `team_size` and `rank` are the
// team's (membership is checked against them, V5); every later rule uses the
// set's size, the caller's set position and the root's set position.
ucc_status_t validate_coll_args(const ucc_coll_args_t &a, uint32_t team_size, uint32_t rank,
                                bool ordered, std::string *why, bool timing_only = false);
// Fills normalised arguments from validated ones. The caller passes the
// collective's own view: for an active set, the set's size, the caller's set
// position as `rank` and args whose root is the root's set position. A
// memory type UNKNOWN stays UNKNOWN: the caller resolves it.
void normalize_coll_args(const ucc_coll_args_t &a, uint32_t team_size, uint32_t rank,
                         coll::Args *out, bool timing_only = false);
// Which buffer descriptions a rank reads (model/VALIDITY.md, "Fields read").
struct BufferUse {
    bool src = false;            // src.info
    bool src_v = false;          // src.info_v
    bool dst = false;            // dst.info
    bool dst_v = false;          // dst.info_v (with displacements)
    bool dst_v_nodispl = false;  // reduce_scatterv: dst counts only
};
BufferUse buffers_used(ucc_coll_type_t t, bool inplace, bool is_root);
// Whether the collective moves no data at all on any rank (zero size).
bool coll_is_trivial(const coll::Args &a, uint32_t team_size);

// The name of the algorithm a request runs ("" for none), for tools
// linked with the library's internals (ucc_perftest).
const char *request_algorithm(ucc_coll_req_h h);

// Picks the algorithm for `a` on `size` members of team `t` (all of it or
// an active set): forced by config (`<COLL>_ALG`), the cheapest predicted
// where the network is known (Context::net), else by the built-in rules;
// TUNE strings on top.
const coll::Algorithm *select_algorithm(const Context &ctx, Team &t, const coll::Args &a,
                                        uint32_t size, std::string *why);
// The segment `alg` runs `a` with on `size` members of `t` (BCAST_SEGMENT,
// REDUCE_SEGMENT): where the setting is auto, the cheapest predicted on the
// network as the team sees it (lib/cost: segment_for), kDefaultSegment where
// the network is unknown; a hierarchical algorithm keeps auto for its levels.
uint64_t segment_for(const Context &ctx, Team &t, const coll::Algorithm &alg, const coll::Args &a,
                     uint32_t size);
// The radix `alg` runs `a` with on `size` members of `t`: its setting
// (coll::radix_for), or where that and KNOMIAL_RADIX are auto the cheapest
// predicted on the network as the team sees it (lib/cost: radix_for),
// coll::kDefaultRadix where the network is unknown; a hierarchical algorithm
// keeps auto for its levels.
uint32_t radix_for(const Context &ctx, Team &t, const coll::Algorithm &alg, const coll::Args &a,
                   uint32_t size);

// The team's topology (built at its first call; lib/core/team_topology.cc).
const coll::Topology *team_topology(Team &t);

const char *coll_type_name(ucc_coll_type_t t);
// The collective types' properties (lib/coll/coll_types.h).
using coll::is_reduction;
using coll::is_rooted;

}  // namespace ucc::core

// Opaque handle types of the C API.
struct ucc_lib_info {
    ucc::core::Lib lib;
};
struct ucc_context {
    ucc::core::Context ctx;
};
// From Pool::allocate_in (on the heap: new_team_handle).
struct ucc_team : ucc::PoolAllocated<ucc_team> {
    ucc::core::Team team;
};

namespace ucc::core {
// A new team handle on `ctx`: in the room the context set aside for its
// first team, else on the heap.
ucc_team *new_team_handle(Context &ctx);
}  // namespace ucc::core
