// A process's membership in a real job: the environment contract (env.h), a
// store connection (store.h), and over them the OOB allgather and barrier
// behind include/ucc/boot/ucc_boot.h.
//
// Keys. ucc_boot/epoch/<rank> counts this rank's inits against the store, so
// a long-lived store (ucc_run's) serves any number of init/finalize cycles;
// an init's keys live under ucc_boot/<epoch>/. OOB allgather k uses
// ag/<k>/<rank> and barrier k b/<k>/<rank>: a per-handle counter names each
// round, which is sound because every rank calls them in the same order.
//
// A round is one round trip: each rank posts a set of its key (read budget n,
// so the store erases it once all n ranks have read it) and, pipelined behind
// it, a get of all n keys, which the store parks until the last rank's set.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "lib/boot/env.h"
#include "lib/boot/store.h"
#include "lib/core/log.h"

namespace ucc::boot {

// One posted allgather round.
class RoundRequest {
  public:
    // UCC_INPROGRESS, then UCC_OK once the n contributions are in the receive
    // buffer, or an error (logged once).
    ucc_status_t test();
    ucc_status_t wait();

  private:
    friend class Boot;
    ucc_status_t finish(ucc_status_t st);
    std::shared_ptr<StoreClient> client_;
    StoreRequestPtr set_;
    StoreRequestPtr get_;
    void *rbuf_ = nullptr;
    size_t bytes_ = 0;
    uint32_t n_ = 0;
    std::string name_;  // "OOB allgather 3" for log lines
    core::Logger log_;  // a copy: a request may outlive its Boot
    ucc_status_t status_ = UCC_INPROGRESS;
};

class Boot {
  public:
    Boot(const BootEnv &env, std::chrono::milliseconds timeout, core::LogLevel level);
    ~Boot();
    Boot(const Boot &) = delete;
    Boot &operator=(const Boot &) = delete;

    // Hosts or connects to the store, takes this init's epoch, and waits for
    // every rank (a barrier).
    ucc_status_t start();
    const BootEnv &env() const { return env_; }
    const core::Logger &log() const { return log_; }

    // OOB allgather: the next round's request (never null). `sbuf` is copied
    // before this returns; `rbuf` receives n * bytes when test() says UCC_OK.
    std::unique_ptr<RoundRequest> post_allgather(const void *sbuf, void *rbuf, size_t bytes);
    ucc_status_t barrier();
    // Barrier, close, stop the store if hosted. Call once.
    ucc_status_t finish();

  private:
    std::unique_ptr<RoundRequest> post_round(const char *kind, uint64_t round, const void *sbuf,
                                             void *rbuf, size_t bytes, std::string name);

    BootEnv env_;
    std::chrono::milliseconds timeout_;
    core::Logger log_;
    std::unique_ptr<StoreServer> server_;
    std::shared_ptr<StoreClient> client_;  // shared with outstanding requests
    std::string prefix_;                   // "ucc_boot/<epoch>/"
    // Round counters; atomic so that threads may share the handle (the order
    // of rounds must still be the same on every rank).
    std::atomic<uint64_t> allgathers_{0};
    std::atomic<uint64_t> barriers_{0};
};

}  // namespace ucc::boot
