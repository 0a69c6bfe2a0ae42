// One-sided delivery: every rank writes its blocks straight into its peers'
// mapped memory, then tells each peer so; a rank is done when all have told it.
//
// The pattern of the reference's one-sided alltoall(v): rank r puts its
// block for each peer p (p = r+1, r+2, ...) into p's memory, fences (what
// follows lands after the puts), then adds 1 to every peer's arrival counter
// in the global work buffer; its own block it copies and counts itself.
// Rank r completes when its counter reaches n (every block has landed in its
// memory) and its puts have completed locally (its src may be reused). No
// rank waits for another to be ready: the destination is taken as writable
// when the collective is posted.
//
// The work buffer (at least kWorkWords 64-bit words, zero before the first
// use, in mapped memory at the same place on every rank) holds two pairs of
// words, by the parity of the team's one-sided round (Args::round): a rank
// can be at most one round ahead of another (finishing round k needs every
// member's signal of round k), so the next round's early signals land in
// the other pair. Each pair: [arrivals, failures]. A rank that cannot put
// its block to p (p's memory does not hold it) adds 1 to p's failures
// before the fence, so p fails instead of waiting or completing with a
// hole. A rank done with round k subtracts what round k added: the words
// are back to zero for round k+2.
//
// Cost: the puts and an 8-byte atomic per peer, all posted at once, no
// round trip: T = L + 2o + max(n B_in, n B_out) G; no rank forwards anything.
// Constraints: an ordered team (the rounds agree); puts need src and dst in
// mapped memory (lib/core/mapped_memory.h).
#pragma once

#include "lib/coll/coll.h"

namespace ucc::coll {

inline constexpr uint32_t kWorkWords = 4;

// What rank r writes to one peer: `bytes` of `src` to the place in the
// peer's memory that corresponds to `target` in r's (nothing when 0).
struct PutBlock {
    const void *src;
    const void *target;
    size_t bytes;
};

// Whether `a` can run one-sided: mapped buffers and a work buffer.
inline bool onesided_args(const Args &a) {
    return a.mapped && a.work != nullptr && (reinterpret_cast<uintptr_t>(a.work) & 7) == 0;
}

// Puts block(p) (a PutBlock) to every rank p, signals each, and waits for
// every rank's signal (see above).
template <class BlockFn>
Task put_to_all(Coll &c, BlockFn block) {
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    uint64_t *pair = c.args().work + 2 * (c.args().round & 1);
    ReqList reqs = c.req_list(2 * n);
    bool failed = false;
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t p = (r + i) % n;
        const auto [src, target, bytes] = block(p);
        if (bytes == 0) {
            continue;
        }
        Req put = c.put(p, src, target, bytes);
        if (put.done() && put.status() < 0) {
            failed = true;
            reqs.push_back(c.atomic_add(p, pair + 1, 1));
        } else {
            reqs.push_back(std::move(put));
        }
    }
    {
        const auto [src, target, bytes] = block(r);
        c.copy(const_cast<void *>(target), src, bytes);
        __atomic_fetch_add(pair, 1, __ATOMIC_ACQ_REL);
    }
    UCC_CO_TRY(c.fence());
    for (uint32_t i = 1; i < n; ++i) {
        reqs.push_back(c.atomic_add((r + i) % n, pair, 1));
    }
    UCC_CO_TRY(co_await c.wait_all(reqs));
    Req all = c.watch(pair, n);
    UCC_CO_TRY(co_await c.wait(all));
    const uint64_t failures = __atomic_load_n(pair + 1, __ATOMIC_ACQUIRE);
    __atomic_fetch_sub(pair, n, __ATOMIC_ACQ_REL);
    __atomic_fetch_sub(pair + 1, failures, __ATOMIC_ACQ_REL);
    co_return failures == 0 && !failed ? UCC_OK : UCC_ERR_INVALID_PARAM;
}

}  // namespace ucc::coll
