// C API: collective requests — init, post, init_and_post, finalize — and the
// request state machine (INITIALIZED -> INPROGRESS -> OK | error; persistent
// requests go OK -> INPROGRESS again on re-post).
#include <cstring>
#include <string>

#include "lib/coll/patterns/onesided.h"
#include "lib/core/core.h"
#include "lib/core/cuda_loader.h"
#include "lib/core/device_ipc.h"
#include "lib/core/device_pipeline.h"
#include "lib/core/device_staging.h"
#include "lib/core/ee.h"
#include "lib/core/packed_staging.h"
#include "lib/core/trace_record.h"
#include "lib/dt/dt.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::CollRequest;
using ucc::core::Context;
using ucc::core::log_error;
using ucc::core::Team;
using ucc::core::TeamState;

namespace ucc::core {

static_assert(std::is_standard_layout_v<ucc_coll_req_t>);

void CollRequest::Owner::on_task_done(ucc_status_t status) {
    req->complete(status);
}

namespace {

// FNV-1a over the request's dst bytes (0 when there are none).
uint64_t dst_hash(const coll::Coll &c) {
    const uint64_t n = c.dst_extent();
    const auto *p = static_cast<const uint8_t *>(c.args().dst);
    if (p == nullptr || n == 0 || n == UINT64_MAX) {
        return 0;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

}  // namespace

// Frees a request that is not in progress (finalize, or a failed init_and_post).
void free_request(CollRequest *r) {
    if (r->team->ctx->trace) [[unlikely]] {
        trace_fin(*r);
    }
    Team &t = *r->team;
    if (t.ctx->tl_recording) [[unlikely]] {
        TraceEvent e;
        e.kind = ucc::TraceKind::kFinalize;
        e.status = r->super.status;
        r->record(e);
    }
    if (r->counted_unposted) {
        t.left_unposted();
    }
    t.n_outstanding--;
    delete r;
    Context &ctx = *t.ctx;
    if (--ctx.unfinalized == 0 && ctx.destroyed) {
        release_context(ctx);  // destroyed while this request was alive
    }
}

void CollRequest::complete(ucc_status_t st) {
    if (trigger != nullptr) [[unlikely]] {
        trigger->forget(*this);  // it never fired (timed out, failed or cancelled)
    }
    if (in_active) {
        team->ctx->active.erase(this);
        if (deadline != std::numeric_limits<double>::infinity()) {
            team->ctx->n_timed--;
        }
        if (has_cb) {
            team->ctx->n_callbacks--;
        }
    }
    team->ctx->completions++;
    if (st < 0 && coll) {
        // A peer that ran another collective under this sequence number leaves
        // its messages unmatched here: name it (desync).
        Peer peer = 0;
        uint64_t theirs = 0;
        uint32_t type_bit = 0;
        if (team->ctx->sim != nullptr &&
            team->ctx->sim->find_conflict(coll->tag(0), ucc::tag::kInstanceMask, coll->signature(),
                                          &peer, &theirs)) {
            int64_t who = active_set ? -1 : team->peers.index_of(peer);
            team->report_desync(who < 0 ? UINT32_MAX : static_cast<uint32_t>(who),
                                coll->signature(), theirs);
        } else if (team->ctx->sim == nullptr && team->ctx->transport->find_type_conflict(
                                                    (coll->tag(0) & ucc::tag::kInstanceMask) |
                                                        ucc::tag::type_bits(args.coll_type),
                                                    &peer, &type_bit)) {
            int64_t who = active_set ? -1 : team->peers.index_of(peer);
            // What the tag tells of the peer's collective: its type.
            team->report_desync(who < 0 ? UINT32_MAX : static_cast<uint32_t>(who),
                                coll->signature(),
                                (uint64_t{1} << 63) | (uint64_t{type_bit} << 58));
        }
    }
    if (coll && team->ctx->sim != nullptr) {
        if (st == UCC_OK) {
            charge_device_copies(*this, true);  // the outputs back to the device
        }
        team->ctx->sim->trace_end(span, st);
    }
    task.reset();  // cancels whatever the algorithm still had posted
    if (staging) {
        staging->settle();  // (a pipelined post's copies: none runs on)
    }
    if (staging && coll && st == UCC_OK) {
        st = staging->stage_out(nargs);  // the results go back into the user's buffers
    }
    if (team->ctx->tl_recording) [[unlikely]] {
        ucc::TraceEvent e;
        e.kind = ucc::TraceKind::kComplete;
        e.status = st;
        e.hash = coll && st == UCC_OK ? dst_hash(*coll) : 0;
        record(e);
    }
    const bool refused_together = coll && coll->refused_together();
    coll.reset();
    if (st < 0 && team->error == UCC_OK && !refused_together && st != UCC_ERR_CANCELED) {
        team->error = st;  // sticky: later collectives on this team fail too
        UCC_LOG(team->ctx->log, kError, "team %u failed: %s in %s", team->id, ucc_status_string(st),
                coll_type_name(args.coll_type));
    }
    if (team->ctx->trace) [[unlikely]] {
        trace_done(*this, st);
    }
    // The status is final when the callback runs (API.md §4.9). Another
    // thread may be reading it (ucc_collective_test is an inline read).
    __atomic_store_n(&super.status, st, __ATOMIC_RELEASE);
    if (stream_ticket != 0) [[unlikely]] {
        // The stream's later work may run now, and sees the final status.
        Ee::end_on_stream(*team->ctx, *this);
    }
    if (has_cb) {
        ucc::TraceEvent e;
        e.kind = ucc::TraceKind::kCallback;
        e.status = st;
        record(e);
        cb.cb(cb.data, st);  // may finalize this request: nothing touches it afterwards
    }
}

}  // namespace ucc::core

namespace {

CollRequest *req_of(ucc_coll_req_h h) {
    return reinterpret_cast<CollRequest *>(h);
}

const char *memory_type_name(ucc_memory_type_t m) {
    switch (m) {
        case UCC_MEMORY_TYPE_HOST:
            return "HOST";
        case UCC_MEMORY_TYPE_CUDA:
            return "CUDA";
        case UCC_MEMORY_TYPE_CUDA_MANAGED:
            return "CUDA_MANAGED";
        case UCC_MEMORY_TYPE_ROCM:
            return "ROCM";
        case UCC_MEMORY_TYPE_ROCM_MANAGED:
            return "ROCM_MANAGED";
        default:
            return "UNKNOWN";
    }
}

// Memory types: on the simulator a label (UNKNOWN counts as HOST). On real
// transports UNKNOWN is resolved through the CUDA runtime's pointer attributes
// (HOST without a usable device); CUDA_MANAGED memory is read by the CPU as it
// is; CUDA device memory runs on pinned host copies (device_staging.h) and needs
// a usable device; ROCm memory is refused (no component handles it), as the
// reference refuses a type no component handles.
ucc_status_t check_memory_types(CollRequest &r, Context &ctx) {
    ucc::coll::Args &a = r.nargs;
    if (ctx.sim != nullptr || ctx.tl_timing_only) {
        for (ucc_memory_type_t *m : {&a.src_mem, &a.dst_mem}) {
            *m = *m == UCC_MEMORY_TYPE_UNKNOWN ? UCC_MEMORY_TYPE_HOST : *m;
        }
        return UCC_OK;
    }
    const bool unknown =
        a.src_mem == UCC_MEMORY_TYPE_UNKNOWN || a.dst_mem == UCC_MEMORY_TYPE_UNKNOWN;
    if (a.src_mem == UCC_MEMORY_TYPE_HOST && a.dst_mem == UCC_MEMORY_TYPE_HOST) {
        return UCC_OK;
    }
    ucc::core::CudaComponent &cuda = ucc::core::cuda_component(*ctx.lib);
    if (unknown) {
        a.src_mem =
            a.src != nullptr ? cuda.resolve(a.src_mem, a.src, ctx.log) : UCC_MEMORY_TYPE_HOST;
        a.dst_mem =
            a.dst != nullptr ? cuda.resolve(a.dst_mem, a.dst, ctx.log) : UCC_MEMORY_TYPE_HOST;
    }
    bool device = false;
    for (const bool src : {true, false}) {
        const ucc_memory_type_t m = src ? a.src_mem : a.dst_mem;
        if (m == UCC_MEMORY_TYPE_HOST || (src ? a.src : a.dst) == nullptr) {
            continue;
        }
        if (m != UCC_MEMORY_TYPE_CUDA && m != UCC_MEMORY_TYPE_CUDA_MANAGED) {
            UCC_LOG(ctx.log, kError, "ucc_collective_init: %s mem_type %s: no component handles it",
                    src ? "src" : "dst", memory_type_name(m));
            return UCC_ERR_NOT_SUPPORTED;
        }
        if (!cuda.usable(ctx.log)) {
            UCC_LOG(ctx.log, kError, "ucc_collective_init: %s mem_type %s: %s", src ? "src" : "dst",
                    memory_type_name(m), cuda.why(ctx.log).c_str());
            return UCC_ERR_NOT_SUPPORTED;
        }
        device = device || m == UCC_MEMORY_TYPE_CUDA;
    }
    if (!device) {
        return UCC_OK;
    }
    const ucc_cuda_component_t *ops = cuda.ops(ctx.log);
    return ucc::core::prepare_device_staging(a, r.view_size, r.view_rank, ops,
                                             ucc::core::staging_pool(*ctx.lib, ops), ctx.log,
                                             &r.staging);
}

}  // namespace

const char *ucc::core::request_algorithm(ucc_coll_req_h h) {
    const CollRequest *r = req_of(h);
    if (r == nullptr) {
        return "";
    }
    return r->alg != nullptr ? r->alg->name : (r->trivial ? "none (zero size)" : "");
}

namespace {

// COLL_TRACE (docs/configuration.md): one line per event, printed whatever
// LOG_LEVEL says. Inits from INFO on, posts and finalizes from DEBUG on; on
// team rank 0 only, unless the level is TRACE.
void coll_trace_line(const CollRequest &r, const char *event) {
    const Team &t = *r.team;
    const ucc::core::LogLevel level = t.ctx->lib->coll_trace;
    if (level != ucc::core::LogLevel::kTrace && t.rank != 0) {
        return;
    }
    const ucc::coll::Args &a = r.nargs;
    const bool rooted = ucc::core::is_rooted(a.type);
    t.ctx->log.log(
        level, "coll %s: req %llu %s team %u rank %u of %u%s count %llu dt %s%s%s alg %s%s", event,
        static_cast<unsigned long long>(r.number), ucc::core::coll_type_name(a.type), t.id,
        r.view_rank, r.view_size, r.active_set ? " (active set)" : "",
        static_cast<unsigned long long>(a.count), a.esize != 0 ? ucc::dt::name(a.dt) : "none",
        rooted ? (" root " + std::to_string(a.root)).c_str() : "", a.inplace ? " in place" : "",
        r.trivial ? "none (zero size)" : (r.alg != nullptr ? r.alg->name : "?"),
        r.persistent ? " persistent" : "");
}

inline void coll_trace(const CollRequest &r, ucc::core::LogLevel from, const char *event) {
    if (static_cast<int>(r.team->ctx->lib->coll_trace) >= static_cast<int>(from)) [[unlikely]] {
        coll_trace_line(r, event);
    }
}

bool team_is_ordered(const Team &t) {
    return t.ordering == UCC_COLLECTIVE_POST_ORDERED || t.ordering == UCC_COLLECTIVE_INIT_ORDERED ||
           t.ordering == UCC_COLLECTIVE_INIT_AND_POST_ORDERED;
}

ucc_status_t coll_init_checked(ucc_coll_args_t *coll_args, ucc_coll_req_h *request, Team &t);

ucc_status_t coll_init(ucc_coll_args_t *coll_args, ucc_coll_req_h *request, ucc_team_h team) {
    if (coll_args == nullptr || request == nullptr || team == nullptr) {
        log_error("ucc_collective_init: %s is NULL",
                  coll_args == nullptr ? "coll_args" : (request == nullptr ? "request" : "team"));
        return UCC_ERR_INVALID_PARAM;
    }
    if (ucc::core::team_destroyed(team, "ucc_collective_init")) {
        return UCC_ERR_INVALID_PARAM;
    }
    Team &t = team->team;
    Context &ctx = *t.ctx;
    ucc::core::ContextGuard guard(ctx);
    if (t.placeholder) {
        UCC_LOG(ctx.log, kError,
                "ucc_collective_init: this handle is a split placeholder for a member that was "
                "not included");
        return UCC_ERR_INVALID_PARAM;
    }
    if (t.state != TeamState::kActive) {
        UCC_LOG(ctx.log, kError, "ucc_collective_init: the team is not active (%s)",
                t.state == TeamState::kCreating ? "creation not complete" : "creation failed");
        return UCC_ERR_INVALID_PARAM;
    }
    if (ctx.has_dead_peers()) [[unlikely]] {
        ctx.check_team_members(t);
    }
    if (t.error != UCC_OK) {
        UCC_LOG(ctx.log, kError, "ucc_collective_init: team %u failed earlier: %s", t.id,
                ucc_status_string(t.error));
        return t.error;
    }
    const ucc_status_t st = coll_init_checked(coll_args, request, t);
    const bool active_set = (coll_args->mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) != 0;
    if (team_is_ordered(t) && !active_set) {
        if (st == UCC_OK) {
            t.unposted++;
            req_of(*request)->counted_unposted = true;
        } else {
            // The peers' inits of this collective may have succeeded: this
            // rank's next collective must still match their next one.
            t.skip_sequence();
        }
    }
    return st;
}

// coll_init once the team is known to be usable.
ucc_status_t coll_init_checked(ucc_coll_args_t *coll_args, ucc_coll_req_h *request, Team &t) {
    Context &ctx = *t.ctx;
    std::string why;
    ucc_status_t st = ucc::core::validate_coll_args(*coll_args, t.size, t.rank, team_is_ordered(t),
                                                    &why, ctx.tl_timing_only);
    if (st != UCC_OK) {
        UCC_LOG(ctx.log, kError, "ucc_collective_init: %s", why.c_str());
        return st;
    }
    ucc::alloc_site(ctx.sim, ucc::AllocSite::kCollRequest);
    // Default-initialized: every member has its initializer; value-
    // initialization would zero the whole request first on every init.
    std::unique_ptr<CollRequest> r(new (ctx.pool) CollRequest);
    r->super.status = UCC_OPERATION_INITIALIZED;
    r->team = &t;
    r->args = *coll_args;
    r->owner.req = r.get();
    // The collective's own view: the team, or the active set renumbered by set
    // position (size, this rank's position, the root's position).
    ucc_coll_args_t view = *coll_args;
    uint32_t view_size = t.size;
    uint32_t view_rank = t.rank;
    if (coll_args->mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) {
        // Validated (V5): distinct members, the caller (and a rooted type's root) among them.
        auto env = std::make_unique<ucc::core::ActiveSetEnv>();
        env->team = &t;
        int64_t stride = coll_args->active_set.stride % static_cast<int64_t>(t.size);
        env->stride = static_cast<uint64_t>(stride < 0 ? stride + t.size : stride);
        env->start = coll_args->active_set.start;
        env->size = static_cast<uint32_t>(coll_args->active_set.size);
        const bool rooted = ucc::core::is_rooted(coll_args->coll_type);
        for (uint32_t i = 0; i < env->size; ++i) {
            if (env->member(i) == t.rank) {
                r->set_rank = i;
            }
            if (rooted && env->member(i) == coll_args->root) {  // root is read for rooted types
                view.root = i;
            }
        }
        view_size = env->size;
        view_rank = r->set_rank;
        r->active_set = std::move(env);
    }
    ucc::core::normalize_coll_args(view, view_size, view_rank, &r->nargs, ctx.tl_timing_only);
    r->nargs.radix = ctx.tuning.radixes.fallback;
    r->nargs.radixes = &ctx.tuning.radixes;
    r->nargs.chunk_bytes = ctx.tuning.chunk();
    r->nargs.hybrid = &ctx.tuning.hybrid();
    r->nargs.pipelines = &ctx.tuning.pipelines();
    r->nargs.segment_bytes = ctx.tuning.segment(r->nargs.type);
    if (ctx.lib->hier && !r->active_set) {
        r->nargs.topo = ucc::core::team_topology(t);
    }
    if (ctx.sim != nullptr && ctx.sim->reduces_in_network() && !r->active_set) {
        // A network that reduces (the simulator's sharp_lat): a team of one
        // rank per node may use it (CL_BASIC_TLS with sharp), and the levels
        // UCC_CL_HIER_*_SBGP_TLS allow (CL_HIER_TLS with sharp).
        r->nargs.net_reduce =
            ctx.lib->basic_sharp && ucc::core::team_topology(t)->max_node_size() <= 1;
        r->nargs.net_reduce_levels = ctx.lib->hier_sharp ? ctx.tuning.net_reduce_levels : 0;
    }
    if (r->nargs.generic == nullptr) {
        r->nargs.reduce_kernel =
            ucc::dt::reduce_fn(r->nargs.dt, r->nargs.op == UCC_OP_AVG ? UCC_OP_SUM : r->nargs.op);
    }
    r->view_size = view_size;
    r->view_rank = view_rank;
    if (const ucc_status_t st = check_memory_types(*r, ctx); st != UCC_OK) {
        return st;
    }
    if (r->nargs.generic != nullptr && ucc::dt::is_packed_generic(r->nargs.dt)) {
        const ucc_coll_type_t ct = coll_args->coll_type;
        if (ct == UCC_COLL_TYPE_ALLREDUCE || ct == UCC_COLL_TYPE_REDUCE ||
            ct == UCC_COLL_TYPE_REDUCE_SCATTER || ct == UCC_COLL_TYPE_REDUCE_SCATTERV) {
            UCC_LOG(ctx.log, kError,
                    "ucc_collective_init: reductions need a contiguous generic datatype "
                    "(UCC_GENERIC_DT_OPS_FLAG_CONTIG); this one has pack/unpack callbacks only");
            return UCC_ERR_NOT_SUPPORTED;
        }
        const auto *g = static_cast<const ucc::dt::Generic *>(r->nargs.generic);
        // The user's own buffer as the sample (NULL in a timing-only run that passed none,
        // and when this rank uses no buffer: an unused description is never read).
        const uint64_t src_elems = ucc::coll::src_extent_elems(r->nargs, view_size);
        const uint64_t dst_elems = ucc::coll::dst_extent_elems(r->nargs, view_size, view_rank);
        const void *sample = src_elems > 0   ? view.src.info.buffer
                             : dst_elems > 0 ? view.dst.info.buffer
                                             : nullptr;
        r->nargs.esize = ucc::dt::packed_elem_size(*g, sample);
        if (r->nargs.esize == 0 && (src_elems > 0 || dst_elems > 0)) {
            UCC_LOG(ctx.log, kError,
                    "ucc_collective_init: the generic datatype's packed_size of one element is 0");
            return UCC_ERR_NOT_SUPPORTED;
        }
        r->staging = std::make_unique<ucc::core::PackedStaging>(
            g, view_size, view_rank, ct == UCC_COLL_TYPE_BCAST && r->nargs.root != view_rank,
            &ctx.log);
    }
    const uint64_t flags = (coll_args->mask & UCC_COLL_ARGS_FIELD_FLAGS) ? coll_args->flags : 0;
    r->persistent = (flags & UCC_COLL_ARGS_FLAG_PERSISTENT) != 0;
    if (flags & UCC_COLL_ARGS_FLAG_TIMEOUT) {
        r->timeout = coll_args->timeout;
    }
    if (coll_args->mask & UCC_COLL_ARGS_FIELD_CB) {
        r->has_cb = coll_args->cb.cb != nullptr;
        r->cb = coll_args->cb;
    }
    // Zero-size collectives complete at post, except on synchronised teams
    // where even they keep barrier semantics.
    r->trivial = t.sync_type != UCC_SYNC_COLLECTIVES &&
                 ucc::core::coll_is_trivial(r->nargs, view_size) &&
                 !(r->nargs.mapped && r->nargs.work != nullptr);  // peers may write here
    r->signature = ucc::coll::signature_of(r->nargs);
    if (!r->trivial) {
        r->alg = ucc::core::select_algorithm(ctx, t, r->nargs, view_size, &why);
        if (r->alg != nullptr) {
            r->nargs.radix = ucc::core::radix_for(ctx, t, *r->alg, r->nargs, view_size);
            r->nargs.segment_bytes = ucc::core::segment_for(ctx, t, *r->alg, r->nargs, view_size);
        }
        if (r->alg == nullptr) {
            UCC_LOG(ctx.log, kError, "ucc_collective_init: %s%s", why.c_str(),
                    ctx.lib->check_asymmetric
                        ? " (UCC_CHECK_ASYMMETRIC_DT: every member completes with "
                          "UCC_ERR_NOT_SUPPORTED at post)"
                        : "");
            if (!ctx.lib->check_asymmetric) {
                return UCC_ERR_NOT_SUPPORTED;
            }
        }
        if (r->alg != nullptr && r->alg->onesided) {
            // The rounds of one-sided collectives must agree across the
            // members (lib/coll/patterns/onesided.h), and peers write the
            // counters remotely.
            const char *no =
                r->active_set         ? "an active set"
                : !team_is_ordered(t) ? "an unordered team"
                : !ctx.mapped.contains(r->nargs.work, ucc::coll::kWorkWords * sizeof(uint64_t))
                    ? "a global_work_buffer outside the memory the context mapped "
                      "(mem_params)"
                    : nullptr;
            if (no != nullptr) {
                UCC_LOG(ctx.log, kError,
                        "ucc_collective_init: the one-sided %s algorithm cannot run on %s",
                        ucc::core::coll_type_name(coll_args->coll_type), no);
                return UCC_ERR_NOT_SUPPORTED;
            }
        }
        if (ctx.lib->check_asymmetric) {
            r->checked = true;
            r->fingerprint =
                ucc::coll::fingerprint_of(r->nargs, view_rank, view_size,
                                          r->alg != nullptr ? ucc::coll::algorithm_number(*r->alg)
                                                            : ucc::coll::Fingerprint::kRefused);
        }
        if (r->alg != nullptr && r->alg->scratch != nullptr) {
            // Scratch memory is allocated here, once: a post never allocates it.
            ucc::coll::ScratchPlan plan;
            r->alg->scratch(r->nargs, view_rank, view_size, plan);
            r->scratch.set_pool(ctx.sim == nullptr ? &ctx.scratch_pool : nullptr);
            const bool refused =
                ctx.sim != nullptr && ctx.sim->fail_allocation(ucc::AllocSite::kCollScratch);
            if (refused || r->scratch.reserve(plan, ctx.tl_timing_only) != UCC_OK) {
                UCC_LOG(ctx.log, kError,
                        "ucc_collective_init: out of memory for the %s algorithm's scratch "
                        "buffers",
                        r->alg->name);
                return UCC_ERR_NO_MEMORY;
            }
        }
    }
    if (t.n_outstanding >= ucc::tag::kMaxOutstandingPerTeam - 1) {
        // Sequence numbers are matched modulo 2^16 on the wire (lib/tag.h).
        UCC_LOG(ctx.log, kError,
                "ucc_collective_init: team %u already has %llu requests not finalized (at most "
                "%u)",
                t.id, static_cast<unsigned long long>(t.n_outstanding),
                ucc::tag::kMaxOutstandingPerTeam - 1);
        return UCC_ERR_NO_RESOURCE;
    }
    t.n_outstanding++;
    ctx.unfinalized++;
    r->number = ++ctx.next_req;
    if (ctx.tl_recording) [[unlikely]] {
        ucc::TraceEvent e;
        e.kind = ucc::TraceKind::kInit;
        e.coll = coll_args->coll_type;
        e.team_hash = t.trace_hash;
        e.flags = flags;
        e.timeout = r->timeout;
        e.has_cb = r->has_cb;
        e.team = t.id;
        e.team_rank = t.rank;
        e.team_size = t.size;
        if (r->alg != nullptr) {
            e.alg = static_cast<uint16_t>(ucc::coll::algorithm_number(*r->alg));
        }
        r->record(e);
    }
    coll_trace(*r, ucc::core::LogLevel::kInfo, "init");
    if (ctx.sim != nullptr) {
        ctx.sim->charge(ucc::Work::kInit, 0);  // the library's time to init and finalize
    }
    *request = &r.release()->super;
    return UCC_OK;
}

}  // namespace

namespace ucc::core {

uint32_t take_sequence(CollRequest &r) {
    Team &t = *r.team;
    const uint32_t seq = t.seq++;
    if (std::exchange(r.counted_unposted, false)) {
        t.left_unposted();
    }
    return seq;
}

void reserve_sequence(CollRequest &r) {
    if (!r.active_set && team_is_ordered(*r.team)) {
        r.reserved_seq = take_sequence(r);
        r.seq_reserved = true;
    }
}

ucc_status_t fail_on_team_error(CollRequest &r, const char *fn) {
    Team &t = *r.team;
    Context &ctx = *t.ctx;
    if (ctx.has_dead_peers()) [[unlikely]] {
        ctx.check_team_members(t);
    }
    if (t.error != UCC_OK) {
        UCC_LOG(ctx.log, kError, "%s: team %u failed earlier: %s", fn, t.id,
                ucc_status_string(t.error));
        r.super.status = t.error;
    }
    return t.error;
}

ucc_status_t check_postable(CollRequest &r, const char *fn) {
    Context &ctx = *r.team->ctx;
    if (r.team->state == TeamState::kDestroyed) {
        UCC_LOG(ctx.log, kError, "%s: the request's team was destroyed (finalize the request)", fn);
        return UCC_ERR_INVALID_PARAM;
    }
    const ucc_status_t cur = r.super.status;
    if (!(cur == UCC_OPERATION_INITIALIZED || (r.persistent && cur == UCC_OK))) {
        UCC_LOG(ctx.log, kError,
                "%s: the request is %s; only an initialized request, or a completed persistent "
                "one, can be posted",
                fn, ucc_status_string(cur));
        return UCC_ERR_INVALID_PARAM;
    }
    if (r.trigger != nullptr) {
        UCC_LOG(ctx.log, kError,
                "%s: the request waits for its trigger on an execution engine (it posts when "
                "the trigger fires)",
                fn);
        return UCC_ERR_INVALID_PARAM;
    }
    return UCC_OK;
}

}  // namespace ucc::core

namespace {

// post_request without the exception handling.
ucc_status_t start_request(CollRequest *r, double deadline) {
    Team &t = *r->team;
    Context &ctx = *t.ctx;
    if (const ucc_status_t st = ucc::core::fail_on_team_error(*r, "ucc_collective_post");
        st != UCC_OK) [[unlikely]] {
        if (ctx.trace) [[unlikely]] {
            ucc::core::trace_post(*r, 0, st);
        }
        return st;
    }
    // The arguments the algorithm runs on: the request's, or (pack/unpack
    // datatypes, CUDA device memory) the same pointing at staged copies.
    if (r->alg != nullptr && r->alg->onesided) {
        r->nargs.round = t.onesided_rounds++;
    }
    // (No staged copy on the stack: every small post would zero one.)
    const ucc::coll::Args *run = &r->nargs;
    // chunks > 0: device memory staged chunk by chunk (device_pipeline.h).
    ucc::core::ChunkPlan pipeline;
    // Device memory within a host through CUDA IPC (device_ipc.h): the
    // collective runs on the user's buffers and stages only when a member
    // could not map its peers'.
    // (On the simulator, which stages nothing, the same decision picks the
    // protocol's simulated form: the GPU and NVLink costs charged.)
    const bool staged = r->staging && !r->trivial && !ctx.tl_timing_only;
    const bool ipc =
        (staged || (ctx.sim != nullptr && !r->trivial)) && ucc::core::device_ipc_applies(*r);
    r->over_ipc = ipc;
    if (staged && !ipc) {
        ucc::core::device_pipeline_plan(*r, &pipeline);
        const ucc_status_t st = pipeline.chunks > 0
                                    ? static_cast<ucc::core::DeviceStaging &>(*r->staging)
                                          .stage_in_chunks(r->nargs, pipeline)
                                    : r->staging->stage_in(r->nargs);
        if (st != UCC_OK) {
            return st;  // the request is unchanged and may be posted again
        }
        run = &r->staging->run;
    }
    // Tag: ordered teams match by sequence number, unordered ones by the user's
    // tag plus how often this request was posted (persistent re-posts). Active
    // sets do not consume the team's sequence (non-members do not call): they
    // match by the user's tag (or 0) in a space of their own, relying on
    // per-pair ordering for consecutive operations.
    const bool has_tag = (r->args.mask & UCC_COLL_ARGS_FIELD_TAG) != 0;
    uint32_t seq = 0;
    if (r->active_set) {
        seq = ucc::tag::kActiveSetKey | (has_tag ? static_cast<uint32_t>(r->args.tag) : 0u);
    } else if (r->seq_reserved) {
        seq = r->reserved_seq;  // taken by its triggered post
        r->seq_reserved = false;
    } else if (team_is_ordered(t)) {
        seq = ucc::core::take_sequence(*r);
    } else {
        seq = static_cast<uint32_t>(r->args.tag) | (static_cast<uint32_t>(r->posts & 0x7fff) << 16);
    }
    r->posts++;
    if (ctx.trace) [[unlikely]] {
        ucc::core::trace_post(*r, seq, UCC_OK);
    }
    __atomic_store_n(&r->super.status, UCC_INPROGRESS, __ATOMIC_RELEASE);
    coll_trace(*r, ucc::core::LogLevel::kDebug, "post");
    if (ctx.tl_recording) [[unlikely]] {
        ucc::TraceEvent e;
        e.kind = ucc::TraceKind::kPost;
        e.coll = r->args.coll_type;
        e.team = t.id;
        e.team_hash = t.trace_hash;
        e.key = seq;
        e.sync = t.sync_type;
        e.ordered = team_is_ordered(t);
        e.active_set = r->active_set != nullptr;
        e.team_rank = r->active_set ? r->set_rank : t.rank;
        e.team_size = r->active_set ? r->active_set->size : t.size;
        e.root = r->nargs.root;
        e.signature = r->signature;
        e.flags = (r->args.mask & UCC_COLL_ARGS_FIELD_FLAGS) ? r->args.flags : 0;
        e.timeout = r->timeout;
        r->record(e);
    }
    if (r->trivial) {
        r->complete(UCC_OK);
        return UCC_OK;
    }
    r->deadline = deadline >= 0    ? deadline
                  : r->timeout > 0 ? ctx.transport->now() + r->timeout
                                   : std::numeric_limits<double>::infinity();
    if (r->active_set) {
        r->coll.emplace(*r->active_set, *run, r->set_rank, r->active_set->size, t.tag_base(seq),
                        r->signature, &r->scratch);
    } else {
        r->coll.emplace(t, *run, t.rank, t.size, t.tag_base(seq), r->signature, &r->scratch);
    }
    // A timeout ends the collective here while its peers may go on: whatever
    // it still has in flight must not touch the user's buffers afterwards.
    r->coll->set_may_end_early(r->timeout > 0 && ctx.timeout_copy);
    if (ctx.tl_recording) [[unlikely]] {
        // In place, one buffer is ignored (src; dst for scatter(v) at the root);
        // its non-v description still lets the trace see a stray access.
        const ucc_coll_type_t ct = r->args.coll_type;
        const bool scatter = ct == UCC_COLL_TYPE_SCATTER || ct == UCC_COLL_TYPE_SCATTERV;
        const bool v_src = ct == UCC_COLL_TYPE_ALLTOALLV || ct == UCC_COLL_TYPE_SCATTERV;
        ucc::TraceBuffer which = ucc::TraceBuffer::kNone;
        const ucc_coll_buffer_info_t *info = nullptr;
        if (r->nargs.inplace && scatter && r->nargs.dst == nullptr) {
            which = ucc::TraceBuffer::kDst;
            info = &r->args.dst.info;
        } else if (r->nargs.inplace && !scatter && r->nargs.src == nullptr && !v_src) {
            which = ucc::TraceBuffer::kSrc;
            info = &r->args.src.info;
        }
        uint64_t unused_bytes = 0;
        if (info != nullptr &&
            __builtin_mul_overflow(info->count, uint64_t{r->nargs.esize}, &unused_bytes)) {
            unused_bytes = UINT64_MAX;
        }
        r->coll->enable_trace(r->number, which, info != nullptr ? info->buffer : nullptr,
                              unused_bytes);
    }
    if (ctx.sim != nullptr) {
        ucc::SpanInfo &sp = r->span;
        sp.collective = ucc::core::coll_type_name(r->args.coll_type);
        sp.algorithm = ipc ? "cuda_ipc" : r->alg != nullptr ? r->alg->name : "none (refused)";
        sp.dtype = r->nargs.esize != 0 ? ucc::dt::name(r->nargs.dt) : "none";
        sp.team_id = t.id;
        sp.seq = seq;
        sp.team_size = r->coll->size();
        sp.rank = r->coll->rank();
        sp.in_elems = r->nargs.src_count;
        sp.out_elems =
            r->args.coll_type == UCC_COLL_TYPE_BCAST ? r->nargs.src_count : r->nargs.dst_count;
        sp.tag_base = t.tag_base(seq);
        ctx.sim->trace_begin(sp);
        ctx.sim->charge(ucc::Work::kCall, 0);        // the library's own time per call
        ucc::core::charge_device_copies(*r, false);  // the inputs off the device
    }
    ucc::alloc_site(ctx.sim, ucc::AllocSite::kCollTask);
    const bool sync = t.sync_type == UCC_SYNC_COLLECTIVES;
    if (ipc) {
        std::unique_ptr<ucc::core::IpcDevice> dev;
        if (ctx.sim != nullptr) {
            dev = ucc::core::sim_ipc_device(*ctx.sim, ctx.log);
        } else {
            auto &ds = static_cast<ucc::core::DeviceStaging &>(*r->staging);
            std::shared_ptr<ucc::core::IpcCache> &ipc_cache = ctx.rare().ipc;
            if (!ipc_cache) {
                ipc_cache = std::make_shared<ucc::core::IpcCache>(ds.ops);
            }
            dev = ucc::core::stream_ipc_device(ds, ipc_cache);
        }
        r->task = ucc::core::run_device_ipc(*r->coll, r->alg->run, std::move(dev), &r->scratch,
                                            r->timeout > 0 && ctx.timeout_copy);
    } else if (pipeline.chunks > 0) {
        r->task = ucc::core::run_device_pipeline(
            *r->coll, r->alg->run, static_cast<ucc::core::DeviceStaging &>(*r->staging),
            &r->scratch, r->timeout > 0 && ctx.timeout_copy);
    } else if (r->checked) {
        r->task = ucc::coll::run_checked(*r->coll, r->alg != nullptr ? r->alg->run : nullptr,
                                         r->fingerprint, sync);
    } else {
        r->task = sync ? ucc::coll::run_synchronized(*r->coll, r->alg->run) : r->alg->run(*r->coll);
    }
    ctx.active.push_back(r);
    if (r->deadline != std::numeric_limits<double>::infinity()) {
        ctx.n_timed++;
    }
    if (r->has_cb) {
        ctx.n_callbacks++;
    }
    r->task.start(&r->owner);  // may complete (and even be finalized) right here
    return UCC_OK;
}

// The trace's init record (TRACE), when the team is live and its context records.
void record_init(const ucc_coll_args_t *coll_args, ucc_coll_req_h *request, ucc_team_h team,
                 ucc_status_t st) {
    if (team == nullptr || team->team.state == TeamState::kDestroyed) {
        return;
    }
    Context &ctx = *team->team.ctx;
    if (ctx.trace) [[unlikely]] {
        ucc::core::ContextGuard guard(ctx);
        ucc::core::trace_init(ctx, &team->team, coll_args,
                              st == UCC_OK ? req_of(*request) : nullptr, st);
    }
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_collective_init(ucc_coll_args_t *coll_args, ucc_coll_req_h *request,
                                            ucc_team_h team) {
    return api_guard(__func__, [&]() {
        const ucc_status_t st = coll_init(coll_args, request, team);
        record_init(coll_args, request, team, st);
        return st;
    });
}

// start_request, where an exception (an allocation that failed) after the
// request went in progress completes it with the failure's status, as a
// collective that failed while running: test and the callback report it,
// finalize frees it, and the post itself succeeded (the callback may already
// have finalized the request). Before that point the request is unchanged.
ucc_status_t ucc::core::post_request(CollRequest &req, double deadline) {
    CollRequest *r = &req;
    try {
        return start_request(r, deadline);
    } catch (...) {
        const ucc_status_t st = ucc::status_of_current_exception();
        if (r->super.status != UCC_INPROGRESS) {
            throw;  // nothing changed: api_guard reports it
        }
        UCC_LOG(r->team->ctx->log, kError, "ucc_collective_post: %s while posting %s",
                ucc_status_string(st), ucc::core::coll_type_name(r->args.coll_type));
        try {
            r->complete(st);
        } catch (...) {
            __atomic_store_n(&r->super.status, st, __ATOMIC_RELEASE);
        }
        return UCC_OK;
    }
}

namespace {

ucc_status_t coll_post(ucc_coll_req_h request) {
    if (request == nullptr) {
        log_error("ucc_collective_post: request is NULL");
        return UCC_ERR_INVALID_PARAM;
    }
    CollRequest *r = req_of(request);
    ucc::core::ContextGuard guard(*r->team->ctx);
    UCC_TRY(ucc::core::check_postable(*r, "ucc_collective_post"));
    return ucc::core::post_request(*r, -1);
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_collective_post(ucc_coll_req_h request) {
    return api_guard(__func__, [&]() { return coll_post(request); });
}

UCC_EXPORT ucc_status_t ucc_collective_init_and_post(ucc_coll_args_t *coll_args,
                                                     ucc_coll_req_h *request, ucc_team_h team) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        const ucc_status_t init_st = coll_init(coll_args, request, team);
        record_init(coll_args, request, team, init_st);
        UCC_TRY(init_st);
        ucc::core::ContextGuard guard(*team->team.ctx);
        ucc_status_t st = coll_post(*request);
        if (st != UCC_OK) {
            ucc::core::free_request(req_of(*request));
            *request = nullptr;
        }
        return st;
    });
}

UCC_EXPORT ucc_status_t ucc_collective_finalize(ucc_coll_req_h request) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (request == nullptr) {
            log_error("ucc_collective_finalize: request is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        CollRequest *r = req_of(request);
        ucc::core::ContextGuard guard(*r->team->ctx);
        if (r->super.status == UCC_INPROGRESS) {
            UCC_LOG(r->team->ctx->log, kError,
                    "ucc_collective_finalize: the request is still in progress");
            return UCC_ERR_INVALID_PARAM;
        }
        if (r->trigger != nullptr) {
            r->trigger->forget(*r);  // finalized before its trigger fired
        }
        if (r->stream_ticket != 0) [[unlikely]] {
            ucc::core::Ee::end_on_stream(*r->team->ctx, *r);  // its stream goes on
        }
        coll_trace(*r, ucc::core::LogLevel::kDebug, "finalize");
        ucc::core::free_request(r);
        return UCC_OK;
    });
}
