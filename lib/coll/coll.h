// The vocabulary algorithms are written in.
//
// An algorithm is a coroutine `Task alg(Coll &c)`. It reads its normalised
// arguments from `c.args()`, talks to team ranks with `send`/`recv` (each
// message tagged with a `step` the algorithm chooses, unique per pair of
// ranks for messages that may be in flight at the same time, or relying on
// per-(peer, tag) non-overtaking), waits with `co_await c.wait(...)`, and
// transforms data with `reduce`/`copy`. It never sees a transport.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lib/coll/coll_types.h"
#include "lib/coll/scratch.h"
#include "lib/simulated.h"
#include "lib/transport.h"
#include "lib/util/common.h"
#include "lib/util/pool.h"
#include "lib/util/task.h"
#include "ucc/api/ucc.h"

// Propagate a failing status out of a coroutine.
#define UCC_CO_TRY(expr)                   \
    do {                                   \
        ucc_status_t ucc_co_try_ = (expr); \
        if (ucc_co_try_ < 0) {             \
            co_return ucc_co_try_;         \
        }                                  \
    } while (0)

namespace ucc::coll {

class Topology;
struct Radixes;
struct HybridSettings;
struct Pipelines;
struct Algorithm;

// A predefined reduction kernel (lib/dt/dt.h: dt::ReduceFn).
using dt_reduce_fn = void (*)(void *dst, const void *a, const void *b, size_t count);

// BCAST_SEGMENT, REDUCE_SEGMENT and REDUCE_CHUNK "auto": chosen with the
// algorithm (Args::segment_bytes); kDefaultSegment where no network is known.
inline constexpr uint64_t kSegmentAuto = UINT64_MAX;
inline constexpr uint64_t kDefaultSegment = uint64_t{64} << 10;
// The chunks of the ring reductions that do not read a segment
// (reduce_scatter(v) ring, reduce srg: send_recv_reduce) where REDUCE_CHUNK
// is auto.
inline constexpr uint64_t kDefaultChunk = uint64_t{256} << 10;

// Collective arguments after validation, in the form algorithms need.
struct Args {
    ucc_coll_type_t type = UCC_COLL_TYPE_BARRIER;
    uint32_t root = 0;
    ucc_reduction_op_t op = UCC_OP_SUM;
    // The flags side by side (a request holds two Args: its size counts, see
    // lib/util/pool.h). counts64, displs64: the v-arrays' entries are 64-bit;
    // mapped: the one-sided buffers (below).
    bool inplace = false;
    bool counts64 = false;
    bool displs64 = false;
    bool mapped = false;
    ucc_datatype_t dt = UCC_DT_INT8;  // element type
    size_t esize = 1;                 // bytes per element
    void *src = nullptr;
    void *dst = nullptr;
    uint64_t src_count = 0;
    uint64_t dst_count = 0;
    ucc_memory_type_t src_mem = UCC_MEMORY_TYPE_HOST;
    ucc_memory_type_t dst_mem = UCC_MEMORY_TYPE_HOST;
    // v-variants: raw arrays, 32-bit entries unless the 64-bit flags are set.
    const void *src_counts = nullptr;
    const void *src_displs = nullptr;
    const void *dst_counts = nullptr;
    const void *dst_displs = nullptr;
    // Main element count: vector length (allreduce, reduce, bcast), block
    // length (allgather, alltoall, gather, scatter), result block length
    // (reduce_scatter).
    uint64_t count = 0;
    // Generic datatype reduction (nullptr for predefined types).
    const void *generic = nullptr;
    // The predefined reduction kernel for (dt, op), when the core looked it
    // up already (nullptr: looked up at the first reduce).
    dt_reduce_fn reduce_kernel = nullptr;
    // One-sided collectives (UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS): src and
    // dst lie in memory the context mapped; `work` is the global work buffer
    // (completion counters, in mapped memory too; nullptr: none given), and
    // `round` the team's count of one-sided collectives before this one,
    // which the core sets at each post (`mapped` above).
    uint64_t *work = nullptr;
    uint64_t round = 0;
    // Tuning the core passes down from the context's configuration. radix:
    // what the chosen algorithm runs with, resolved from `radixes` (the
    // context's radix variables, lib/coll/radix.h) once it is chosen.
    uint32_t radix = 4;
    // In-network reduction (a network whose switches reduce, as SHARP: the
    // sharp allreduce). net_reduce: on this team or level, every member on
    // a node of its own. net_reduce_levels: on a hierarchical algorithm's
    // node leaders (kNetReduceLeaders) or rails (kNetReduceRails), as
    // UCC_CL_HIER_NODE_LEADERS_SBGP_TLS / _NET_SBGP_TLS name sharp. The core
    // sets both when the transport's network reduces; run_on turns the
    // second into the first for its level.
    bool net_reduce = false;
    uint8_t net_reduce_levels = 0;
    static constexpr uint8_t kNetReduceLeaders = 1;
    static constexpr uint8_t kNetReduceRails = 2;
    // Where this collective's messages travel, for selection by cost
    // (lib/cost/cost.h): as the team's ranks lie on the nodes, within one
    // node (a hierarchical algorithm's node level), or between nodes, one
    // rank on each (its leaders or rails). run_on sets it for a level.
    enum class Span : uint8_t { kTeam, kNode, kNet };
    Span span = Span::kTeam;
    const Radixes *radixes = nullptr;
    uint64_t chunk_bytes = 0;  // pipelined ring reductions (0: whole blocks)
    // alltoallv hybrid's settings (lib/coll/alltoallv/alltoallv.h; the
    // reference's ALLTOALLV_HYBRID_*); nullptr: their defaults.
    const HybridSettings *hybrid = nullptr;
    // The hierarchical algorithms' pipelining (lib/coll/patterns/pipeline.h;
    // cl/hier's <ALG>_PIPELINE); nullptr: none.
    const Pipelines *pipelines = nullptr;
    // The pipelined algorithms' unit (bcast and reduce dbt: segments; the
    // allreduce ring: chunks) in bytes (0: one): BCAST_SEGMENT,
    // REDUCE_SEGMENT or REDUCE_CHUNK by the collective's type; kSegmentAuto
    // until the algorithm is chosen (CollEnv::segment_for).
    uint64_t segment_bytes = 0;
    // Which ranks share a node (lib/coll/topology.h), for the hierarchical
    // algorithms: set by the core when the context enables them (UCC_CLS
    // with hier), null otherwise and on every level of a hierarchical one.
    const Topology *topo = nullptr;

