// Execution engines: the queues, the waiting triggered posts and their
// triggers (lib/core/ee.h).
#include "lib/core/ee.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace ucc::core {

Ee::Ee(Team *t, const ucc_ee_params_t &p, uint32_t n)
    : team(t),
      ctx(t->ctx),
      type(p.ee_type),
      ee_context(p.ee_context),
      ee_context_size(p.ee_context_size),
      number(n) {}

Ee::~Ee() {
    watch(false);
}

void Ee::watch(bool on) {
    if (on == watched_ || (on && ctx == nullptr)) {
        return;
    }
    if (on) {
        ctx->pollers.push_back(this);
        it_ = std::prev(ctx->pollers.end());
    } else {
        ctx->pollers.erase(it_);
    }
    watched_ = on;
}

void Ee::record(TraceKind kind, uint64_t offset, const CollRequest *r, uint64_t flags, bool write) {
    if (ctx == nullptr || !ctx->tl_recording) [[likely]] {
        return;
    }
    TraceEvent e;
    e.kind = kind;
    e.key = number;
    e.offset = offset;
    e.req = r != nullptr ? r->number : 0;
    e.flags = flags;
    e.write = write;
    ctx->record(e);
}

ucc_status_t Ee::park(CollRequest &r) {
    // In the active list, without a collective: timeouts, failed peers,
    // cancellation and teardown find it there (Context::pass and friends).
    waiting.push_back(&r);
    if (gate) {
        if (const ucc_status_t st = gate->enqueue(ctx->log, &r, &r.stream_ticket); st != UCC_OK) {
            waiting.pop_back();
            return st;
        }
    }
    r.trigger = this;
    reserve_sequence(r);
    r.deadline =
        r.timeout > 0 ? ctx->transport->now() + r.timeout : std::numeric_limits<double>::infinity();
    if (ctx->tl_recording) [[unlikely]] {
        TraceEvent e;
        e.kind = TraceKind::kTriggeredPost;
        e.key = number;
        e.req = r.number;
        e.team = r.team->id;
        e.ordered = r.seq_reserved;
        e.offset = r.reserved_seq;
        e.flags = gate ? 1 : 0;  // a stream engine's: its COLLECTIVE_POST follows now
        ctx->record(e);
    }
    if (gate) {
        // Posted on the stream: the event is there at once, as the
        // reference's stream engines queue it (programs take it right after
        // the triggered post); the collective itself starts with the stream.
        emit(UCC_EVENT_COLLECTIVE_POST, &r);
    }
    ctx->active.push_back(&r);
    if (r.deadline != std::numeric_limits<double>::infinity()) {
        ctx->n_timed++;
    }
    if (r.has_cb) {
        ctx->n_callbacks++;
    }
    watch(true);
    return UCC_OK;
}

void Ee::forget(CollRequest &r) {
    if (auto it = std::find(waiting.begin(), waiting.end(), &r); it != waiting.end()) {
        waiting.erase(it);
    }
    r.trigger = nullptr;
    if (r.in_active) {
        ctx->active.erase(&r);
        if (r.deadline != std::numeric_limits<double>::infinity()) {
            ctx->n_timed--;
        }
        if (r.has_cb) {
            ctx->n_callbacks--;
        }
    }
    if (waiting.empty()) {
        watch(false);
    }
}

void Ee::set(const ucc_ev_t &ev) {
    in.push_back(ev);
    record(TraceKind::kEeSet, sets++);
}

void Ee::emit(ucc_event_type_t ev_type, CollRequest *r) {
    if (out.size() >= kMaxUntaken) {
        // The user does not take the engine's events: the rest are lost,
        // after one that says so.
        if (out.back()->ev.ev_type == UCC_EVENT_OVERFLOW) {
            return;
        }
        UCC_LOG(ctx->log, kWarn,
                "execution engine: %zu events not taken with ucc_ee_get_event; later ones are "
                "dropped (UCC_EVENT_OVERFLOW queued)",
                kMaxUntaken);
        ev_type = UCC_EVENT_OVERFLOW;
        r = nullptr;
    }
    out.push_back(std::make_unique<QueuedEvent>(
        QueuedEvent{{ev_type, nullptr, 0, r != nullptr ? &r->super : nullptr}, emitted}));
    record(TraceKind::kEeEmit, emitted++, r, static_cast<uint64_t>(ev_type));
}

