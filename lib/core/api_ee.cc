// C API: execution engines, events and triggered post (lib/core/ee.h;
// docs/execution-engines.md). Every call on a live engine holds its
// context's lock (UCC_THREAD_MULTIPLE lets any thread call them).
#include <algorithm>
#include <memory>
#include <optional>

#include "lib/core/core.h"
#include "lib/core/cuda_loader.h"
#include "lib/core/ee.h"
#include "lib/core/sim_stream.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::CollRequest;
using ucc::core::ContextGuard;
using ucc::core::Ee;
using ucc::core::log_error;
using ucc::core::QueuedEvent;

namespace {

const char *ee_type_name(ucc_ee_type_t t) {
    switch (t) {
        case UCC_EE_CUDA_STREAM:
            return "UCC_EE_CUDA_STREAM";
        case UCC_EE_CPU_THREAD:
            return "UCC_EE_CPU_THREAD";
        case UCC_EE_ROCM_STREAM:
            return "UCC_EE_ROCM_STREAM";
        default:
            return "UCC_EE_UNKNOWN";
    }
}

// The engine's context lock, when it still has a context.
class EeGuard {
  public:
    explicit EeGuard(Ee &e) {
        if (e.ctx != nullptr) {
            g_.emplace(*e.ctx);
        }
    }

