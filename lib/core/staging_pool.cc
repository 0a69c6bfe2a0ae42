// Pinned buffers and streams kept for device staging (staging_pool.h).
#include "lib/core/staging_pool.h"

#include <bit>
#include <iterator>

namespace ucc::core {

StagingPool::~StagingPool() {
    for (auto &[capacity, list] : idle_) {
        for (void *p : list) {
            ops_->free(UCC_CUDA_ALLOC_HOST_PINNED, p);
        }
    }
    for (auto &[device, s] : streams_) {
        ops_->stream_destroy(s);
    }
}

int StagingPool::take_buffer(uint64_t bytes, void **p, uint64_t *capacity) {
    const uint64_t cap =
        bytes > kMaxIdleBytes ? bytes : std::bit_ceil(bytes < kMinCapacity ? kMinCapacity : bytes);
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto it = idle_.find(cap); it != idle_.end() && !it->second.empty()) {
            *p = it->second.back();
            it->second.pop_back();
            stats_.idle_bytes -= cap;
            stats_.buffers_reused++;
            *capacity = cap;
            return 0;
        }
        stats_.buffers_made++;
    }
    *capacity = cap;
    const int rc = ops_->alloc(UCC_CUDA_ALLOC_HOST_PINNED, cap, p);
    if (rc != 0) {
        *p = nullptr;
    }
    return rc;
}

void StagingPool::give_buffer(void *p, uint64_t capacity) {
    if (p == nullptr) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stats_.idle_bytes + capacity <= kMaxIdleBytes) {
            idle_[capacity].push_back(p);
            stats_.idle_bytes += capacity;
            return;
        }
    }
    ops_->free(UCC_CUDA_ALLOC_HOST_PINNED, p);
}

int StagingPool::take_stream(void **stream, int *device) {
    *device = -1;
    if (UCC_CUDA_COMPONENT_HAS(ops_, current_device) && ops_->current_device(device) != 0) {
        *device = -1;
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto it = streams_.rbegin(); *device >= 0 && it != streams_.rend(); ++it) {
            if (it->first == *device) {
                *stream = it->second;
                streams_.erase(std::next(it).base());
                stats_.streams_reused++;
                return 0;
            }
        }
        stats_.streams_made++;
    }
    const int rc = ops_->stream_create(stream);  // (outside the lock: it may take a while)
    if (rc != 0) {
        *stream = nullptr;
    }
    return rc;
}

void StagingPool::give_stream(void *stream, int device) {
    if (stream == nullptr) {
        return;
    }
    if (device >= 0) {
        std::lock_guard<std::mutex> lock(mu_);
        if (streams_.size() < kMaxIdleStreams) {
            streams_.emplace_back(device, stream);
            return;
        }
    }
    ops_->stream_destroy(stream);
}

StagingPool::Stats StagingPool::stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
}

}  // namespace ucc::core
