// Allgather: Bruck.
//
// Each rank starts a scratch array with its own block at index 0. In round i
// (distance d = 2^i) it sends its first min(d, n-d) blocks to rank r-d and
// appends as many received from rank r+d. After ceil(log2 n) rounds index j
// holds the block of rank (r+j) mod n, and a final rotation writes dst.
// Cost: ceil(log2 n) rounds, (n-1) B bytes in total:
//   T = ceil(log2 n)(L + o) + (n-1) B G + n B gamma_copy.
// Constraints: none (any n). Scratch: n*B bytes. In-place: own block at r*B.
// Tag steps: 1..ceil(log2 n).
#include "lib/coll/allgather/allgather.h"

namespace ucc::coll {

// The n blocks in rotated order.
void allgather_bruck_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    plan.add(a.count * a.esize * n);
}

Task allgather_bruck(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    uint8_t *tmp = c.scratch(block * n);
    c.copy(tmp, a.inplace ? dst + r * block : a.src, block);
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= 2, ++step) {
        const auto dist = static_cast<uint32_t>(d);
        const uint32_t cnt = std::min(dist, n - dist);
        Req s = c.send((r + n - dist) % n, step, tmp, cnt * block);
        Req q = c.recv((r + dist) % n, step, tmp + dist * block, cnt * block);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    for (uint32_t j = 0; j < n; ++j) {
        c.copy(dst + ((r + j) % n) * block, tmp + j * block, block);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