  private:
    std::optional<ContextGuard> g_;
};

ucc_status_t ee_create(ucc_team_h team, const ucc_ee_params_t *params, ucc_ee_h *ee) {
    if (team == nullptr || params == nullptr || ee == nullptr) {
        log_error("ucc_ee_create: %s is NULL",
                  team == nullptr ? "team" : (params == nullptr ? "params" : "ee"));
        return UCC_ERR_INVALID_PARAM;
    }
    if (params->ee_type >= UCC_EE_LAST) {
        log_error("ucc_ee_create: invalid ee_type %d", static_cast<int>(params->ee_type));
        return UCC_ERR_INVALID_PARAM;
    }
    if (ucc::core::team_destroyed(team, "ucc_ee_create")) {
        return UCC_ERR_INVALID_PARAM;
    }
    ucc::core::Team &t = team->team;
    ucc::core::Context &ctx = *t.ctx;
    ContextGuard guard(ctx);
    if (t.placeholder || t.state != ucc::core::TeamState::kActive) {
        UCC_LOG(
            ctx.log, kError, "ucc_ee_create: the team is %s",
            t.placeholder ? "a split placeholder" : "not active (its creation is not complete)");
        return UCC_ERR_INVALID_PARAM;
    }
    std::unique_ptr<ucc::core::StreamGate> gate;
    if (params->ee_type == UCC_EE_CUDA_STREAM) {
        // ee_context is the stream (NULL: the legacy default stream); on
        // the simulator, any value names a simulated stream of the rank.
        if (ctx.sim != nullptr) {
            gate = ucc::core::SimStreamGate::open(ctx, params->ee_context);
        } else {
            ucc_status_t st = UCC_OK;
            gate = ucc::core::CudaStreamGate::open(ucc::core::cuda_component(*ctx.lib),
                                                   params->ee_context, ctx.log, &st);
            if (st != UCC_OK) {
                return st;
            }
        }
    } else if (params->ee_type != UCC_EE_CPU_THREAD) {
        UCC_LOG(ctx.log, kError,
                "ucc_ee_create: ee_type %s is not supported by this build (UCC_EE_CPU_THREAD "
                "and UCC_EE_CUDA_STREAM are)",
                ee_type_name(params->ee_type));
        return UCC_ERR_NOT_SUPPORTED;
    }
    std::unique_ptr<ucc_ee> e(new ucc_ee{Ee(&t, *params, ++ctx.next_ee)});
    e->ee.gate = std::move(gate);
    e->ee.link();
    *ee = e.release();
    return UCC_OK;
}

ucc_status_t ee_destroy(ucc_ee_h ee) {
    if (ee == nullptr) {
        log_error("ucc_ee_destroy: ee is NULL");
        return UCC_ERR_INVALID_PARAM;
    }
    std::unique_ptr<ucc_ee> owned(ee);
    Ee &e = ee->ee;
    if (e.ctx != nullptr) {
        ContextGuard guard(*e.ctx);
        e.unlink();
        e.orphan();  // its waiting triggered posts complete with UCC_ERR_CANCELED
    }
    return UCC_OK;
}

ucc_status_t ee_get_event(ucc_ee_h ee, ucc_ev_t **ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_get_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    Ee &e = ee->ee;
    EeGuard guard(e);
    QueuedEvent *q = e.take();
    if (q == nullptr) {
        return UCC_ERR_NOT_FOUND;  // nothing emitted yet (a poll: no log line)
    }
    *ev = &q->ev;
    return UCC_OK;
}

ucc_status_t ee_ack_event(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_ack_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    Ee &e = ee->ee;
    EeGuard guard(e);
    if (!e.ack(ev)) {
        log_error(
            "ucc_ee_ack_event: ev is not an event ucc_ee_get_event returned on this engine, or "
            "it was acknowledged already");
        return UCC_ERR_INVALID_PARAM;
    }
    return UCC_OK;
}

ucc_status_t ee_set_event(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_set_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    Ee &e = ee->ee;
    if (e.ctx == nullptr) {
        log_error("ucc_ee_set_event: the engine's team was destroyed");
        return UCC_ERR_INVALID_PARAM;
    }
    ContextGuard guard(*e.ctx);
    e.set(*ev);  // by value: the caller keeps its event
    return UCC_OK;
}

ucc_status_t ee_wait(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_wait: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    Ee &e = ee->ee;
    EeGuard guard(e);
    // Progress until an event is emitted. It can only come from a waiting
    // triggered post, fired by a queued input event, or (another thread of
    // UCC_THREAD_MULTIPLE) by one still to be set: when neither can happen
    // the wait would never end, and it returns UCC_ERR_NOT_FOUND instead.
    while (e.out.empty()) {
        if (e.ctx == nullptr) {
            log_error("ucc_ee_wait: no event can arrive (the engine's team was destroyed)");
            return UCC_ERR_NOT_FOUND;
        }
        // (A stream engine's waiting post fires when its stream gets there.)
        const bool can_fire =
            !e.waiting.empty() && (e.gate || !e.in.empty() || e.ctx->thread_multiple);
        if (!can_fire) {
            UCC_LOG(e.ctx->log, kError, "ucc_ee_wait: no event can arrive (%s)",
                    e.waiting.empty() ? "no triggered post waits on the engine"
                                      : "no event was set to trigger the waiting post");
            return UCC_ERR_NOT_FOUND;
        }
        e.ctx->progress();
    }
    // Copied out and acknowledged here (API.md §5 #19: one pointer cannot
    // hand the event itself back).
    *ev = e.take_copy();
    return UCC_OK;
}

ucc_status_t triggered_post(ucc_ee_h ee, ucc_ev_t *ee_event) {
    if (ee == nullptr || ee_event == nullptr) {
        log_error("ucc_collective_triggered_post: %s is NULL", ee == nullptr ? "ee" : "ee_event");
        return UCC_ERR_INVALID_PARAM;
    }
    if (ee_event->req == nullptr) {
        log_error("ucc_collective_triggered_post: ee_event->req is NULL");
        return UCC_ERR_INVALID_PARAM;
    }
    Ee &e = ee->ee;
    if (e.ctx == nullptr) {
        log_error("ucc_collective_triggered_post: the engine's team was destroyed");
        return UCC_ERR_INVALID_PARAM;
    }
    ContextGuard guard(*e.ctx);
    if (ee_event->ev_type != UCC_EVENT_COMPUTE_COMPLETE) {
        UCC_LOG(e.ctx->log, kError,
                "ucc_collective_triggered_post: ee_event->ev_type %d is not "
                "UCC_EVENT_COMPUTE_COMPLETE, the only trigger",
                static_cast<int>(ee_event->ev_type));
        return UCC_ERR_NOT_SUPPORTED;
    }
    auto *r = reinterpret_cast<CollRequest *>(ee_event->req);
    if (r->team != e.team) {
        UCC_LOG(e.ctx->log, kError,
                "ucc_collective_triggered_post: the request is on another team than the "
                "engine's");
        return UCC_ERR_INVALID_PARAM;
    }
    UCC_TRY(ucc::core::check_postable(*r, "ucc_collective_triggered_post"));
    UCC_TRY(ucc::core::fail_on_team_error(*r, "ucc_collective_triggered_post"));
    UCC_TRY(e.park(*r));
    r->super.status = UCC_OPERATION_INITIALIZED;  // a persistent one's last UCC_OK
    return UCC_OK;
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_ee_create(ucc_team_h team, const ucc_ee_params_t *params,
                                      ucc_ee_h *ee) {
    return api_guard(__func__, [&]() { return ee_create(team, params, ee); });
}

UCC_EXPORT ucc_status_t ucc_ee_destroy(ucc_ee_h ee) {
    return api_guard(__func__, [&]() { return ee_destroy(ee); });
}

UCC_EXPORT ucc_status_t ucc_ee_get_event(ucc_ee_h ee, ucc_ev_t **ev) {
    return api_guard(__func__, [&]() { return ee_get_event(ee, ev); });
}

UCC_EXPORT ucc_status_t ucc_ee_ack_event(ucc_ee_h ee, ucc_ev_t *ev) {
    return api_guard(__func__, [&]() { return ee_ack_event(ee, ev); });
}

UCC_EXPORT ucc_status_t ucc_ee_set_event(ucc_ee_h ee, ucc_ev_t *ev) {
    return api_guard(__func__, [&]() { return ee_set_event(ee, ev); });
}

UCC_EXPORT ucc_status_t ucc_ee_wait(ucc_ee_h ee, ucc_ev_t *ev) {
    return api_guard(__func__, [&]() { return ee_wait(ee, ev); });
}

UCC_EXPORT ucc_status_t ucc_collective_triggered_post(ucc_ee_h ee, ucc_ev_t *ee_event) {
    return api_guard(__func__, [&]() { return triggered_post(ee, ee_event); });
}
