// Pinned host buffers and CUDA streams for the staging of device memory
// (lib/core/device_staging.h), kept for reuse across the requests of a
// library.
//
// cudaHostAlloc pins and maps pages (about a millisecond for a few
// megabytes) and a stream costs tens of microseconds: paid at every
// ucc_collective_init on device memory they would dwarf a small collective
// (PyTorch inits one per call). A request takes its buffers and stream at
// init and gives them back when it is freed; its copies are synchronous, so
// the device no longer touches them then. The next request of any context
// of the library takes them again.
//
// Buffers come in power-of-two capacities (from 4 KiB), so that requests of
// similar sizes share them; idle ones are kept up to kMaxIdleBytes in all,
// the rest freed when given back (a buffer larger than that is allocated to
// its size and never kept). Streams belong to the device current when they
// were made: idle ones are kept per device, up to kMaxIdleStreams in all,
// and only with a component that says which device is current (else each
// request makes and destroys its own, as before). The pool is shared by the
// library and its requests (a request may outlive ucc_finalize's other
// state), and frees everything when the last of them lets go.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "lib/cuda_component.h"

namespace ucc::core {

class StagingPool {
  public:
    explicit StagingPool(const ucc_cuda_component_t *ops) : ops_(ops) {}
    StagingPool(const StagingPool &) = delete;
    StagingPool &operator=(const StagingPool &) = delete;
    ~StagingPool();

    // A pinned buffer of at least `bytes`, its capacity in *capacity: 0, or
    // the component's error code.
    int take_buffer(uint64_t bytes, void **p, uint64_t *capacity);
    void give_buffer(void *p, uint64_t capacity);
    // A stream of the calling thread's current device (*device: -1 when the
    // component cannot say, and then the stream is not kept).
    int take_stream(void **stream, int *device);
    void give_stream(void *stream, int device);

    struct Stats {
        uint64_t buffers_made = 0, buffers_reused = 0, streams_made = 0, streams_reused = 0;
        uint64_t idle_bytes = 0;
    };
    Stats stats();

    static constexpr uint64_t kMinCapacity = 4096;
    static constexpr uint64_t kMaxIdleBytes = uint64_t{64} << 20;
    static constexpr size_t kMaxIdleStreams = 16;

  private:
    const ucc_cuda_component_t *ops_;
    std::mutex mu_;
    std::map<uint64_t, std::vector<void *>> idle_;  // by capacity
    std::vector<std::pair<int, void *>> streams_;   // idle: (device, stream)
    Stats stats_;
};

}  // namespace ucc::core