    uint64_t src_count_at(uint32_t i) const { return read_array(src_counts, counts64, i); }
    uint64_t dst_count_at(uint32_t i) const { return read_array(dst_counts, counts64, i); }
    uint64_t src_displ_at(uint32_t i) const { return read_array(src_displs, displs64, i); }
    uint64_t dst_displ_at(uint32_t i) const { return read_array(dst_displs, displs64, i); }
    static uint64_t read_array(const void *a, bool wide, uint32_t i) {
        return wide ? static_cast<const uint64_t *>(a)[i] : static_cast<const uint32_t *>(a)[i];
    }
};

class Coll;

// A posted transfer. Move-only; destroying a pending Req cancels it, so a
// collective torn down early (timeout, error) never touches user memory again.
// Its Xfer comes from the context's pool (or the heap, with no pool).
class Req {
  public:
    Req() = default;
    Req(Transport *t, Xfer *x, Pool *pool) : t_(t), x_(x), pool_(pool) {}
    Req(Req &&o) noexcept : t_(o.t_), x_(std::exchange(o.x_, nullptr)), pool_(o.pool_) {}
    Req &operator=(Req &&o) noexcept {
        if (this != &o) {
            release();
            t_ = o.t_;
            x_ = std::exchange(o.x_, nullptr);
            pool_ = o.pool_;
        }
        return *this;
    }
    Req(const Req &) = delete;
    Req &operator=(const Req &) = delete;
    ~Req() { release(); }

    bool done() const { return x_ == nullptr || x_->done(); }
    ucc_status_t status() const { return x_ != nullptr ? x_->status : UCC_OK; }
    size_t bytes() const { return x_ != nullptr ? x_->bytes : 0; }
    Xfer *xfer() const { return x_; }

    // A fresh Xfer from `pool` (nullptr: the heap).
    static Xfer *new_xfer(Pool *pool) {
        return new (pool != nullptr ? pool->allocate(sizeof(Xfer)) : ::operator new(sizeof(Xfer)))
            Xfer();
    }

