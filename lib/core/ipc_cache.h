// The context's cache of CUDA IPC mappings (lib/core/device_ipc.h uses it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

#include "lib/cuda_component.h"

namespace ucc::core {

// A context's mappings of peers' device allocations (ipc_open): each handle
// is opened once and stays mapped for later collectives, at most kMaxIdle
// of them unused (the least recently used beyond that are closed); all are
// closed with the cache (the context's destruction). The context's lock
// guards it.
class IpcCache {
  public:
    static constexpr size_t kMaxIdle = 64;
    explicit IpcCache(const ucc_cuda_component_t *ops) : ops_(ops) {}
    ~IpcCache();
    IpcCache(const IpcCache &) = delete;
    IpcCache &operator=(const IpcCache &) = delete;
    // The address here of the allocation `handle` names, held until
    // release(*pin); a CUDA error code.
    int acquire(const uint8_t *handle, void **base, void **pin);
    void release(void *pin);
    size_t mapped() const { return entries_.size(); }

  private:
    struct Entry {
        void *base = nullptr;
        uint32_t users = 0;
        uint64_t last_use = 0;
    };
    using Key = std::array<uint8_t, UCC_CUDA_IPC_HANDLE_BYTES>;
    void trim();
    const ucc_cuda_component_t *ops_;
    std::map<Key, Entry> entries_;
    uint64_t clock_ = 0;
    size_t idle_ = 0;  // entries no request pins
};

}  // namespace ucc::core
