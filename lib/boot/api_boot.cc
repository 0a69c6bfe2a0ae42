// The bootstrap's C API (include/ucc/boot/ucc_boot.h).
#include "ucc/boot/ucc_boot.h"

#include <cmath>
#include <cstdlib>
#include <memory>

#include "lib/boot/boot.h"
#include "lib/util/common.h"

// The C handle is the C++ object.
struct ucc_boot {
    std::unique_ptr<ucc::boot::Boot> boot;
};

namespace {

using ucc::boot::Boot;
using ucc::boot::RoundRequest;

const char *process_getenv(const char *name) {
    return std::getenv(name);
}

ucc::core::LogLevel env_log_level() {
    ucc::core::LogLevel level = ucc::core::LogLevel::kWarn;
    if (const char *v = std::getenv("UCC_LOG_LEVEL"); v != nullptr) {
        ucc::core::parse_log_level(v, &level);
    }
    return level;
}

// The OOB's three functions (ucc_oob_coll_t); coll_info is the Boot.
ucc_status_t oob_allgather(void *sbuf, void *rbuf, size_t size, void *info, void **request) {
    return ucc::api_guard("ucc_boot oob allgather", [&]() -> ucc_status_t {
        if (info == nullptr || request == nullptr ||
            (size > 0 && (sbuf == nullptr || rbuf == nullptr))) {
            ucc::core::log_error("ucc_boot oob allgather: NULL %s",
                                 info == nullptr      ? "allgather_info"
                                 : request == nullptr ? "request"
                                                      : "buffer");
            return UCC_ERR_INVALID_PARAM;
        }
        auto req = static_cast<Boot *>(info)->post_allgather(sbuf, rbuf, size);
        *request = req.release();
        return UCC_OK;
    });
}

ucc_status_t oob_test(void *request) {
    return ucc::api_guard("ucc_boot oob req_test", [&]() -> ucc_status_t {
        if (request == nullptr) {
            ucc::core::log_error("ucc_boot oob req_test: NULL request");
            return UCC_ERR_INVALID_PARAM;
        }
        return static_cast<RoundRequest *>(request)->test();
    });
}

ucc_status_t oob_free(void *request) {
    return ucc::api_guard("ucc_boot oob req_free", [&]() -> ucc_status_t {
        // A request freed before completion is abandoned: its reply, when it
        // comes, is read and dropped.
        delete static_cast<RoundRequest *>(request);
        return UCC_OK;
    });
}

}  // namespace

UCC_EXPORT int ucc_boot_launched(void) {
    ucc_status_t st = ucc::api_guard("ucc_boot_launched", [] {
        return ucc::boot::env_launched(process_getenv) ? UCC_OK : UCC_ERR_NOT_FOUND;
    });
    return st == UCC_OK ? 1 : 0;
}

UCC_EXPORT ucc_status_t ucc_boot_init(const ucc_boot_params_t *params, ucc_boot_h *boot) {
    return ucc::api_guard("ucc_boot_init", [&]() -> ucc_status_t {
        if (boot == nullptr) {
            ucc::core::log_error("ucc_boot_init: boot is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        *boot = nullptr;
        double timeout_s = 300;
        if (params != nullptr && (params->mask & UCC_BOOT_PARAM_FIELD_TIMEOUT)) {
            timeout_s = params->timeout;
            if (!(timeout_s > 0) || !std::isfinite(timeout_s) || timeout_s > 1e7) {
                ucc::core::log_error("ucc_boot_init: timeout=%g is not in (0, 1e7] seconds",
                                     timeout_s);
                return UCC_ERR_INVALID_PARAM;
            }
        }
        ucc::boot::BootEnv env;
        std::string error;
        if (ucc::boot::parse_env(process_getenv, &env, &error) != UCC_OK) {
            ucc::core::log_error("ucc_boot_init: %s", error.c_str());
            return UCC_ERR_INVALID_PARAM;
        }
        auto timeout = std::chrono::milliseconds(
            std::max<int64_t>(1, static_cast<int64_t>(std::ceil(timeout_s * 1000))));
        auto h = std::make_unique<ucc_boot>();
        h->boot = std::make_unique<Boot>(env, timeout, env_log_level());
        UCC_TRY(h->boot->start());
        *boot = h.release();
        return UCC_OK;
    });
}

UCC_EXPORT uint32_t ucc_boot_rank(ucc_boot_h boot) {
    return boot != nullptr ? boot->boot->env().rank : 0;
}

UCC_EXPORT uint32_t ucc_boot_size(ucc_boot_h boot) {
    return boot != nullptr ? boot->boot->env().size : 0;
}

UCC_EXPORT uint32_t ucc_boot_local_rank(ucc_boot_h boot) {
    return boot != nullptr ? boot->boot->env().local_rank : 0;
}

UCC_EXPORT uint32_t ucc_boot_local_size(ucc_boot_h boot) {
    return boot != nullptr ? boot->boot->env().local_size : 0;
}

UCC_EXPORT ucc_status_t ucc_boot_oob(ucc_boot_h boot, ucc_oob_coll_t *oob) {
    return ucc::api_guard("ucc_boot_oob", [&]() -> ucc_status_t {
        if (boot == nullptr || oob == nullptr) {
            ucc::core::log_error("ucc_boot_oob: %s is NULL", boot == nullptr ? "boot" : "oob");
            return UCC_ERR_INVALID_PARAM;
        }
        oob->allgather = oob_allgather;
        oob->req_test = oob_test;
        oob->req_free = oob_free;
        oob->coll_info = boot->boot.get();
        oob->n_oob_eps = boot->boot->env().size;
        oob->oob_ep = boot->boot->env().rank;
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_boot_barrier(ucc_boot_h boot) {
    return ucc::api_guard("ucc_boot_barrier", [&]() -> ucc_status_t {
        if (boot == nullptr) {
            ucc::core::log_error("ucc_boot_barrier: boot is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        return boot->boot->barrier();
    });
}

UCC_EXPORT ucc_status_t ucc_boot_finalize(ucc_boot_h boot) {
    return ucc::api_guard("ucc_boot_finalize", [&]() -> ucc_status_t {
        if (boot == nullptr) {
            ucc::core::log_error("ucc_boot_finalize: boot is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        std::unique_ptr<ucc_boot> h(boot);
        return h->boot->finish();
    });
}