  private:
    void release() {
        if (x_ == nullptr) {
            return;
        }
        if (x_->status == UCC_INPROGRESS) {
            t_->cancel(x_);
        }
        x_->~Xfer();
        if (pool_ != nullptr) {
            pool_->deallocate(x_, sizeof(Xfer));
        } else {
            ::operator delete(x_);
        }
        x_ = nullptr;
    }
    Transport *t_ = nullptr;
    Xfer *x_ = nullptr;
    Pool *pool_ = nullptr;
};

// Requests posted together (a fan-out, a linear pattern): up to a capacity
// fixed at construction, in storage from the context's pool (or the heap).
class ReqList {
  public:
    ReqList(Pool *pool, size_t capacity)
        : pool_(pool),
          capacity_(capacity),
          reqs_(static_cast<Req *>(capacity == 0     ? nullptr
                                   : pool != nullptr ? pool->allocate(capacity * sizeof(Req))
                                                     : ::operator new(capacity * sizeof(Req)))) {}
    ReqList(const ReqList &) = delete;
    ReqList &operator=(const ReqList &) = delete;
    ~ReqList() {
        for (size_t i = size_; i-- > 0;) {
            reqs_[i].~Req();
        }
        if (reqs_ == nullptr) {
            return;
        }
        if (pool_ != nullptr) {
            pool_->deallocate(reqs_, capacity_ * sizeof(Req));
        } else {
            ::operator delete(reqs_);
        }
    }
    void push_back(Req &&r) {
        UCC_ASSERT(size_ < capacity_);
        new (&reqs_[size_++]) Req(std::move(r));
    }
    // push_back, and the error of a request that failed as it was posted
    // (a send that never left): its caller posts no more of the same tag,
    // so that no later message takes the failed one's place at its
    // receiver (pieces of one length: patterns/pieces.h).
    ucc_status_t push_posted(Req &&r) {
        const ucc_status_t st = r.done() && r.status() < 0 ? r.status() : UCC_OK;
        push_back(std::move(r));
        return st;
    }
    // Releases the requests (pending ones are cancelled), for the next batch.
    void clear() {
        for (; size_ > 0; --size_) {
            reqs_[size_ - 1].~Req();
        }
    }
    size_t size() const { return size_; }
    Req &operator[](size_t i) { return reqs_[i]; }
    std::span<Req> span() { return {reqs_, size_}; }

  private:
    Pool *pool_;
    size_t capacity_;
    Req *reqs_;
    size_t size_ = 0;
};

// What a suspended algorithm waits for; completions count `pending` down.
struct WaitState {
    std::coroutine_handle<> handle;
    size_t pending = 0;
};

// Where a resumable coroutine goes: the owning context's run queue.
class Scheduler {
  public:
    virtual ~Scheduler() = default;
    virtual void schedule(std::coroutine_handle<> h) = 0;
};

// Awaitable over a set of requests: resumes when all are done; yields the
// first error status among them (UCC_OK otherwise). Holds up to kInline
// transfers itself, or refers to a span of requests that outlives the wait.
class WaitAll {
  public:
    static constexpr size_t kInline = 4;
    WaitAll(std::initializer_list<Xfer *> xs, Coll *owner) : n_(xs.size()), owner_(owner) {
        UCC_ASSERT(xs.size() <= kInline);
        size_t i = 0;
        for (Xfer *x : xs) {
            inline_[i++] = x;
        }
    }
    WaitAll(std::span<Req> reqs, Coll *owner) : reqs_(reqs), n_(reqs.size()), owner_(owner) {}
    bool await_ready() {
        for (size_t i = 0; i < n_; ++i) {
            Xfer *x = at(i);
            if (x != nullptr && !x->done()) {
                return false;
            }
        }
        return true;
    }
    void await_suspend(std::coroutine_handle<> h) {
        ws_.handle = h;
        ws_.pending = 0;
        for (size_t i = 0; i < n_; ++i) {
            Xfer *x = at(i);
            if (x != nullptr && !x->done()) {
                x->owner = &ws_;
                ws_.pending++;
            }
        }
    }
    ucc_status_t await_resume() {
        for (size_t i = 0; i < n_; ++i) {
            Xfer *x = at(i);
            if (x == nullptr) {
                continue;
            }
            x->owner = nullptr;
            // A receive of another length than the algorithm expects: the
            // peer runs another collective (or other counts) under this tag.
            if (x->expected != Xfer::kNotRecv && x->bytes != x->expected &&
                (x->status >= 0 || x->bytes > x->expected)) [[unlikely]] {
                report_length(*x);
                x->status = UCC_ERR_INVALID_PARAM;
                return x->status;
            }
            if (x->status < 0) {
                if (x->peer_signature != 0) {
                    report_desync(*x);
                }
                return x->status;
            }
        }
        return UCC_OK;
    }

