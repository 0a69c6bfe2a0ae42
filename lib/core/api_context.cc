// C API: context configuration, create/progress/destroy, attributes, memory maps.
#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "lib/coll/patterns/onesided.h"
#include "lib/core/context_peers.h"
#include "lib/core/core.h"
#include "lib/core/trace_record.h"
#include "lib/core/transport_select.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::log_error;

namespace ucc::core {

int64_t PeerMap::index_of(Peer p) const {
    if (!table_) {
        const int64_t d = static_cast<int64_t>(p) - static_cast<int64_t>(start_);
        if (stride_ == 0) {
            return d == 0 && size_ > 0 ? 0 : -1;
        }
        if (d % stride_ != 0 || d / stride_ < 0 || static_cast<uint64_t>(d / stride_) >= size_) {
            return -1;
        }
        return d / stride_;
    }
    for (uint64_t i = 0; i < size_; ++i) {
        if (at(i) == p) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

PeerMap PeerMap::from_table(std::vector<Peer> table) {
    PeerMap m;
    m.size_ = table.size();
    if (table.empty()) {
        return m;
    }
    m.start_ = table[0];
    m.stride_ = table.size() > 1 ? static_cast<int64_t>(table[1] - table[0]) : 1;
    for (size_t i = 0; i < table.size(); ++i) {
        if (table[i] != static_cast<Peer>(static_cast<int64_t>(m.start_) +
                                          static_cast<int64_t>(i) * m.stride_)) {
            m.table_ = std::make_shared<const std::vector<Peer>>(std::move(table));
            return m;
        }
    }
    return m;
}

Context::Context(Lib *l, Config cfg) : lib(l), config(std::move(cfg)) {
    hot[0] = &transport;
    hot[1] = &runq;
    hot[2] = &progress_events;
}

Context::~Context() {
    trace_close(*this);  // a context whose creation failed
    join.reset();        // before the pollers' list and the transport it uses
    if (transport) {
        mapped.unmap(*transport);
    }
    if (team_room != nullptr) {
        Pool::deallocate_in(team_room, sizeof(ucc_team));
    }
}

ucc_team *new_team_handle(Context &ctx) {
    void *mem = std::exchange(ctx.team_room, nullptr);
    if (mem == nullptr) {
        mem = Pool::allocate_in(nullptr, sizeof(ucc_team));
    }
    return ::new (mem) ucc_team{{}, Team(&ctx)};  // (nothing here throws)
}

bool context_destroyed(const ucc_context *context, const char *fn) {
    if (!context->ctx.destroyed) {
        return false;
    }
    UCC_LOG(context->ctx.log, kError, "%s: the context was destroyed", fn);
    return true;
}

void release_context(Context &ctx) {
    ctx.join.reset();  // gives up an exchange still running, through the transport
    if (ctx.rare_state != nullptr) {
        ctx.rare_state->ipc.reset();  // (every request completed: nothing pins a mapping)
    }
    if (ctx.team_room != nullptr) {
        Pool::deallocate_in(std::exchange(ctx.team_room, nullptr), sizeof(ucc_team));
    }
    if (ctx.transport) {
        ctx.mapped.unmap(*ctx.transport);
    }
    ctx.transport.reset();
    ctx.sim = nullptr;
    ctx.tl_recording = false;
    ctx.peers = PeerMap();
    ucc::free_storage(ctx.address);
    ctx.tuning = Tuning();  // points into the configuration: first
    ctx.config.release();
    ctx.pool.release();
    ctx.runq = RunQueue();
    ucc::free_storage(ctx.pollers);
    ucc::free_storage(ctx.live_teams);
    if (ctx.rare_state != nullptr) {  // (its tombstones stay)
        ucc::free_storage(ctx.rare_state->failed_peers);
        ucc::free_storage(ctx.rare_state->dead_peers);
    }
}

void Context::on_complete(Xfer *x) {
    ++progress_events;
    auto *ws = static_cast<coll::WaitState *>(x->owner);
    if (ws != nullptr) {
        x->owner = nullptr;
        UCC_ASSERT(ws->pending > 0);
        if (--ws->pending == 0) {
            runq.push_back(ws->handle);
        }
    }
}

void Context::lock() {
    if (sim == nullptr) {
        mu.lock();
        return;
    }
    // A yield point (another thread of the rank may run first), then wait
    // while another thread holds the lock.
    const uint32_t me = sim->thread() + 1;
    const uint64_t seen = completions;
    sim->yield_thread(false);
    while (sim_owner != 0 && sim_owner != me) {
        sim->yield_thread(true);
    }
    sim_owner = me;
    if (++sim_depth == 1 && completions != seen) {
        others_completed = true;  // while this thread waited to enter
    }
}

void Context::unlock() {
    if (sim == nullptr) {
        mu.unlock();
        return;
    }
    if (--sim_depth == 0) {
        sim_owner = 0;
    }
}

void Context::idle_unlocked(double deadline) {
    // A real idle() returns at once; a simulated one lets virtual time pass
    // until something happens, during which the rank's other threads may use
    // the context: the lock is let go for it, as a real thread's lock is free
    // between its progress calls.
    const uint32_t owner = sim_owner;
    const uint32_t depth = sim_depth;
    sim_owner = 0;
    sim_depth = 0;
    transport->idle(deadline);
    while (sim_owner != 0) {
        sim->yield_thread(true);
    }
    sim_owner = owner;
    sim_depth = depth;
}

bool Context::pass(double *next_deadline, ucc_status_t *result, bool *polled) {
    progress_events = 0;
    bool worked = false;
    // Pollers may complete OOB steps (team creation).
    for (auto it = pollers.begin(); it != pollers.end();) {
        Poller *p = *it;
        ++it;  // a poller may remove itself
        worked |= p->poll();
    }
    *polled = worked;
    transport->progress();
    while (!runq.empty()) {
        runq.pop_front().resume();
        worked = true;
    }
    // After the run queue is empty: failing a collective destroys its frames.
    if (has_failed_peers()) [[unlikely]] {
        fail_collectives_of_failed_peers();
        worked = true;
    }
    worked |= progress_events != 0;
    // Timeouts, in the transport's clock (virtual on the simulator). Only
    // requests with a timeout are looked at: reading the clock costs more than
    // an idle poll of the UCX worker, and most collectives have none.
    if (n_timed > 0) {
        double t = transport->now();
        for (CollRequest *next = active.front(); next != nullptr;) {
            CollRequest *r = next;
            next = ActiveList::next(r);  // complete() takes r off the list
            if (r->deadline <= t) {
                UCC_LOG(log, kWarn, "collective %s (team %u) timed out after %g s",
                        coll_type_name(r->args.coll_type), r->team->id, r->timeout);
                r->complete(UCC_ERR_TIMED_OUT);
                *result = UCC_ERR_TIMED_OUT;
                worked = true;
            } else if (r->deadline < *next_deadline) {
                *next_deadline = r->deadline;
            }
        }
    }
    return worked;
}

ucc_status_t Context::progress() {
    ucc_status_t result = UCC_OK;
    double next_deadline = std::numeric_limits<double>::infinity();
    bool polled = false;
    if (!pass(&next_deadline, &result, &polled)) {
        if (sim != nullptr && thread_multiple) [[unlikely]] {
            // Not when another thread completed something (perhaps this
            // thread's request) while this one waited for the lock: its
            // caller has to see that first, as a real thread would.
            if (!std::exchange(others_completed, false)) {
                idle_unlocked(next_deadline);
            }
        } else if (sim != nullptr && drainable()) {
            sim->idle_draining(*this);
        } else {
            transport->idle(next_deadline);
        }
    }
    if (sim != nullptr && sim->aborted()) {
        abort_all(UCC_ERR_NO_MESSAGE);
        return UCC_ERR_NO_MESSAGE;
    }
    return result;
}

Drain::Step Context::step() {
    // A pass of progress() that never waits. Another pass right away can
    // find more only where this one left work behind: coroutines scheduled
    // after the run queue ran (a callback that posted), news of a failed
    // peer, or an OOB step that moved on (the next may complete when tested).
    Step s;
    ucc_status_t result = UCC_OK;
    bool polled = false;
    pass(&s.deadline, &result, &polled);
    s.again = polled || !runq.empty() || has_failed_peers();
    if (sim->aborted()) {
        abort_all(UCC_ERR_NO_MESSAGE);
        s.again = false;
    }
    return s;
}

bool Context::busy() const {
    return !active.empty() || !pollers.empty() || team_create_in_progress;
}

bool Context::drain() {
    // What the program's next progress() would do while it waits: nothing
    // polls, nothing times out and no callback runs (drainable), so a pass is
    // the transport's arrivals and the run queue. A failed peer is left to
    // that progress() (it may fail teams the program holds).
    const uint64_t before = completions;
    progress_events = 0;
    transport->progress();
    while (!runq.empty()) {
        runq.pop_front().resume();
    }
    // Nothing that drainable() asks for can appear in a pass (no request is
    // posted, no team created): only a completion ends the wait.
    return completions != before || has_failed_peers() || sim->aborted();
}

void Context::fail_collectives_of_failed_peers() {
    Rare &rs = rare();
    std::vector<Peer> peers;
    peers.swap(rs.failed_peers);
    rs.dead_peers.insert(rs.dead_peers.end(), peers.begin(), peers.end());
    // Every team with a failed member fails, also one with no collective in
    // flight (its next collective would wait on members that gave up on the
    // current one: they saw the failure during it) and one still being
    // created (its exchange may have completed before the failure).
    for (ucc_team *h : live_teams) {
        Team &t = h->team;
        if (t.error != UCC_OK ||
            (t.state != TeamState::kActive && t.state != TeamState::kCreating)) {
            continue;
        }
        for (Peer p : peers) {
            if (t.peers.index_of(p) >= 0) {
                t.error = UCC_ERR_NO_MESSAGE;
                UCC_LOG(log, kError, "team %u failed: a member's process failed", t.id);
                break;
            }
        }
    }
    for (CollRequest *next = active.front(); next != nullptr;) {
        CollRequest *r = next;
        next = ActiveList::next(r);  // complete() takes r off the list
        for (Peer p : peers) {
            if (r->team->peers.index_of(p) >= 0) {
                UCC_LOG(log, kError, "collective %s (team %u) fails: a member's process failed",
                        coll_type_name(r->args.coll_type), r->team->id);
                r->complete(UCC_ERR_NO_MESSAGE);
                break;
            }
        }
    }
}

ucc_status_t Context::check_team_members(Team &t) {
    if (t.error == UCC_OK && rare_state != nullptr) {
        for (Peer p : rare_state->dead_peers) {
            if (t.peers.index_of(p) >= 0) {
                t.error = UCC_ERR_NO_MESSAGE;
                UCC_LOG(log, kError, "team %u failed: a member's process failed", t.id);
                break;
            }
        }
    }
    return t.error;
}

void Context::abort_all(ucc_status_t st) {
    while (!active.empty()) {
        active.front()->complete(st);
    }
}

uint64_t Context::cancel_requests(const Team *t) {
    uint64_t n = 0;
    for (CollRequest *next = active.front(); next != nullptr;) {
        CollRequest *r = next;
        next = ActiveList::next(r);  // complete() takes r off the list
        if (t == nullptr || r->team == t) {
            r->complete(UCC_ERR_CANCELED);
            ++n;
            next = active.front();  // a callback may have finalized others
            while (next != nullptr && t != nullptr && next->team != t) {
                next = ActiveList::next(next);
            }
        }
    }
    return n;
}

}  // namespace ucc::core

namespace {

using ucc::core::Context;

void transport_log(void *obj, bool error, const char *line) {
    const auto *ctx = static_cast<Context *>(obj);
    const char *name = ctx->transport ? ctx->transport->name() : "transport";
    if (error) {
        UCC_LOG(ctx->log, kError, "%s: %s", name, line);
    } else {
        UCC_LOG(ctx->log, kDebug, "%s: %s", name, line);
    }
}

double context_clock(const void *obj) {
    return static_cast<const Context *>(obj)->transport->now();
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_context_config_read(ucc_lib_h lib_handle, const char *filename,
                                                ucc_context_config_h *config) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (lib_handle == nullptr || config == nullptr) {
            log_error("ucc_context_config_read: %s is NULL",
                      lib_handle == nullptr ? "lib_handle" : "config");
            return UCC_ERR_INVALID_PARAM;
        }
        // Owned until handed out: a failure (an exception included) frees it.
        std::unique_ptr<ucc_context_config> c(new ucc_context_config{
            ucc::core::Config(ucc::core::context_config_table(), lib_handle->lib.config.prefix())});
        UCC_TRY(c->config.load(filename, &lib_handle->lib.config));
        *config = c.release();
        return UCC_OK;
    });
}

UCC_EXPORT void ucc_context_config_release(ucc_context_config_h config) {
    delete config;
}

UCC_EXPORT void ucc_context_config_print(const ucc_context_config_h config, FILE *stream,
                                         const char *title, ucc_config_print_flags_t print_flags) {
    if (config == nullptr) {
        log_error("ucc_context_config_print: config is NULL");
        return;
    }
    config->config.print(stream, title, print_flags);
}

UCC_EXPORT ucc_status_t ucc_context_config_modify(ucc_context_config_h config,
                                                  const char *component, const char *name,
                                                  const char *value) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (config == nullptr || name == nullptr || value == nullptr) {
            log_error("ucc_context_config_modify: %s is NULL",
                      config == nullptr ? "config" : (name == nullptr ? "name" : "value"));
            return UCC_ERR_INVALID_PARAM;
        }
        if (component != nullptr) {
            std::string c = component;
            if (c.size() < 4 || (c.rfind("cl/", 0) != 0 && c.rfind("tl/", 0) != 0)) {
                if (c != "all") {
                    log_error(
                        "ucc_context_config_modify: component '%s' is not of the form "
                        "cl/<name> or tl/<name>",
                        component);
                    return UCC_ERR_INVALID_PARAM;
                }
            }
            const bool known =
                c == "all" || c == "cl/basic" ||
                (c.rfind("tl/", 0) == 0 && ucc::core::find_transport(c.substr(3)) != nullptr);
            if (!known) {
                log_error(
                    "ucc_context_config_modify: no component '%s' (have cl/basic and tl/<%s>)",
                    component, ucc::core::transport_names().c_str());
                return UCC_ERR_NOT_FOUND;
            }
        }
        return config->config.modify(name, value, component);
    });
}

