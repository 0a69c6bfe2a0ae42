// The CUDA-stream execution engine's handshake with its stream
// (UCC_EE_CUDA_STREAM; lib/core/ee.h): the interface, and the gate of a
// real CUDA stream.
//
// A collective triggered on a stream starts after the work queued on the
// stream before it, and the work queued after it waits for it to end, while
// no host thread blocks. Each triggered post takes a ticket t (1, 2, ... on
// the engine) and queues three operations on the user's stream
// (lib/cuda_component.h): write t into `started`; wait until `done` reaches
// t; write t into `passed`. The context's progress sees `started` reach t
// and posts the collective; when the collective ends (completed, failed,
// timed out, cancelled, or finalized before it fired) the engine moves
// `done` to t and the stream goes on.
//
// Stream memory operations, not host functions (cudaLaunchHostFunc): a host
// function cannot wait for the collective without blocking the CUDA
// runtime's callback thread, which every stream of the process shares, and
// one that only signalled the start would still leave the later work
// unordered. A write and a wait run on the GPU's front end, take no SM and no
// host thread, and cost a few microseconds; where the driver lacks them the
// component runs each as a one-thread kernel (transports/cuda/component.cu).
//
// `done` moves only over a prefix of ended tickets: a later ticket that ends
// first (it can only end early without running: timed out or cancelled while
// waiting) does not let the stream past an earlier one still running.
// Counters compare cyclically, as the stream's wait does, so they may wrap.
//
// The three words are pinned host memory the stream reads and writes. An
// engine destroyed (or orphaned) releases every ticket; its words are freed
// once the stream has passed its last wait (`passed`), else kept by the
// component until ucc_finalize (CudaComponent::retire), never touching the
// user's stream, which may be gone by then.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "lib/cuda_component.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

class CudaComponent;
class Logger;

struct CollRequest;

// A stream's handshake with its engine: what lib/core/ee.cc asks of a CUDA
// stream (CudaStreamGate, below) and of a simulated one (SimStreamGate,
// lib/core/sim_stream.h). Tickets are 1, 2, ... in triggered-post order;
// 0 means none.
class StreamGate {
  public:
    virtual ~StreamGate() = default;
    // Queues a ticket for `owner` (a request waiting on the engine); its
    // number in *ticket.
    virtual ucc_status_t enqueue(Logger &log, const CollRequest *owner, uint32_t *ticket) = 0;
    // The stream reached `ticket`'s start.
    virtual bool started(uint32_t ticket) const = 0;
    // The stream reached `owner`'s ticket and the engine fires it now.
    virtual void fired(const CollRequest & /*owner*/) {}
    // `owner`'s `ticket` ended: the stream may pass it once the tickets
    // before it ended too. False when it is not one of this gate's.
    virtual bool end(const CollRequest *owner, uint32_t ticket) = 0;
};

class CudaStreamGate final : public StreamGate {
  public:
    // A gate on `stream`, or null with the reason logged and *st set.
    static std::unique_ptr<StreamGate> open(CudaComponent &cuda, void *stream, Logger &log,
                                            ucc_status_t *st);
    CudaStreamGate(const CudaStreamGate &) = delete;
    CudaStreamGate &operator=(const CudaStreamGate &) = delete;
    ~CudaStreamGate() override;

    ucc_status_t enqueue(Logger &log, const CollRequest *owner, uint32_t *ticket) override;
    bool started(uint32_t ticket) const override;
    bool end(const CollRequest *owner, uint32_t ticket) override;

  private:
    CudaStreamGate(CudaComponent &cuda, const ucc_cuda_component_t *ops, void *stream,
                   uint32_t *words);
    static bool reached(uint32_t counter, uint32_t ticket) {
        return static_cast<int32_t>(counter - ticket) >= 0;
    }

    CudaComponent &cuda_;
    const ucc_cuda_component_t *ops_;
    void *stream_;
    uint32_t *words_;      // [0] started, [1] done, [2] passed
    uint32_t issued_ = 0;  // the last ticket queued
    uint32_t done_ = 0;    // the last ticket released
    struct Pending {
        const CollRequest *owner;
        bool ended;
    };
    std::deque<Pending> pending_;  // tickets done_ + 1 ... issued_
};

}  // namespace ucc::core