  private:
    Xfer *at(size_t i) const { return reqs_.empty() ? inline_[i] : reqs_[i].xfer(); }
    void report_desync(const Xfer &x);
    void report_length(const Xfer &x);
    Xfer *inline_[kInline] = {};
    std::span<Req> reqs_;
    size_t n_ = 0;
    Coll *owner_;
    WaitState ws_;
};

// Services the core provides to a running collective.
class CollEnv {
  public:
    virtual ~CollEnv() = default;
    virtual Transport &transport() = 0;
    virtual Peer peer_of(uint32_t team_rank) const = 0;
    virtual Scheduler &scheduler() = 0;
    // Where frames and transfers come from (nullptr: the heap).
    virtual Pool *pool() { return nullptr; }
    // Two ranks ran different collectives under one tag (signatures differ).
    virtual void report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) {
        (void)peer;
        (void)mine;
        (void)theirs;
    }
    // A message from `peer` of `got` bytes where the collective (`mine`, its
    // signature) expected `expected`.
    virtual void report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) {
        (void)peer;
        (void)mine;
        (void)expected;
        (void)got;
    }
    // The members disagree on `what` (UCC_CHECK_ASYMMETRIC_DT, lib/coll/check.cc).
    virtual void report_inconsistent(const char *what) { (void)what; }
    // One-sided collectives: where [local, local + bytes), in memory this
    // context mapped, lies in `team_rank`'s mapped memory, and its remote key
    // (lib/core/mapped_memory.h). Logs what fails.
    virtual ucc_status_t remote_of(uint32_t team_rank, const void *local, size_t bytes,
                                   uint64_t *addr, const std::vector<uint8_t> **key) {
        (void)team_rank;
        (void)local;
        (void)bytes;
        (void)addr;
        (void)key;
        return UCC_ERR_NOT_SUPPORTED;
    }
    // The algorithm for one level of a hierarchical collective: `a` on a
    // subgroup of `size` ranks, a two-sided, flat algorithm (nullptr: none
    // can run them). The same on every member for the same arguments.
    virtual const Algorithm *select_flat(const Args &a, uint32_t size);
    // The segment `alg` runs `a` with on `size` ranks: a.segment_bytes, or
    // where that is kSegmentAuto the cheapest predicted on the team's network
    // (kDefaultSegment where none is known). The same on every member.
    virtual uint64_t segment_for(const Algorithm &alg, const Args &a, uint32_t size);
    // The radix `alg` runs `a` with on `size` ranks: radix_for (radix.h), or
    // where that is auto the cheapest predicted on the team's network
    // (kDefaultRadix where none is known). The same on every member.
    virtual uint32_t radix_for(const Algorithm &alg, const Args &a, uint32_t size);
};

// Extents of participant `rank`'s user buffers in elements (v: the furthest
// block end over `size` entries; saturating), from normalised arguments; 0 for
// an unused buffer.
uint64_t src_extent_elems(const Args &a, uint32_t size);
uint64_t dst_extent_elems(const Args &a, uint32_t size, uint32_t rank);

// A collective's signature: what every rank must agree on (type, root, op,
// per-rank element count for non-v collectives), packed so that a mismatch
// can name the field. 0 is never a valid signature.
uint64_t signature_of(const Args &a);
std::string describe_signature(uint64_t sig);