QueuedEvent *Ee::take() {
    if (out.empty()) {
        return nullptr;
    }
    taken.reserve(taken.size() + 1);
    taken.push_back(std::move(out.front()));
    out.pop_front();
    record(TraceKind::kEeTake, taken.back()->ordinal);
    return taken.back().get();
}

bool Ee::ack(const ucc_ev_t *ev) {
    // Most recent first: an event is usually acked right after it is taken.
    for (auto it = taken.rbegin(); it != taken.rend(); ++it) {
        if (&(*it)->ev == ev) {
            record(TraceKind::kEeAck, (*it)->ordinal);
            taken.erase(std::next(it).base());
            return true;
        }
    }
    return false;
}

ucc_ev_t Ee::take_copy() {
    const ucc_ev_t ev = out.front()->ev;
    record(TraceKind::kEeTake, out.front()->ordinal, nullptr, 0, true);
    out.pop_front();
    return ev;
}

bool Ee::poll() {
    bool worked = false;
    // First waiting request, first queued event (the reference's order); on
    // a stream engine, the first waiting request once the stream reached its
    // start. A post may complete at once and its callback post or trigger
    // again: the queues are read afresh each time.
    for (;;) {
        if (gate) {
            if (waiting.empty() || !gate->started(waiting.front()->stream_ticket)) {
                return worked;
            }
        } else {
            if (waiting.empty() || in.empty()) {
                return worked;
            }
            in.pop_front();
        }
        fire(gate != nullptr);
        worked = true;
    }
}

void Ee::fire(bool by_stream) {
    CollRequest &r = *waiting.front();
    const double deadline = r.deadline;
    if (by_stream) {
        gate->fired(r);
    }
    forget(r);
    record(TraceKind::kTrigger, triggers++, &r, by_stream ? 1 : 0);
    ctx->completions++;  // the program sees the request leave INITIALIZED
    if (deadline != std::numeric_limits<double>::infinity() && ctx->transport->now() >= deadline) {
        // Its timeout (counted from the triggered post) passed before the
        // trigger came: it is not started at all.
        UCC_LOG(ctx->log, kWarn,
                "triggered %s (team %u) timed out after %g s before its trigger was handled",
                coll_type_name(r.args.coll_type), r.team->id, r.timeout);
        r.complete(UCC_ERR_TIMED_OUT);
        return;
    }
    if (!by_stream) {
        emit(UCC_EVENT_COLLECTIVE_POST, &r);  // (a stream engine's went out at the triggered post)
    }
    // A post that fails leaves the request with its error, as a collective
    // that failed while running (the user tests and finalizes it as usual).
    ucc_status_t st = UCC_OK;
    try {
        st = post_request(r, deadline);
    } catch (...) {
        st = status_of_current_exception();  // the request is unchanged
    }
    if (st != UCC_OK) {
        UCC_LOG(ctx->log, kError, "triggered %s could not be posted: %s",
                coll_type_name(r.args.coll_type), ucc_status_string(st));
        r.complete(st);
    }
}

void Ee::end_on_stream(Context &ctx, CollRequest &r) {
    for (Ee *e = ctx.ees; e != nullptr; e = e->next) {
        if (e->gate && e->gate->end(&r, r.stream_ticket)) {
            break;
        }
    }
    r.stream_ticket = 0;  // (an orphaned engine released it already)
}

void Ee::link() {
    next = ctx->ees;
    ctx->ees = this;
}

void Ee::unlink() {
    for (Ee **p = &ctx->ees; *p != nullptr; p = &(*p)->next) {
        if (*p == this) {
            *p = next;
            next = nullptr;
            return;
        }
    }
}

void Ee::orphan() {
    while (!waiting.empty()) {
        waiting.front()->complete(UCC_ERR_CANCELED);
    }
    gate.reset();  // its stream goes on past every collective still running
    watch(false);
    team = nullptr;
    ctx = nullptr;
}

}  // namespace ucc::core
