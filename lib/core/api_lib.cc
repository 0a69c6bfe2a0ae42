// C API: library configuration, init/finalize, attributes, versions, status strings.
#include <cstdio>
#include <cstring>
#include <memory>

#include "lib/core/core.h"
#include "lib/core/cuda_loader.h"
#include "lib/core/staging_pool.h"
#include "lib/core/transport_select.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::log_error;

namespace {

constexpr uint64_t kAllCollTypes = UCC_BIT(16) - 1;

uint64_t supported_reduction_types() {
    uint64_t m = 0;
    for (int op = UCC_OP_SUM; op < UCC_OP_LAST; ++op) {
        if (op != UCC_OP_MAXLOC && op != UCC_OP_MINLOC) {
            m |= UCC_BIT(op);
        }
    }
    return m;
}

std::string env_prefix_of(const char *env_prefix) {
    if (env_prefix == nullptr || env_prefix[0] == '\0') {
        return "UCC_";
    }
    return std::string(env_prefix) + "_UCC_";
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_lib_config_read(const char *env_prefix, const char *filename,
                                            ucc_lib_config_h *config) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (config == nullptr) {
            log_error("ucc_lib_config_read: config is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        // Owned until handed out: a failure (an exception included) frees it.
        std::unique_ptr<ucc_lib_config> c(new ucc_lib_config{
            ucc::core::Config(ucc::core::lib_config_table(), env_prefix_of(env_prefix))});
        UCC_TRY(c->config.load(filename, nullptr, ucc::core::run_share_slot()));
        *config = c.release();
        return UCC_OK;
    });
}

UCC_EXPORT void ucc_lib_config_release(ucc_lib_config_h config) {
    delete config;
}

UCC_EXPORT void ucc_lib_config_print(const ucc_lib_config_h config, FILE *stream, const char *title,
                                     ucc_config_print_flags_t print_flags) {
    if (config == nullptr) {
        log_error("ucc_lib_config_print: config is NULL");
        return;
    }
    config->config.print(stream, title, print_flags);
}

UCC_EXPORT ucc_status_t ucc_lib_config_modify(ucc_lib_config_h config, const char *name,
                                              const char *value) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (config == nullptr || name == nullptr || value == nullptr) {
            log_error("ucc_lib_config_modify: %s is NULL",
                      config == nullptr ? "config" : (name == nullptr ? "name" : "value"));
            return UCC_ERR_INVALID_PARAM;
        }
        return config->config.modify(name, value);
    });
}

UCC_EXPORT void ucc_get_version(unsigned *major_version, unsigned *minor_version,
                                unsigned *release_number) {
    if (major_version != nullptr) {
        *major_version = UCC_API_MAJOR;
    }
    if (minor_version != nullptr) {
        *minor_version = UCC_API_MINOR;
    }
    if (release_number != nullptr) {
        *release_number = 0;
    }
}

UCC_EXPORT const char *ucc_get_version_string(void) {
    return UCC_VERSION_STRING;
}

UCC_EXPORT ucc_status_t ucc_init_version(unsigned api_major_version, unsigned api_minor_version,
                                         const ucc_lib_params_t *params,
                                         const ucc_lib_config_h config, ucc_lib_h *lib_p) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (params == nullptr) {
            log_error("ucc_init: params is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (lib_p == nullptr) {
            log_error("ucc_init: lib_p is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (api_major_version != UCC_API_MAJOR || api_minor_version > UCC_API_MINOR) {
            std::fprintf(stderr,
                         "[ucc] WARN ucc_init: caller built for API %u.%u, library implements "
                         "%u.%u\n",
                         api_major_version, api_minor_version, UCC_API_MAJOR, UCC_API_MINOR);
        }
        // Owned until handed out: a failure (an exception included) frees it.
        std::unique_ptr<ucc_lib_info> h(new ucc_lib_info{});
        ucc::core::Lib &lib = h->lib;
        if (config != nullptr) {
            lib.config = config->config;
        } else if (ucc_status_t st = lib.config.load(nullptr, nullptr, ucc::core::run_share_slot());
                   st != UCC_OK) {
            return st;
        }
        ucc::core::LogLevel level = ucc::core::LogLevel::kWarn;
        ucc::core::parse_log_level(lib.config.get("LOG_LEVEL"), &level);
        lib.log.set_level(level);
        ucc::core::parse_log_level(lib.config.get("COLL_TRACE"), &lib.coll_trace);
        lib.check_asymmetric = lib.config.get_bool("CHECK_ASYMMETRIC_DT");
        lib.hier = ucc::core::cls_has_hier(lib.config.get("CLS"));
        lib.basic_sharp = ucc::core::list_allows(lib.config.get("CL_BASIC_TLS"), "sharp");
        lib.hier_sharp = ucc::core::list_allows(lib.config.get("CL_HIER_TLS"), "sharp");
        lib.config.log_ignored(lib.log);
        ucc::core::warn_unknown_env(lib.config.prefix(), lib.log);
        if (!lib.config.file().empty()) {
            UCC_LOG(lib.log, kInfo, "version: %s, cfg file: %s", UCC_VERSION_STRING,
                    lib.config.file().c_str());
        }
        if (params->mask & UCC_LIB_PARAM_FIELD_THREAD_MODE) {
            if (params->thread_mode != UCC_THREAD_SINGLE &&
                params->thread_mode != UCC_THREAD_FUNNELED &&
                params->thread_mode != UCC_THREAD_MULTIPLE) {
                log_error("ucc_init: invalid thread_mode %d",
                          static_cast<int>(params->thread_mode));
                return UCC_ERR_INVALID_PARAM;
            }
            // Every entry point is reentrant per object; MULTIPLE is honoured
            // by keeping all state per object (no globals).
            lib.thread_mode = params->thread_mode;
        }
        lib.coll_types = kAllCollTypes;
        if (params->mask & UCC_LIB_PARAM_FIELD_COLL_TYPES) {
            uint64_t unsupported = params->coll_types & ~kAllCollTypes;
            if (unsupported != 0) {
                UCC_LOG(lib.log, kInfo, "ucc_init: requested unknown coll types 0x%llx",
                        static_cast<unsigned long long>(unsupported));
            }
        }
        lib.reduction_types = supported_reduction_types();
        if (params->mask & UCC_LIB_PARAM_FIELD_SYNC_TYPE) {
            if (params->sync_type != UCC_NO_SYNC_COLLECTIVES &&
                params->sync_type != UCC_SYNC_COLLECTIVES) {
                log_error("ucc_init: invalid sync_type %d", static_cast<int>(params->sync_type));
                return UCC_ERR_INVALID_PARAM;
            }
            lib.sync_type = params->sync_type;
        }
        *lib_p = h.release();
        return UCC_OK;
    });
}

