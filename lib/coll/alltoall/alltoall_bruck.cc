// Alltoall: Bruck.
//
// Each rank first rotates its blocks so that index i holds the block for rank
// r+i. In round k (distance d = 2^k) it sends every block whose index has bit k
// set to rank r+d and receives as many from rank r-d, keeping their indices;
// after ceil(log2 n) rounds every block has travelled exactly its index and
// index i holds the block from rank r-i. Index i belongs at rank position
// r-i: that map is its own inverse, so a final pass of block swaps puts every
// block in place.
// The blocks live in dst throughout (rotated into it, or in place), so the
// only scratch is one round's outgoing and incoming blocks; the blocks with
// bit k set are runs of 2^k consecutive indices, packed and unpacked a run at
// a time.
// Cost: ceil(log2 n) rounds of about n/2 blocks:
//   T = ceil(log2 n)(L + o) + (n/2) ceil(log2 n) B (G + 2 / copy bandwidth)
//       + 2 n B / copy bandwidth — few messages, more bytes: for small blocks
// on many ranks.
// Constraints: none. Scratch: (n + 3) B bytes. In-place: dst is rotated in
// place. Tag steps: k + 1.
#include <algorithm>

#include "lib/coll/alltoall/alltoall.h"

namespace ucc::coll {

// Pack and unpack buffers of n/2+1 blocks; in place, the first r blocks while
// the rest move down.
void alltoall_bruck_scratch(const Args &a, uint32_t r, uint32_t n, ScratchPlan &plan) {
    const size_t block = a.count * a.esize;
    plan.add(block * (n / 2 + 1));
    plan.add(block * (n / 2 + 1));
    if (a.inplace) {
        plan.add(static_cast<size_t>(r) * block);
    }
}

Task alltoall_bruck(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    auto at = [&](uint64_t i) { return dst + i * block; };
    uint8_t *pack = c.scratch(block * (n / 2 + 1));
    uint8_t *unpack = c.scratch(block * (n / 2 + 1));
    // Rotation: index i holds the block for rank r+i.
    if (a.inplace) {
        uint8_t *head = c.scratch(static_cast<size_t>(r) * block);
        c.copy(head, dst, static_cast<size_t>(r) * block);
        c.copy(dst, at(r), static_cast<size_t>(n - r) * block);
        c.copy(at(n - r), head, static_cast<size_t>(r) * block);
    } else {
        const auto *src = static_cast<const uint8_t *>(a.src);
        c.copy(dst, src + static_cast<size_t>(r) * block, static_cast<size_t>(n - r) * block);
        c.copy(at(n - r), src, static_cast<size_t>(r) * block);
    }
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= 2, ++step) {
        // The indices with bit d set are the runs [i, i + d) for i = d, 3d, 5d, ...
        size_t nb = 0;
        for (uint64_t i = d; i < n; i += 2 * d) {
            const size_t run = std::min<uint64_t>(d, n - i);
            c.copy(pack + nb * block, at(i), run * block);
            nb += run;
        }
        const auto dist = static_cast<uint32_t>(d);
        Req s = c.send((r + dist) % n, step, pack, nb * block);
        Req q = c.recv((r + n - dist) % n, step, unpack, nb * block);
        UCC_CO_TRY(co_await c.wait(s, q));
        nb = 0;
        for (uint64_t i = d; i < n; i += 2 * d) {
            const size_t run = std::min<uint64_t>(d, n - i);
            c.copy(at(i), unpack + nb * block, run * block);
            nb += run;
        }
    }
    // Index i goes to position (r - i) mod n and the block there to i.
    uint8_t *swap = pack;
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t j = (r + n - i) % n;
        if (i < j) {
            c.copy(swap, at(i), block);
            c.copy(at(i), at(j), block);
            c.copy(at(j), swap, block);
        }
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