// One running instance of a collective on one rank. Its coroutine frames come
// from the environment's pool (it is their FrameSource).
class Coll : public FrameSource {
  public:
    // `args` must outlive the instance (it is not copied: a request holds
    // one per post, a simulated rank one per live collective);
    // `signature`: signature_of(args) when the caller has it (0: computed);
    // `scratch`: where scratch buffers live (nullptr: this instance's own,
    // made at the first one).
    Coll(CollEnv &env, const Args &args, uint32_t rank, uint32_t size, Tag tag_base,
         uint64_t signature = 0, ScratchCache *scratch = nullptr)
        : env_(env),
          args_(&args),
          rank_(rank),
          size_(size),
          tag_base_(tag_base),
          signature_(signature != 0 ? signature : signature_of(args)),
          alg_space_(tag::type_bits(static_cast<uint64_t>(args.type))),
          step_space_(alg_space_),
          scratch_(scratch),
          transport_(&env.transport()),
          sim_(transport_->simulated()),
          timing_only_(sim_ != nullptr && sim_->timing_only()),
          reduce_fn_(args.reduce_kernel) {
        frame_pool = env.pool();
        if (sim_ != nullptr) [[unlikely]] {
            ask_world();
        }
    }
    // Not from a temporary: it would be gone before the instance.
    Coll(CollEnv &env, Args &&args, uint32_t rank, uint32_t size, Tag tag_base,
         uint64_t signature = 0, ScratchCache *scratch = nullptr) = delete;
    Coll(const Coll &) = delete;
    Coll &operator=(const Coll &) = delete;
    CollEnv &env() { return env_; }
    uint64_t signature() const { return signature_; }
    Tag tag_base() const { return tag_base_; }
    // A level of `parent` (lib/coll/subgroup.h): its messages carry
    // the parent's type, and its accesses to the user's buffers are traced
    // as the parent's.
    void inherit(const Coll &parent);

    uint32_t rank() const { return rank_; }
    uint32_t size() const { return size_; }
    const Args &args() const { return *args_; }
    bool timing_only() const { return timing_only_; }
    // Set by run_checked when the members refused together before the
    // algorithm ran: the team stays usable.
    bool refused_together() const { return refused_together_; }
    void set_refused_together() { refused_together_ = true; }
    // The instance may end while its peers go on (a timeout): its host-memory
    // transfers go through the transport's own copies (Xfer::stage).
    void set_may_end_early(bool v) { may_end_early_ = v; }
    // The library's own data, not the user's: moved and copied even in a
    // timing-only run (Xfer::carry), as a team split's membership must be.
    void set_carry() {
        carry_ = true;
        timing_only_ = false;
    }

    // Tag of one message: team and sequence come from the core, `step` from the
    // algorithm (11 bits), and the step field's top bits mark the collective's
    // type or the core's own messages (lib/tag.h; see sync.cc and check.cc).
    Tag tag(uint32_t step) const { return tag_base_ | step_space_ | (step & tag::kAlgStepMask); }
    // Switches between the algorithm's step space (0: the collective's type)
    // and the core's (tag::kSyncSteps, tag::kCheckSteps).
    void set_step_space(uint32_t space) { step_space_ = space != 0 ? space : alg_space_; }

    Req send(uint32_t peer, uint32_t step, const void *buf, size_t bytes);
    Req recv(uint32_t peer, uint32_t step, void *buf, size_t bytes);
    // The same for the core's own host-memory buffers (whatever the user's are).
    Req send_host(uint32_t peer, uint32_t step, const void *buf, size_t bytes);
    Req recv_host(uint32_t peer, uint32_t step, void *buf, size_t bytes);
    // The algorithm's own control data (what it computed from the arguments,
    // e.g. the sizes of the blocks a message carries, that the receiver's
    // next steps depend on): host memory, moved even in a timing-only run
    // (Xfer::carry), where payloads are not. The buffer must be real memory
    // there too (not Coll::scratch, which hands out token buffers).
    Req send_control(uint32_t peer, uint32_t step, const void *buf, size_t bytes);
    Req recv_control(uint32_t peer, uint32_t step, void *buf, size_t bytes);

    // One-sided (memory the context mapped; lib/coll/patterns/onesided.h):
    // write `bytes` of `src` into `peer`'s memory at the place that
    // corresponds to `local_target` in this rank's (the same offset in the
    // peer's segment of the same index); complete when `src` may be reused.
    Req put(uint32_t peer, const void *src, const void *local_target, size_t bytes);
    // Add `value` to the 64-bit word of `peer` that corresponds to `word`.
    Req atomic_add(uint32_t peer, const uint64_t *word, uint64_t value);
    // Complete when every put and atomic so far to `peer` is visible there.
    Req flush(uint32_t peer);
    // Puts and atomics after the fence land after those before it.
    ucc_status_t fence() { return transport_->fence(); }
    // Complete when this rank's `word` (changed by peers) reads at least `at_least`.
    Req watch(const uint64_t *word, uint64_t at_least);