UCC_EXPORT ucc_status_t ucc_context_create(ucc_lib_h lib_handle, const ucc_context_params_t *params,
                                           const ucc_context_config_h config,
                                           ucc_context_h *context) {
    const ucc_status_t created = api_guard(__func__, [&]() -> ucc_status_t {
        if (lib_handle == nullptr || params == nullptr || context == nullptr) {
            log_error(
                "ucc_context_create: %s is NULL",
                lib_handle == nullptr ? "lib_handle" : (params == nullptr ? "params" : "context"));
            return UCC_ERR_INVALID_PARAM;
        }
        ucc::core::Lib &lib = lib_handle->lib;
        ucc::core::Config cfg =
            config != nullptr
                ? config->config
                : ucc::core::Config(ucc::core::context_config_table(), lib.config.prefix());
        if (config == nullptr) {
            UCC_TRY(cfg.load(nullptr, &lib.config));
        }
        bool has_oob = (params->mask & UCC_CONTEXT_PARAM_FIELD_OOB) != 0;
        if (has_oob) {
            const ucc_oob_coll_t &o = params->oob;
            if (o.allgather == nullptr || o.req_test == nullptr || o.req_free == nullptr) {
                log_error("ucc_context_create: params->oob has a NULL callback");
                return UCC_ERR_INVALID_PARAM;
            }
            if (o.n_oob_eps == 0 || o.oob_ep >= o.n_oob_eps) {
                log_error("ucc_context_create: params->oob.oob_ep %u is not in [0, %u)", o.oob_ep,
                          o.n_oob_eps);
                return UCC_ERR_INVALID_PARAM;
            }
        }
        if ((params->mask & UCC_CONTEXT_PARAM_FIELD_TYPE) &&
            params->type != UCC_CONTEXT_EXCLUSIVE && params->type != UCC_CONTEXT_SHARED) {
            log_error("ucc_context_create: invalid params->type %d",
                      static_cast<int>(params->type));
            return UCC_ERR_INVALID_PARAM;
        }
        if ((params->mask & UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE) &&
            params->sync_type != UCC_NO_SYNC_COLLECTIVES &&
            params->sync_type != UCC_SYNC_COLLECTIVES) {
            log_error("ucc_context_create: invalid params->sync_type %d",
                      static_cast<int>(params->sync_type));
            return UCC_ERR_INVALID_PARAM;
        }
        if ((params->mask & UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS) &&
            params->mem_params.n_segments > 0 && params->mem_params.segments == nullptr) {
            log_error("ucc_context_create: params->mem_params.segments is NULL");
            return UCC_ERR_INVALID_PARAM;
        }

        std::unique_ptr<ucc_context> h(new ucc_context{Context(&lib, std::move(cfg))});
        Context &ctx = h->ctx;
        ctx.pool.reserve((has_oob ? ucc::core::kContextAgreementBlocks : 0) +
                         ucc::core::kContextFirstBlocks);
        ctx.team_room = ucc::Pool::allocate_in(nullptr, sizeof(ucc_team));
        ucc::core::LogLevel level = lib.log.level();
        const std::string &lvl = ctx.config.get("LOG_LEVEL");
        if (!lvl.empty() && !ucc::core::parse_log_level(lvl, &level)) {
            log_error("ucc_context_create: invalid LOG_LEVEL '%s'", lvl.c_str());
            return UCC_ERR_INVALID_PARAM;
        }
        ctx.log.set_level(level);
        ucc::core::load_tuning(ctx.config, ctx.log, &ctx.tuning);
        ctx.thread_multiple = lib.thread_mode == UCC_THREAD_MULTIPLE;

        {
            ucc::TransportParams tp;
            tp.has_oob = has_oob;
            tp.oob_ep = has_oob ? params->oob.oob_ep : 0;
            tp.n_oob_eps = has_oob ? params->oob.n_oob_eps : 0;
            tp.thread_multiple = lib.thread_mode == UCC_THREAD_MULTIPLE;
            const std::string &eh = ctx.config.get("UCX_ERR_HANDLING");
            tp.peer_errors =
                strcasecmp(eh.c_str(), "peer") == 0   ? ucc::TransportParams::PeerErrors::kPeer
                : strcasecmp(eh.c_str(), "none") == 0 ? ucc::TransportParams::PeerErrors::kNone
                                                      : ucc::TransportParams::PeerErrors::kAuto;
            tp.desync_check = ctx.config.get_bool("DESYNC_CHECK");
            ctx.timeout_copy = ctx.config.get_bool("TIMEOUT_COPY");
            tp.log = transport_log;
            tp.log_ctx = &ctx;
            // The context's TLS wins over the library's.
            std::string tls = ctx.config.get("TLS");
            if (tls.empty()) {
                tls = lib.config.get("TLS");
            }
            ucc::core::TlsChoice choice;
            std::string why;
            ucc_status_t st = ucc::core::parse_tls(tls, &choice, &why);
            const ucc::TransportEntry *chosen = nullptr;
            if (st == UCC_OK) {
                st = ucc::core::select_transport(choice, tp, &ctx.transport, &chosen, &why);
            }
            if (st != UCC_OK) {
                log_error("ucc_context_create: %s", why.c_str());
                return st;
            }
            UCC_LOG(ctx.log, kDebug, "ucc_context_create: transport %s", chosen->name);
        }
        ctx.transport->set_sink(&ctx);
        ctx.sim = ctx.transport->simulated();
        if (ucc_status_t st = ucc::core::context_network(ctx); st != UCC_OK) {
            return st;
        }
        ctx.tl_recording = ctx.sim != nullptr && ctx.sim->recording();
        ctx.tl_timing_only = ctx.sim != nullptr && ctx.sim->timing_only();
        ctx.log.set_clock(&ctx, context_clock);
        ctx.config.log_ignored(ctx.log);
        if (params->mask & UCC_CONTEXT_PARAM_FIELD_TYPE) {
            ctx.type = params->type;
        }
        ctx.sync_type = lib.sync_type;
        if (params->mask & UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE) {
            ctx.sync_type = params->sync_type;
        }
        if (params->mask & UCC_CONTEXT_PARAM_FIELD_ID) {
            ctx.ctx_id = params->ctx_id;
        }
        std::span<const ucc_mem_map_t> segments;
        if (params->mask & UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS) {
            const ucc_mem_map_params_t &mp = params->mem_params;
            segments = {mp.segments, mp.n_segments};
        }
        ucc::core::trace_open(ctx, has_oob ? &params->oob : nullptr);
        if (!segments.empty()) {
            std::string why;
            if (ucc_status_t st = ctx.mapped.map(*ctx.transport, segments, &why); st != UCC_OK) {
                log_error("ucc_context_create: %s", why.c_str());
                return st;
            }
        }
        ucc::alloc_site(ctx.sim, ucc::AllocSite::kContextAddress);
        ctx.address.resize(ctx.transport->address_length());
        ctx.transport->address(ctx.address.data());
        ctx.mapped.append_to(&ctx.address);

        if (ctx.sim != nullptr) {
            ctx.sim->attach(&ctx);  // a world that progresses ranks itself (fiberless)
        }
        if (has_oob) {
            ctx.has_oob = true;
            ctx.oob = params->oob;
            UCC_TRY(ucc::core::exchange_peers(ctx));
            ctx.log.set_prefix("ctx_ep=" + std::to_string(ctx.oob.oob_ep));
        }
        {
            std::lock_guard<std::mutex> lk(lib.mu);
            lib.n_contexts++;
        }
        *context = h.release();
        return UCC_OK;
    });
    if (created == UCC_OK && (*context)->ctx.trace) [[unlikely]] {
        // The creation after the trace opened was the library's time.
        (*context)->ctx.trace_exit();
    }
    return created;
}

