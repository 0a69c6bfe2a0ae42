// Scratch memory of collectives (lib/coll/scratch.h).
#include "lib/coll/scratch.h"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <utility>

namespace ucc::coll {

std::unique_ptr<uint8_t[]> ScratchPool::take(size_t bytes, size_t *got) {
    size_t best = n_;
    for (size_t i = 0; i < n_; ++i) {
        if (kept_[i].bytes >= bytes && (best == n_ || kept_[i].bytes < kept_[best].bytes)) {
            best = i;
        }
    }
    if (best == n_) {
        return nullptr;
    }
    *got = kept_[best].bytes;
    std::unique_ptr<uint8_t[]> data = std::move(kept_[best].data);
    drop(best);
    return data;
}

void ScratchPool::drop(size_t i) {
    bytes_ -= kept_[i].bytes;
    kept_[i] = std::move(kept_[--n_]);  // frees the dropped buffer
}

void ScratchPool::give(std::unique_ptr<uint8_t[]> data, size_t bytes) {
    if (data == nullptr || closed_ || bytes > kMaxBytes) {
        return;
    }
    if (kept_ == nullptr) {
        kept_.reset(new (std::nothrow) Kept[kMaxBufs]);
        if (kept_ == nullptr) {
            return;  // no room for the list: `data` is freed
        }
    }
    // Room by evicting smaller buffers (the smallest first): the larger one
    // serves more requests.
    while (n_ == kMaxBufs || bytes_ + bytes > kMaxBytes) {
        size_t smallest = 0;
        for (size_t i = 1; i < n_; ++i) {
            if (kept_[i].bytes < kept_[smallest].bytes) {
                smallest = i;
            }
        }
        if (n_ == 0 || kept_[smallest].bytes > bytes) {
            return;  // everything kept is larger: `data` is freed
        }
        drop(smallest);
    }
    kept_[n_++] = Kept{std::move(data), bytes};
    bytes_ += bytes;
}

void ScratchPool::close() {
    while (n_ > 0) {
        drop(n_ - 1);
    }
    kept_.reset();
    closed_ = true;
}

ScratchCache::~ScratchCache() {
    for (Buf &b : bufs_) {
        release(b);
    }
}

void ScratchCache::release(Buf &b) {
    std::unique_ptr<uint8_t[]> data(b.data);
    b.data = nullptr;
    if (pool_ != nullptr) {
        pool_->give(std::move(data), b.bytes);  // or frees it
    }
    b.bytes = 0;
}

// Buffer `i`, made at least `bytes` long (and at least 1); nullptr when the
// memory cannot be had. (Allocated without exceptions: sanitizers end the
// process on a throwing allocation that fails, and a size that cannot be
// had is an answer here, not a bug.)
uint8_t *ScratchCache::ensure(size_t i, size_t bytes) {
    if (bytes == 0) {
        bytes = 1;
    }
    while (bufs_.size() <= i) {
        bufs_.push_back(Buf{});
    }
    Buf &b = bufs_[i];
    if (b.bytes < bytes) {
        release(b);  // before the new one: at most one of them at a time
        size_t got = 0;
        if (pool_ != nullptr) {
            b.data = pool_->take(bytes, &got).release();
        }
        if (b.data == nullptr) {
            b.data = new (std::nothrow) uint8_t[bytes];
            got = bytes;
        }
        if (b.data == nullptr) {
            return nullptr;
        }
        b.bytes = got;
    }
    return b.data;
}

ucc_status_t ScratchCache::reserve(const ScratchPlan &plan, bool timing_only) noexcept {
    try {
        size_t i = 0;
        for (size_t bytes : plan.sizes()) {
            if (ensure(i++, timing_only ? std::min(bytes, kTimingOnlyScratchBytes) : bytes) ==
                nullptr) {
                return UCC_ERR_NO_MEMORY;
            }
        }
        return UCC_OK;
    } catch (const std::bad_alloc &) {
        return UCC_ERR_NO_MEMORY;
    } catch (const std::length_error &) {
        return UCC_ERR_NO_MEMORY;
    }
}

uint8_t *ScratchCache::get(size_t i, size_t bytes) {
    if (i >= bufs_.size() || bufs_[i].bytes < std::max<size_t>(bytes, 1)) {
        ++unplanned_;
    }
    uint8_t *p = ensure(i, bytes);
    if (p == nullptr) {
        throw std::bad_alloc();  // ends the collective with UCC_ERR_NO_MEMORY (lib/util/task.h)
    }
    return p;
}

}  // namespace ucc::coll