namespace ucc::core {
Lib::Lib() = default;
Lib::~Lib() = default;
Lib::Rare::Rare() = default;
Lib::Rare::~Rare() = default;

Lib::Rare &Lib::rare_locked() {
    if (!rare) {
        rare = std::make_unique<Rare>();
    }
    return *rare;
}

CudaComponent &cuda_component(Lib &lib) {
    std::lock_guard<std::mutex> lock(lib.mu);
    Lib::Rare &rare = lib.rare_locked();
    if (!rare.cuda) {
        rare.cuda = std::make_unique<CudaComponent>();
        rare.cuda->set_search_path(lib.config.get("COMPONENT_PATH"));
    }
    return *rare.cuda;
}

std::shared_ptr<StagingPool> staging_pool(Lib &lib, const ucc_cuda_component_t *ops) {
    std::lock_guard<std::mutex> lock(lib.mu);
    Lib::Rare &rare = lib.rare_locked();
    if (!rare.staging_pool) {
        rare.staging_pool = std::make_shared<StagingPool>(ops);
    }
    return rare.staging_pool;
}
}  // namespace ucc::core

UCC_EXPORT ucc_status_t ucc_finalize(ucc_lib_h lib_p) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (lib_p == nullptr) {
            log_error("ucc_finalize: lib is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (lib_p->lib.n_contexts != 0) {
            UCC_LOG(lib_p->lib.log, kError,
                    "ucc_finalize: %llu contexts are still alive; destroy them first",
                    static_cast<unsigned long long>(lib_p->lib.n_contexts));
            return UCC_ERR_INVALID_PARAM;
        }
        delete lib_p;
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_lib_get_attr(ucc_lib_h lib_p, ucc_lib_attr_t *lib_attr) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (lib_p == nullptr || lib_attr == nullptr) {
            log_error("ucc_lib_get_attr: %s is NULL", lib_p == nullptr ? "lib" : "lib_attr");
            return UCC_ERR_INVALID_PARAM;
        }
        const ucc::core::Lib &lib = lib_p->lib;
        if (lib_attr->mask & UCC_LIB_ATTR_FIELD_THREAD_MODE) {
            lib_attr->thread_mode = lib.thread_mode;
        }
        if (lib_attr->mask & UCC_LIB_ATTR_FIELD_COLL_TYPES) {
            lib_attr->coll_types = lib.coll_types;
        }
        if (lib_attr->mask & UCC_LIB_ATTR_FIELD_REDUCTION_TYPES) {
            lib_attr->reduction_types = lib.reduction_types;
        }
        if (lib_attr->mask & UCC_LIB_ATTR_FIELD_SYNC_TYPE) {
            lib_attr->sync_type = lib.sync_type;
        }
        return UCC_OK;
    });
}

UCC_EXPORT const char *ucc_status_string(ucc_status_t status) {
    switch (status) {
        case UCC_OK:
            return "Success";
        case UCC_INPROGRESS:
            return "Operation in progress";
        case UCC_OPERATION_INITIALIZED:
            return "Operation initialized";
        case UCC_ERR_NOT_SUPPORTED:
            return "Operation is not supported";
        case UCC_ERR_NOT_IMPLEMENTED:
            return "Not implemented";
        case UCC_ERR_INVALID_PARAM:
            return "Invalid parameter";
        case UCC_ERR_NO_MEMORY:
            return "Out of memory";
        case UCC_ERR_NO_RESOURCE:
            return "Resources are not available for the operation";
        case UCC_ERR_NO_MESSAGE:
            return "Unhandled error";
        case UCC_ERR_NOT_FOUND:
            return "Not found";
        case UCC_ERR_TIMED_OUT:
            return "Timeout expired";
        case UCC_ERR_IO_ERROR:
            return "Input/output error";
        case UCC_ERR_CANCELED:
            return "Request cancelled (its team or context was destroyed)";
        default:
            // No mutable buffer: a fixed string keeps this reentrant.
            return "Unknown error";
    }
}