    // In-network reduction (lib/simulated.h; the sharp allreduce): whether
    // the network can, and this rank's contribution of `count` elements of
    // `src`; the result comes back as a message from this rank itself under
    // `step` (post its recv first). Members fold in team-rank order.
    bool reduces_in_network() const { return sim_ != nullptr && sim_->reduces_in_network(); }
    Req reduce_in_network(uint32_t step, const void *src, uint64_t count);

    template <class... R>
    WaitAll wait(R &...reqs) {
        static_assert(sizeof...(R) <= WaitAll::kInline, "wait_all() for more requests");
        return WaitAll({reqs.xfer()...}, this);
    }
    WaitAll wait_all(std::span<Req> reqs);
    WaitAll wait_all(ReqList &reqs) { return wait_all(reqs.span()); }
    // A list for `capacity` requests posted together.
    ReqList req_list(size_t capacity) { return ReqList(frame_pool, capacity); }

    // dst[i] = a[i] (op) b[i] for the collective's datatype and op (AVG reduces with SUM).
    ucc_status_t reduce(void *dst, const void *a, const void *b, size_t count);
    // Last step of a reduction on its result: AVG divides by the team size;
    // float128 values get their padding bytes zeroed (results are bitwise
    // reproducible even where no arithmetic happened, e.g. a team of one).
    void finalize_result(void *buf, size_t count);
    void copy(void *dst, const void *src, size_t bytes);
    // Scratch memory for this run: freed when the instance ends, or kept by
    // the request for its next post (persistent requests).
    uint8_t *scratch(size_t bytes);

    // Event trace (only when the transport records): from now on every read
    // or write of a user buffer (src, dst) is recorded for request `req`.
    // `unused`/`unused_bytes`: the buffer (`which`) the user passed although
    // the collective ignores it (in place), so that a stray access is seen.
    void enable_trace(uint64_t req, TraceBuffer which, const void *unused, uint64_t unused_bytes);
    uint64_t trace_req() const { return trace_req_; }
    // User buffer extents in bytes, from the arguments (v: the furthest block end).
    uint64_t src_extent() const;
    uint64_t dst_extent() const;
    // The bytes of this rank's buffers (src unless in place, dst).
    uint64_t working_set() const;

  private:
    struct Range {
        uintptr_t lo = 0;
        uintptr_t hi = 0;  // exclusive
        bool contains(uintptr_t p) const { return p >= lo && p < hi; }
    };
    static Range range_of(const void *p, uint64_t bytes);
    // What a simulated world wants to know of this instance: its working
    // set, where its input lies.
    void ask_world();
    // Which user buffer `p` lies in (dst first), and at what offset.
    TraceBuffer classify(const void *p, uint64_t *offset) const;
    void note_access(const void *p, size_t bytes, bool write);
    void tag_xfer(Xfer &x, const void *buf) const;
    Req send_on(uint32_t peer, uint32_t step, const void *buf, size_t bytes, ucc_memory_type_t mem,
                bool carry = false);
    Req recv_on(uint32_t peer, uint32_t step, void *buf, size_t bytes, ucc_memory_type_t mem,
                bool carry = false);

    CollEnv &env_;
    const Args *args_;
    uint32_t rank_;
    uint32_t size_;
    Tag tag_base_;
    uint64_t signature_;
    uint32_t alg_space_;  // the type field of the algorithm's messages
    uint32_t step_space_;
    std::unique_ptr<ScratchCache> own_scratch_;
    ScratchCache *scratch_;  // the caller's, or own_scratch_ once made
    size_t n_scratch_ = 0;   // buffers handed out in this run
    // Read once from the transport (fixed for its lifetime).
    Transport *transport_;
    SimulatedWorld *sim_;  // null on a real transport (no charges, no event trace)
    bool carry_ = false;
    bool timing_only_;
    bool refused_together_ = false;
    bool may_end_early_ = false;
    uint64_t working_set_ = 0;  // simulated caches only (SimulatedWorld::wants_working_set)
    dt_reduce_fn reduce_fn_;    // args_.reduce_kernel, or looked up at the first reduce
    uint64_t trace_req_ = 0;    // 0: not recording
    Range src_range_;
    Range dst_range_;
    Range input_range_;  // the caller's src, for Xfer::input (SimulatedWorld::wants_inputs)
};

