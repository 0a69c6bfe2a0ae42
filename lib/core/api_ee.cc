// C API: execution engines, events and triggered post.
//
// Not available yet (see docs/status.md): every call validates its handles
// and answers UCC_ERR_NOT_IMPLEMENTED with one log line, so programs that probe
// for these features link and fail cleanly.
#include "lib/core/core.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::log_error;

namespace {

ucc_status_t unavailable(const char *fn) {
    log_error("%s: execution engines and triggered collectives are not available in this build",
              fn);
    return UCC_ERR_NOT_IMPLEMENTED;
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_ee_create(ucc_team_h team, const ucc_ee_params_t *params,
                                      ucc_ee_h *ee) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (team == nullptr || params == nullptr || ee == nullptr) {
            log_error("ucc_ee_create: %s is NULL",
                      team == nullptr ? "team" : (params == nullptr ? "params" : "ee"));
            return UCC_ERR_INVALID_PARAM;
        }
        if (params->ee_type >= UCC_EE_LAST) {
            log_error("ucc_ee_create: invalid ee_type %d", static_cast<int>(params->ee_type));
            return UCC_ERR_INVALID_PARAM;
        }
        return unavailable(__func__);
    });
}

UCC_EXPORT ucc_status_t ucc_ee_destroy(ucc_ee_h ee) {
    if (ee == nullptr) {
        log_error("ucc_ee_destroy: ee is NULL");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}

UCC_EXPORT ucc_status_t ucc_ee_get_event(ucc_ee_h ee, ucc_ev_t **ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_get_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}

UCC_EXPORT ucc_status_t ucc_ee_ack_event(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_ack_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}

UCC_EXPORT ucc_status_t ucc_ee_set_event(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_set_event: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}

UCC_EXPORT ucc_status_t ucc_ee_wait(ucc_ee_h ee, ucc_ev_t *ev) {
    if (ee == nullptr || ev == nullptr) {
        log_error("ucc_ee_wait: %s is NULL", ee == nullptr ? "ee" : "ev");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}

UCC_EXPORT ucc_status_t ucc_collective_triggered_post(ucc_ee_h ee, ucc_ev_t *ee_event) {
    if (ee == nullptr || ee_event == nullptr) {
        log_error("ucc_collective_triggered_post: %s is NULL", ee == nullptr ? "ee" : "ee_event");
        return UCC_ERR_INVALID_PARAM;
    }
    return unavailable(__func__);
}
