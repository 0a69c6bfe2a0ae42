// The context's cache of CUDA IPC mappings (ipc_cache.h).
#include "lib/core/ipc_cache.h"

#include <cstring>

namespace ucc::core {

IpcCache::~IpcCache() {
    for (auto &[key, e] : entries_) {
        ops_->ipc_close(e.base);
    }
}

int IpcCache::acquire(const uint8_t *handle, void **base, void **pin) {
    Key key;
    std::memcpy(key.data(), handle, key.size());
    auto it = entries_.find(key);
    const bool fresh = it == entries_.end();
    if (fresh) {
        void *p = nullptr;
        if (const int rc = ops_->ipc_open(handle, &p); rc != 0) {
            return rc;
        }
        it = entries_.emplace(key, Entry{p, 0, 0}).first;
    }
    Entry &e = it->second;
    idle_ -= e.users == 0 && !fresh ? 1 : 0;
    e.users++;
    e.last_use = ++clock_;
    *base = e.base;
    *pin = &e;
    return 0;
}

void IpcCache::release(void *pin) {
    auto *e = static_cast<Entry *>(pin);
    if (--e->users == 0) {
        idle_++;
        trim();
    }
}

void IpcCache::trim() {
    while (idle_ > kMaxIdle) {
        auto oldest = entries_.end();
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if (it->second.users == 0 &&
                (oldest == entries_.end() || it->second.last_use < oldest->second.last_use)) {
                oldest = it;
            }
        }
        ops_->ipc_close(oldest->second.base);
        entries_.erase(oldest);
        idle_--;
    }
}

}  // namespace ucc::core