UCC_EXPORT ucc_status_t ucc_context_progress(ucc_context_h context) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (context == nullptr) {
            log_error("ucc_context_progress: context is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::context_destroyed(context, "ucc_context_progress")) {
            return UCC_ERR_INVALID_PARAM;
        }
        ucc::core::ContextGuard guard(context->ctx);
        return context->ctx.progress();
    });
}

UCC_EXPORT ucc_status_t ucc_context_destroy(ucc_context_h context) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (context == nullptr) {
            log_error("ucc_context_destroy: context is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::context_destroyed(context, "ucc_context_destroy")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Context &ctx = context->ctx;
        ucc::core::ContextGuard guard(ctx);
        if (ctx.n_mem_maps != 0) {
            UCC_LOG(ctx.log, kError,
                    "ucc_context_destroy: %llu memory maps are still mapped; unmap them first",
                    static_cast<unsigned long long>(ctx.n_mem_maps));
            return UCC_ERR_INVALID_PARAM;
        }
        // A program can always tear down: collectives still in progress are
        // cancelled (their requests stay valid until finalized), teams still
        // being created are abandoned, and teams go down with the context
        // (Open MPI's coll/ucc destroys the context at MPI_Finalize while
        // communicators the program did not free still hold their teams; the
        // handles become tombstones).
        if (const uint64_t n = ctx.cancel_requests(nullptr); n != 0) {
            UCC_LOG(ctx.log, kInfo,
                    "ucc_context_destroy: %llu collectives in progress completed with "
                    "UCC_ERR_CANCELED",
                    static_cast<unsigned long long>(n));
        }
        if (!ctx.live_teams.empty()) {
            UCC_LOG(ctx.log, kInfo, "ucc_context_destroy: destroying %zu teams along with it",
                    ctx.live_teams.size());
            while (!ctx.live_teams.empty()) {
                ucc::core::retire_team(ctx.live_teams.back());
            }
        }
        ctx.team_create_in_progress = false;
        ctx.scratch_pool.close();
        std::lock_guard<std::mutex> lk(ctx.lib->mu);
        ctx.lib->n_contexts--;
        // Keep a tombstone (with the tombstones of its teams) until ucc_finalize (P36).
        ctx.destroyed = true;
        // The log's clock reads the transport: later lines (calls on the
        // tombstone) go without a time.
        ctx.log.set_clock(nullptr, nullptr);
        ucc::core::trace_close(ctx);
        if (ctx.unfinalized == 0) {
            ucc::core::release_context(ctx);
        } else {
            // Released when the last request is finalized (free_request).
            UCC_LOG(ctx.log, kInfo,
                    "ucc_context_destroy: %llu requests are not finalized yet; the context's "
                    "resources go when the last one is",
                    static_cast<unsigned long long>(ctx.unfinalized));
        }
        ctx.lib->rare_locked().dead_contexts.emplace_back(context);
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_context_get_attr(ucc_context_h context,
                                             ucc_context_attr_t *context_attr) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (context == nullptr || context_attr == nullptr) {
            log_error("ucc_context_get_attr: %s is NULL",
                      context == nullptr ? "context" : "context_attr");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::context_destroyed(context, "ucc_context_get_attr")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Context &ctx = context->ctx;
        ucc::core::ContextGuard guard(ctx);
        if (context_attr->mask & UCC_CONTEXT_ATTR_FIELD_TYPE) {
            context_attr->type = ctx.type;
        }
        if (context_attr->mask & UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE) {
            context_attr->sync_type = ctx.sync_type;
        }
        if (context_attr->mask & UCC_CONTEXT_ATTR_FIELD_CTX_ADDR) {
            context_attr->ctx_addr = ctx.address.data();
        }
        if (context_attr->mask & UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN) {
            context_attr->ctx_addr_len = ctx.address.size();
        }
        if (context_attr->mask & UCC_CONTEXT_ATTR_FIELD_WORK_BUFFER_SIZE) {
            // The one-sided algorithms' completion counters.
            context_attr->global_work_buffer_size = ucc::coll::kWorkWords * sizeof(uint64_t);
        }
        return UCC_OK;
    });
}
