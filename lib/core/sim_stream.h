// CUDA streams on a simulated rank: UCC_EE_CUDA_STREAM on the simulator
// (lib/core/ee.h).
//
// The simulator has no GPU and runs no kernels, so a simulated stream holds
// only the collectives triggered on it, in the order of their triggered
// posts, and runs them one at a time as a real stream runs a gate's tickets
// (lib/core/stream_gate.h): each starts when the one queued before it has
// ended (completed, failed, timed out, cancelled, or finalized before it
// fired), and the triggered post returns at once. The stream reaches the
// next collective at the instant the one before ends, in virtual time (a
// real stream's memory operations take a few microseconds; not charged).
// Engines of one context that name the same ee_context share its stream
// (streams are numbered 1, 2, ... per context in order of first use); an
// engine destroyed releases its tickets, as a real one does. With a timeline
// (ucc_sim --timeline) each stream is a track of its rank: where a
// collective was queued and how long it held the stream.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>

#include "lib/core/stream_gate.h"

namespace ucc {
class SimulatedWorld;
}

namespace ucc::core {

struct Context;

class SimStreamGate final : public StreamGate {
  public:
    // A gate on simulated stream `handle` of `ctx` (shared with the
    // context's other engines on it).
    static std::unique_ptr<StreamGate> open(Context &ctx, void *handle);
    SimStreamGate(const SimStreamGate &) = delete;
    SimStreamGate &operator=(const SimStreamGate &) = delete;
    ~SimStreamGate() override;

    ucc_status_t enqueue(Logger &log, const CollRequest *owner, uint32_t *ticket) override;
    bool started(uint32_t ticket) const override;
    void fired(const CollRequest &owner) override;
    bool end(const CollRequest *owner, uint32_t ticket) override;

  private:
    struct Item {
        const CollRequest *owner;
        const SimStreamGate *gate;
        uint32_t ticket;
        bool ended;
        bool began;  // the stream reached it
    };
    struct Stream {
        void *handle;
        uint32_t number;
        uint32_t issued = 0;     // the last ticket queued
        std::deque<Item> items;  // not yet passed, in order
    };
    SimStreamGate(SimulatedWorld *sim, std::shared_ptr<Stream> stream);
    // Passes the ended items at the stream's head.
    void pass();

    SimulatedWorld *sim_;
    std::shared_ptr<Stream> stream_;
};

}  // namespace ucc::core