// An algorithm: its table entry.
using AlgFn = Task (*)(Coll &c);
struct Algorithm {
    ucc_coll_type_t type;
    const char *name;
    const char *description;
    AlgFn run;
    // Whether it can run these args on a team of `size` ranks.
    bool (*supports)(const Args &a, uint32_t size);
    // The scratch buffers rank `rank` of `size` asks for (nullptr: none).
    void (*scratch)(const Args &a, uint32_t rank, uint32_t size, ScratchPlan &plan) = nullptr;
    // Writes into peers' mapped memory (lib/coll/patterns/onesided.h): the
    // core counts the team's rounds for it (Args::round).
    bool onesided = false;
    // Runs flat algorithms on the team's nodes and their leaders
    // (lib/coll/subgroup.h): needs Args::topo, never a level of another.
    bool hierarchical = false;
    // The score of the reference's component that runs it, where it ranks
    // above the host algorithms (tl/sharp: 30; a hierarchical one: cl/hier's
    // 50); 0: the default (lib/select/select.h kDefaultScore). A TUNE token
    // of a lower score does not displace it.
    uint32_t score = 0;
};

// For algorithms without constraints.
inline bool supports_any(const Args &, uint32_t) {
    return true;
}

// One step of a ring reduction, pipelined: sends `scount` elements of `sbuf`
// to `to` and receives `rcount` from `from` into `rbuf`, both under `step` in
// chunks of args().chunk_bytes (patterns/pieces.h; in order: per-pair non-overtaking matches
// them), and reduces each chunk as it arrives, dst = rbuf (op) mine element by
// element, while it is in cache and later chunks are in flight. The result is
// bitwise the same as one reduction of the whole block.
Task send_recv_reduce(Coll &c, uint32_t to, const void *sbuf, uint64_t scount, uint32_t from,
                      void *rbuf, uint64_t rcount, void *dst, const void *mine, uint32_t step);

// Runs `a` and `b` at once: each until it waits, then each as its own
// transfers complete, so that neither holds the other up (the two trees of
// a double binary tree). Completes when both have, with the first error
// status among them (UCC_OK otherwise); both are destroyed with its frame.
Task when_all(Coll &c, Task a, Task b);

// Runs `alg` between an entry and an exit barrier (UCC_SYNC_COLLECTIVES): no
// rank touches a peer's buffers before all have entered, and none completes
// before all have finished.
Task run_synchronized(Coll &c, AlgFn alg);

// What UCC_CHECK_ASYMMETRIC_DT compares across a collective's members
// (lib/coll/check.cc): the algorithm chosen (its number in the type's table,
// or kRefused when this member's selection failed) and, for gather, gatherv,
// scatter and scatterv, the datatype and memory type of the member's buffer.
struct Fingerprint {
    static constexpr int64_t kRefused = -1;
    // In the order a disagreement is named (the first field that differs).
    int64_t type = 0;
    int64_t root = 0;     // rooted types
    int64_t op = 0;       // reductions
    int64_t dt = 0;       // every type that moves data
    int64_t count = 0;    // non-v types: the per-rank element count
    int64_t vcounts = 0;  // allgatherv, reduce_scatterv: a digest of the counts array
    int64_t alg = 0;
    int64_t mem = 0;  // gather(v), scatter(v): the memory type of the side that differs
};
// `size`: the participants (for the v-arrays).
Fingerprint fingerprint_of(const Args &a, uint32_t rank, uint32_t size, int64_t alg);
// Runs `alg` (nullptr: this member refused; between the barriers of
// run_synchronized when `synchronized`) once every member agrees on its
// fingerprint; otherwise completes with UCC_ERR_NOT_SUPPORTED on every member.
Task run_checked(Coll &c, AlgFn alg, Fingerprint mine, bool synchronized);

// Every algorithm of one collective type (defined in lib/coll/<coll>/<coll>.cc).
std::span<const Algorithm> algorithms(ucc_coll_type_t type);
// `alg`'s number: its position in algorithms(alg.type), from 1 (the id
// ucc_info and the event trace show).
inline int64_t algorithm_number(const Algorithm &alg) {
    return &alg - algorithms(alg.type).data() + 1;
}

}  // namespace ucc::coll
