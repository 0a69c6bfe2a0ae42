// The fake CUDA component (tests/fake_cuda) as a test uses it: its table for the
// test's own "device" buffers, its counters, and its streams' "kernels". Only in
// targets that define UCC_FAKE_CUDA_DIR (the fake's build directory).
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "lib/core/cuda_loader.h"
#include "lib/core/log.h"

namespace ucc::testkit {

// The fake's table, for the test's own device buffers.
class FakeDevice {
  public:
    FakeDevice() {
        cuda_.set_search_path(UCC_FAKE_CUDA_DIR);
        ops_ = cuda_.ops(log_);
    }
    const ucc_cuda_component_t *ops() const { return ops_; }
    // The fake's counters (tests/fake_cuda/fake_cuda_component.cc).
    const uint64_t *stats() {
        auto fn = reinterpret_cast<const uint64_t *(*)()>(symbol("fake_cuda_stats"));
        static const uint64_t kNone[10] = {};
        return fn != nullptr ? fn() : kNone;
    }
    // Queues fn(arg) on a stream of the fake, as a kernel: it runs after the
    // work queued before it, on the stream's own thread.
    int launch(void *stream, void (*fn)(void *), void *arg) {
        auto f = reinterpret_cast<int (*)(void *, void (*)(void *), void *)>(
            symbol("fake_cuda_stream_launch"));
        return f != nullptr ? f(stream, fn, arg) : -1;
    }
    // A device buffer holding `host`'s bytes.
    void *make(const void *host, size_t bytes) {
        void *p = nullptr;
        EXPECT_EQ(ops_->alloc(UCC_CUDA_ALLOC_DEVICE, bytes, &p), 0);
        EXPECT_EQ(ops_->copy_async(p, host, bytes, nullptr), 0);
        owned_.push_back(p);
        return p;
    }
    template <class T>
    void *make(const std::vector<T> &v) {
        return make(v.data(), v.size() * sizeof(T));
    }
    template <class T>
    std::vector<T> read(const void *dev, size_t n) {
        std::vector<T> v(n);
        EXPECT_EQ(ops_->copy_async(v.data(), dev, n * sizeof(T), nullptr), 0);
        return v;
    }
    ~FakeDevice() {
        for (void *p : owned_) {
            ops_->free(UCC_CUDA_ALLOC_DEVICE, p);
        }
    }

  private:
    static void *symbol(const char *name) {
        void *h = dlopen(UCC_FAKE_CUDA_DIR "/" UCC_CUDA_COMPONENT_FILE, RTLD_NOW | RTLD_NOLOAD);
        void *fn = h != nullptr ? dlsym(h, name) : nullptr;
        if (h != nullptr) {
            dlclose(h);  // (the component stays: RTLD_NODELETE)
        }
        return fn;
    }

    ucc::core::Logger log_;
    ucc::core::CudaComponent cuda_;
    const ucc_cuda_component_t *ops_ = nullptr;
    std::vector<void *> owned_;
};

}  // namespace ucc::testkit
