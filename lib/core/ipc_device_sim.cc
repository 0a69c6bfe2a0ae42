// The IPC protocol's device work on the simulator (device_ipc.h IpcDevice):
// simulated ranks live in one process and their "device" buffers are host
// memory, so a peer's buffer is read at its address; each operation runs on
// the host at once (nothing in a timing-only run, which moves no payload) and
// charges the rank's clock what the GPU would take (lib/simulated.h
// Work::kGpu* and charge_gpu_fold: the network model's gpu_lat, gpu_bw,
// gpu_reduce_bw, nvlink_bw). The stream's operations run one after another, so the waits
// cost nothing more; every member maps every peer, so nothing is staged.
#include <cstring>
#include <vector>

#include "lib/core/device_ipc.h"
#include "lib/dt/dt.h"
#include "lib/simulated.h"

namespace ucc::core {

namespace {

class SimIpc final : public IpcDevice {
  public:
    SimIpc(ucc::SimulatedWorld &world, Logger &log)
        : world_(world), log_(log), move_(!world.timing_only()) {}

    int32_t pid() const override { return 0; }  // (one process, and no real pid in a run)
    bool ready() override { return true; }

    bool export_buffer(const void *p, IpcBuffer *out) override {
        std::memset(out, 0, sizeof(*out));
        out->address = reinterpret_cast<uintptr_t>(p);
        return true;
    }
    uint8_t *import_buffer(const IpcBuffer &) override {
        return nullptr;
    }  // (never another process)

    int fold(const ucc::coll::Args &a, void *dst, const void *const *inputs, uint32_t n,
             uint64_t count, uint32_t peers) override {
        const uint64_t bytes = count * a.esize;
        if (move_ && bytes != 0) {
            // Through an accumulator only when dst is an input the first step
            // does not read (in place, from rank 2 on): it is still to be read.
            bool later = false;
            for (uint32_t k = 2; k < n; ++k) {
                later = later || inputs[k] == dst;
            }
            void *acc = dst;
            if (later) {
                acc_.resize(bytes);
                acc = acc_.data();
            }
            ucc::dt::reduce(a.dt, a.op, acc, inputs[0], inputs[1], count);
            for (uint32_t k = 2; k < n; ++k) {
                ucc::dt::reduce(a.dt, a.op, acc, acc, inputs[k], count);
            }
            if (later) {
                std::memcpy(dst, acc, bytes);
            }
        }
        world_.charge_gpu_fold(bytes, n, peers);
        return 0;
    }
    int avg(const ucc::coll::Args &a, void *buf, uint64_t count, uint32_t n) override {
        if (move_) {
            ucc::dt::avg_finalize(a.dt, buf, count, n);
        }
        world_.charge_gpu_fold(count * a.esize, 1, 0);
        return 0;
    }
    int copy(void *dst, const void *src, uint64_t bytes, bool peer) override {
        if (move_ && bytes != 0) {
            std::memmove(dst, src, bytes);
        }
        world_.charge(peer ? ucc::Work::kGpuPeerCopy : ucc::Work::kGpuCopy, bytes);
        return 0;
    }
    ucc::Task reached(ucc::coll::Coll &, int, uint32_t, bool *) override { co_return UCC_OK; }
    ucc::Task staged(ucc::coll::Coll &c, ucc::coll::AlgFn alg, ucc::coll::ScratchCache *,
                     bool) override {
        co_return co_await alg(c);  // (not reached: every member maps every peer)
    }
    Logger &log() override { return log_; }

  private:
    ucc::SimulatedWorld &world_;
    Logger &log_;
    const bool move_;
    std::vector<uint8_t> acc_;
};

}  // namespace

std::unique_ptr<IpcDevice> sim_ipc_device(ucc::SimulatedWorld &world, Logger &log) {
    return std::make_unique<SimIpc>(world, log);
}

}  // namespace ucc::core
