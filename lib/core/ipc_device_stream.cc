// The IPC protocol's device work on real processes (device_ipc.h IpcDevice):
// the CUDA component's kernels and copies on the staging's stream, peers'
// buffers mapped through the context's IpcCache, and each wait a stream
// write into a pinned counter that the transport watches (the host thread
// never blocks).
#include <unistd.h>

#include <optional>

#include "lib/core/device_ipc.h"
#include "lib/core/device_staging.h"
#include "lib/core/log.h"

namespace ucc::core {

void DeviceStaging::unpin() {
    for (void *p : pins) {
        ipc->release(p);
    }
    pins.clear();
    ipc.reset();
}

namespace {

class StreamIpc final : public IpcDevice {
  public:
    StreamIpc(DeviceStaging &s, std::shared_ptr<IpcCache> cache) : s_(s), ops_(s.ops) {
        s_.ipc = std::move(cache);
    }

    int32_t pid() const override { return static_cast<int32_t>(getpid()); }
    bool ready() override { return s_.take_words() == 0; }

    bool export_buffer(const void *p, IpcBuffer *out) override {
        size_t offset = 0;
        if (ops_->ipc_get_handle(p, out->handle, &offset) != 0) {
            return false;
        }
        out->offset = offset;
        out->address = reinterpret_cast<uintptr_t>(p);
        return true;
    }

    uint8_t *import_buffer(const IpcBuffer &b) override {
        void *base = nullptr;
        void *pin = nullptr;
        if (s_.ipc->acquire(b.handle, &base, &pin) != 0) {
            return nullptr;
        }
        s_.pins.push_back(pin);
        return static_cast<uint8_t *>(base) + b.offset;
    }

    int fold(const ucc::coll::Args &a, void *dst, const void *const *inputs, uint32_t n,
             uint64_t count, uint32_t) override {
        return ops_->reduce_many_async(a.dt, a.op, dst, inputs, n, count, s_.stream);
    }
    int avg(const ucc::coll::Args &a, void *buf, uint64_t count, uint32_t n) override {
        return ops_->avg_async(a.dt, buf, count, n, s_.stream);
    }
    int copy(void *dst, const void *src, uint64_t bytes, bool) override {
        return ops_->copy_async(dst, src, bytes, s_.stream);
    }

    ucc::Task reached(ucc::coll::Coll &c, int rc, uint32_t step, bool *fine) override {
        if (rc == 0) {
            rc = ops_->stream_write_value(s_.stream, reinterpret_cast<uint32_t *>(s_.words), step);
        }
        if (rc != 0) {
            UCC_LOG(*s_.log, kError, "over CUDA IPC: queuing step %u: %s", step,
                    ops_->error_string(rc));
            *fine = false;
            co_return UCC_OK;
        }
        ucc::coll::Req w = c.watch(s_.words, step);
        co_return co_await c.wait(w);
    }

    ucc::Task staged(ucc::coll::Coll &c, ucc::coll::AlgFn alg, ucc::coll::ScratchCache *scratch,
                     bool may_end_early) override {
        s_.unpin();
        UCC_CO_TRY(s_.stage_in(c.args()));
        std::optional<ucc::coll::Coll> run;
        run.emplace(c.env(), s_.run, c.rank(), c.size(), c.tag_base(), 0, scratch);
        run->set_may_end_early(may_end_early);
        co_return co_await alg(*run);
    }

    void direct() override { s_.direct = true; }
    Logger &log() override { return *s_.log; }

  private:
    DeviceStaging &s_;
    const ucc_cuda_component_t *ops_;
};

}  // namespace

std::unique_ptr<IpcDevice> stream_ipc_device(DeviceStaging &s, std::shared_ptr<IpcCache> cache) {
    return std::make_unique<StreamIpc>(s, std::move(cache));
}

}  // namespace ucc::core
