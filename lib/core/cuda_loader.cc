// Opening the CUDA component (dlopen, RTLD_LOCAL: its symbols stay its own) and
// asking it once how many devices this process can use. RTLD_NODELETE: once
// opened it stays mapped until the process ends (a request's pinned copies may
// be freed through it after ucc_finalize's dlclose, and the CUDA runtime's own
// state is not made to be unloaded).
#include "lib/core/cuda_loader.h"

#include <dlfcn.h>

#include <cstddef>
#include <vector>

#include "lib/core/config.h"
#include "lib/core/log.h"

namespace ucc::core {

std::string default_component_dir() {
    const std::string dir = library_dir();
    return dir.empty() ? "ucc" : (dir == "/" ? "" : dir) + "/ucc";
}

CudaComponent::~CudaComponent() {
    for (void *p : retired_) {
        ops_->free(UCC_CUDA_ALLOC_HOST_PINNED, p);
    }
    if (handle_ != nullptr) {
        dlclose(handle_);
    }
}

void CudaComponent::load(Logger &log) {
    std::call_once(once_, [&] {
        // UCC_COMPONENT_PATH, else beside the object holding this code (libucc.so,
        // or a program linked with the static library), else the installed
        // libdir's ucc/ (tools in bin/ linked statically).
        std::vector<std::string> dirs;
        if (!search_path_.empty()) {
            dirs.push_back(search_path_);
        } else {
            dirs.push_back(default_component_dir());
#ifdef UCC_INSTALL_COMPONENT_DIR
            dirs.emplace_back(UCC_INSTALL_COMPONENT_DIR);
#endif
        }
        std::string errors;
        for (const std::string &dir : dirs) {
            path_ = dir + "/" UCC_CUDA_COMPONENT_FILE;
            handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
            if (handle_ != nullptr) {
                break;
            }
            const char *err = dlerror();
            errors += (errors.empty() ? "" : "; ") + std::string(err != nullptr ? err : path_);
        }
        if (handle_ == nullptr) {
            why_ = "no CUDA component (" + errors + "; a build without the CUDA Toolkit has none)";
            UCC_LOG(log, kDebug, "%s", why_.c_str());
            return;
        }
        auto entry =
            reinterpret_cast<ucc_cuda_component_entry_t>(dlsym(handle_, UCC_CUDA_COMPONENT_ENTRY));
        const ucc_cuda_component_t *ops =
            entry != nullptr ? entry(UCC_CUDA_COMPONENT_ABI) : nullptr;
        // The first version's table ends before the stream engine's entries.
        if (ops == nullptr || ops->size < offsetof(ucc_cuda_component_t, stream_write_value)) {
            why_ = "the CUDA component " + path_ + " is of another version (ABI " +
                   std::to_string(UCC_CUDA_COMPONENT_ABI) + " wanted)";
            UCC_LOG(log, kWarn, "%s", why_.c_str());
            dlclose(handle_);
            handle_ = nullptr;
            return;
        }
        ops_ = ops;
        char reason[256] = {};
        devices_ = ops_->device_count(reason, sizeof(reason));
        if (devices_ <= 0) {
            devices_ = 0;
            why_ = std::string("no usable CUDA device (") + reason + ")";
        }
        UCC_LOG(log, kDebug, "CUDA component %s (CUDA %s): %d device(s)%s%s", path_.c_str(),
                ops_->built_with, devices_, why_.empty() ? "" : "; ", why_.c_str());
    });
}

const ucc_cuda_component_t *CudaComponent::ops(Logger &log) {
    load(log);
    return ops_;
}

bool CudaComponent::usable(Logger &log) {
    load(log);
    return ops_ != nullptr && devices_ > 0;
}

int CudaComponent::devices(Logger &log) {
    load(log);
    return devices_;
}

const std::string &CudaComponent::why(Logger &log) {
    load(log);
    return why_;
}

const std::string &CudaComponent::path(Logger &log) {
    load(log);
    return path_;
}

void CudaComponent::retire(void *pinned) noexcept {
    std::lock_guard<std::mutex> lock(retired_mu_);
    try {
        retired_.push_back(pinned);
    } catch (...) {
        // Out of memory: the few bytes stay allocated until the process ends.
    }
}

ucc_memory_type_t CudaComponent::resolve(ucc_memory_type_t declared, const void *ptr, Logger &log) {
    if (declared != UCC_MEMORY_TYPE_UNKNOWN) {
        return declared;
    }
    if (ptr == nullptr || !usable(log)) {
        return UCC_MEMORY_TYPE_HOST;
    }
    return ops_->memory_type(ptr);
}

}  // namespace ucc::core
