// Alltoall: Bruck, radix k (Bruck, Ho, Kipnis, Upfal and Weathersby, 1997:
// the index algorithm in base k; k = 2 is the classic one).
//
// Each rank first rotates its blocks so that index i holds the block for rank
// r+i. In round m (distance d = k^m) it sends, for each digit value
// j = 1 .. k-1, every block whose index has base-k digit m equal to j to rank
// r + j d, and receives as many from rank r - j d, keeping their indices;
// after ceil(log_k n) rounds every block has travelled exactly its index and
// index i holds the block from rank r-i. Index i belongs at rank position
// r-i: that map is its own inverse, so a final pass of block swaps puts every
// block in place.
// The blocks live in dst throughout (rotated into it, or in place), so the
// only scratch is one round's outgoing and incoming blocks; the blocks of one
// digit value are runs of d consecutive indices, packed and unpacked a run at
// a time. The radix trades rounds for bytes: each round moves about
// (k-1)/k of the blocks in k-1 messages.
// Cost: ceil(log_k n) rounds of k-1 messages of about n/k blocks:
//   T = ceil(log_k n)(L + 2(k-1) o) + (k-1)/k n ceil(log_k n) B (G + 2 / copy
//       bandwidth) + 2 n B / copy bandwidth — few messages, more bytes: for
// small blocks on many ranks.
// Constraints: none; k = the radix (ALLTOALL_BRUCK_RADIX, lowered to n, at
// least 2). Scratch: the most blocks a round moves, twice, and in place r
// blocks. In-place: dst is rotated in place. Tag steps: m + 1.
#include <algorithm>

#include "lib/coll/alltoall/alltoall.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll {

namespace {

using patterns::digit_runs;

// The most blocks one round moves.
uint64_t most_moved(uint64_t n, uint64_t k) {
    uint64_t most = 0;
    for (uint64_t d = 1; d < n; d *= k) {
        most = std::max(most, patterns::digit_blocks(n, k, d));
    }
    return most;
}

}  // namespace

void alltoall_bruck_scratch(const Args &a, uint32_t r, uint32_t n, ScratchPlan &plan) {
    const size_t block = a.count * a.esize;
    const uint64_t most = most_moved(n, patterns::lowered_radix(a.radix, n));
    plan.add(block * most);
    plan.add(block * most);
    if (a.inplace) {
        plan.add(static_cast<size_t>(r) * block);
    }
}

Task alltoall_bruck(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const uint64_t k = patterns::lowered_radix(a.radix, n);
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    auto at = [&](uint64_t i) { return dst + i * block; };
    const uint64_t most = most_moved(n, k);
    uint8_t *pack = c.scratch(block * most);
    uint8_t *unpack = c.scratch(block * most);
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
    for (uint64_t d = 1; d < n; d *= k, ++step) {
        ReqList reqs = c.req_list(2 * (k - 1));
        size_t off = 0;  // blocks packed so far this round
        for (uint64_t j = 1; j < k && j * d < n; ++j) {
            const size_t first = off;
            digit_runs(n, k, d, j, [&](uint64_t b, uint64_t len) {
                c.copy(pack + off * block, at(b), len * block);
                off += len;
            });
            const size_t bytes = (off - first) * block;
            reqs.push_back(
                c.send(static_cast<uint32_t>((r + j * d) % n), step, pack + first * block, bytes));
            reqs.push_back(c.recv(static_cast<uint32_t>((r + n - j * d) % n), step,
                                  unpack + first * block, bytes));
        }
        UCC_CO_TRY(co_await c.wait_all(reqs));
        off = 0;
        for (uint64_t j = 1; j < k && j * d < n; ++j) {
            digit_runs(n, k, d, j, [&](uint64_t b, uint64_t len) {
                c.copy(at(b), unpack + off * block, len * block);
                off += len;
            });
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
