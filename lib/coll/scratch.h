// Scratch memory of collectives: what one run asks for (ScratchPlan), the
// buffers a request keeps across its posts (ScratchCache), and the buffers a
// context keeps across requests (ScratchPool).
//
// A request allocates its scratch at ucc_collective_init, so that running out
// of memory fails the init rather than a post, and every post of a persistent
// request reuses it. Programs that init and finalize a request per call (MPI
// through coll/ucc does) would then allocate and free the same buffers on
// every call: with glibc's heap trimming, a 1 MiB reduce then shrinks and
// regrows the heap each time and its first touches cost more than the
// transfer. The context's pool keeps a few finished requests' buffers (at most
// kMaxBufs, kMaxBytes in all) and hands the smallest that fits to the next
// init, as the reference's memory pools do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "lib/util/small_vector.h"

#include "ucc/api/ucc.h"

namespace ucc::coll {

// The scratch buffers one run of an algorithm asks for (Coll::scratch), in
// the order it asks for them: an algorithm's `scratch` entry fills it from the
// arguments, so that the buffers are allocated by ucc_collective_init (which
// fails with UCC_ERR_NO_MEMORY rather than a post) and every post reuses them.
class ScratchPlan {
  public:
    void add(size_t bytes) { bytes_.push_back(bytes); }
    std::span<const size_t> sizes() const { return {bytes_.data(), bytes_.size()}; }

  private:
    SmallVector<size_t, 4> bytes_;  // every init makes one: no allocation
};

// Buffers of finished requests, kept for the next ones (one per context;
// used under the context's guard). Never allocates.
class ScratchPool {
  public:
    static constexpr size_t kMaxBufs = 8;
    static constexpr size_t kMaxBytes = size_t{64} << 20;

    ScratchPool() = default;
    ScratchPool(const ScratchPool &) = delete;
    ScratchPool &operator=(const ScratchPool &) = delete;

    // The smallest kept buffer of at least `bytes` (its length in *got), or
    // nullptr.
    std::unique_ptr<uint8_t[]> take(size_t bytes, size_t *got);
    // Keeps `data` (`bytes` long) if there is room, evicting smaller buffers
    // for it when the pool is full; frees it otherwise.
    void give(std::unique_ptr<uint8_t[]> data, size_t bytes);
    // Frees every kept buffer; later gives free theirs at once (a destroyed
    // context keeps no memory for requests finalized after it).
    void close();
    size_t kept() const { return n_; }
    size_t kept_bytes() const { return bytes_; }

  private:
    struct Kept {
        std::unique_ptr<uint8_t[]> data;
        size_t bytes = 0;
    };
    void drop(size_t i);
    // Made at the first give: a simulated rank's context keeps none (every
    // request there allocates its own), and a million of them hold 8 bytes
    // each instead of the list.
    std::unique_ptr<Kept[]> kept_;  // kMaxBufs of them
    size_t n_ = 0;
    size_t bytes_ = 0;
    bool closed_ = false;
};

// Scratch buffers of a collective's runs: the runs of a persistent request
// ask for the same sizes in the same order and get the same buffers back.
// With a pool, buffers come from it when it has them and go back to it when
// the cache is destroyed or outgrows them.
class ScratchCache {
  public:
    ScratchCache() = default;
    ScratchCache(const ScratchCache &) = delete;
    ScratchCache &operator=(const ScratchCache &) = delete;
    ~ScratchCache();
    void set_pool(ScratchPool *pool) { pool_ = pool; }
    // Allocates the plan's buffers (timing-only: token buffers, as
    // Coll::scratch asks for); UCC_ERR_NO_MEMORY when an allocation fails.
    ucc_status_t reserve(const ScratchPlan &plan, bool timing_only) noexcept;
    // The `i`-th buffer of a run, at least `bytes` long (and at least 1);
    // allocates (and counts it) only when the plan did not foresee it.
    uint8_t *get(size_t i, size_t bytes);
    // Buffers get() had to allocate or grow (0 when the plan was exact).
    uint64_t unplanned() const { return unplanned_; }

  private:
    struct Buf {
        uint8_t *data = nullptr;  // owned (new[]): release() frees it or pools it
        size_t bytes = 0;
    };
    uint8_t *ensure(size_t i, size_t bytes);
    void release(Buf &b);
    SmallVector<Buf, 2> bufs_;  // inline: an init allocates no list
    uint64_t unplanned_ = 0;
    ScratchPool *pool_ = nullptr;
};

// What Coll::scratch asks for in a timing-only run (nothing is read or
// written): a token buffer of at most this many bytes.
inline constexpr size_t kTimingOnlyScratchBytes = 64;

}  // namespace ucc::coll
