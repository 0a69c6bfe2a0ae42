// The CUDA-stream engine's handshake (lib/core/stream_gate.h).
#include "lib/core/stream_gate.h"

#include "lib/core/cuda_loader.h"
#include "lib/core/log.h"

namespace ucc::core {

namespace {

enum Word { kStarted = 0, kDone = 1, kPassed = 2, kWords = 3 };

}  // namespace

std::unique_ptr<StreamGate> CudaStreamGate::open(CudaComponent &cuda, void *stream, Logger &log,
                                                 ucc_status_t *st) {
    const ucc_cuda_component_t *ops = cuda.ops(log);
    if (!cuda.usable(log) || !UCC_CUDA_COMPONENT_HAS(ops, stream_wait_value)) {
        UCC_LOG(log, kError, "ucc_ee_create: UCC_EE_CUDA_STREAM needs a usable CUDA device: %s",
                cuda.usable(log) ? "the CUDA component has no stream operations (an older one)"
                                 : cuda.why(log).c_str());
        *st = UCC_ERR_NOT_SUPPORTED;
        return nullptr;
    }
    void *p = nullptr;
    if (const int rc = ops->alloc(UCC_CUDA_ALLOC_HOST_PINNED, kWords * sizeof(uint32_t), &p);
        rc != 0) {
        UCC_LOG(log, kError, "ucc_ee_create: pinned memory for the stream engine: %s",
                ops->error_string(rc));
        *st = UCC_ERR_NO_MEMORY;
        return nullptr;
    }
    auto *words = static_cast<uint32_t *>(p);
    for (int i = 0; i < kWords; ++i) {
        __atomic_store_n(&words[i], 0u, __ATOMIC_RELAXED);
    }
    *st = UCC_OK;
    return std::unique_ptr<StreamGate>(new CudaStreamGate(cuda, ops, stream, words));
}

CudaStreamGate::CudaStreamGate(CudaComponent &cuda, const ucc_cuda_component_t *ops, void *stream,
                               uint32_t *words)
    : cuda_(cuda), ops_(ops), stream_(stream), words_(words) {}

CudaStreamGate::~CudaStreamGate() {
    // Every ticket released: the stream never waits on a gate that is gone.
    done_ = issued_;
    __atomic_store_n(&words_[kDone], done_, __ATOMIC_RELEASE);
    if (__atomic_load_n(&words_[kPassed], __ATOMIC_ACQUIRE) == issued_) {
        ops_->free(UCC_CUDA_ALLOC_HOST_PINNED, words_);
    } else {
        cuda_.retire(words_);  // the stream still reads them: freed at ucc_finalize
    }
}

ucc_status_t CudaStreamGate::enqueue(Logger &log, const CollRequest *owner, uint32_t *ticket) {
    if (issued_ + 1 == 0) {
        // Ticket 0 means "none" to a request: the counter steps over it, as
        // a ticket that ended at once (the stream never waits for it).
        issued_ = 0;
        pending_.push_back({nullptr, false});
        end(nullptr, 0);
    }
    const uint32_t t = issued_ + 1;
    if (t == done_) {
        // 2^32 tickets outstanding cannot be told apart: refused (never in practice).
        UCC_LOG(log, kError, "ucc_collective_triggered_post: too many waiting on the stream");
        return UCC_ERR_NO_RESOURCE;
    }
    pending_.push_back({owner, false});  // first: it may throw, before the stream has anything
    int rc = ops_->stream_write_value(stream_, &words_[kStarted], t);
    if (rc != 0) {
        pending_.pop_back();
        UCC_LOG(log, kError, "ucc_collective_triggered_post: queuing on the stream: %s",
                ops_->error_string(rc));
        return UCC_ERR_NO_MESSAGE;
    }
    issued_ = t;
    rc = ops_->stream_wait_value(stream_, &words_[kDone], t);
    if (rc == 0) {
        rc = ops_->stream_write_value(stream_, &words_[kPassed], t);
    }
    if (rc != 0) {
        UCC_LOG(log, kError, "ucc_collective_triggered_post: queuing on the stream: %s",
                ops_->error_string(rc));
        end(owner, t);  // nothing will run for it
        return UCC_ERR_NO_MESSAGE;
    }
    *ticket = t;
    return UCC_OK;
}

bool CudaStreamGate::started(uint32_t ticket) const {
    return reached(__atomic_load_n(&words_[kStarted], __ATOMIC_ACQUIRE), ticket);
}

bool CudaStreamGate::end(const CollRequest *owner, uint32_t ticket) {
    if (reached(done_, ticket) || !reached(issued_, ticket)) {
        return false;
    }
    Pending &p = pending_[ticket - done_ - 1];
    if (p.owner != owner || p.ended) {
        return false;
    }
    p.ended = true;
    const uint32_t before = done_;
    while (!pending_.empty() && pending_.front().ended) {
        pending_.pop_front();
        done_++;
    }
    if (done_ != before) {
        __atomic_store_n(&words_[kDone], done_, __ATOMIC_RELEASE);
    }
    return true;
}

}  // namespace ucc::core
