// Alltoall: Bruck.
//
// Each rank first rotates its blocks so that index i holds the block for rank
// r+i. In round k (distance d = 2^k) it sends every block whose index has bit k
// set to rank r+d and receives as many from rank r-d, keeping their indices;
// after ceil(log2 n) rounds every block has travelled exactly its index and
// index i holds the block from rank r-i, which a final rotation puts in place.
// Cost: ceil(log2 n) rounds of about n/2 blocks:
//   T = ceil(log2 n)(L + o) + (n/2) ceil(log2 n) B G — few messages, more bytes:
// for small blocks on many ranks.
// Constraints: none. Scratch: 2 n B bytes. In-place: dst holds the outgoing
// blocks (read into scratch first). Tag steps: k + 1.
#include "lib/coll/alltoall/alltoall.h"

namespace ucc::coll {

Task alltoall_bruck(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const auto *src = static_cast<const uint8_t *>(a.inplace ? a.dst : a.src);
    uint8_t *tmp = c.scratch(block * n);
    uint8_t *pack = c.scratch(block * (n / 2 + 1));
    uint8_t *unpack = c.scratch(block * (n / 2 + 1));
    for (uint32_t i = 0; i < n; ++i) {
        c.copy(tmp + static_cast<size_t>(i) * block, src + static_cast<size_t>((r + i) % n) * block,
               block);
    }
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= 2, ++step) {
        size_t nb = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (i & d) {
                c.copy(pack + nb * block, tmp + static_cast<size_t>(i) * block, block);
                ++nb;
            }
        }
        const auto dist = static_cast<uint32_t>(d);
        Req s = c.send((r + dist) % n, step, pack, nb * block);
        Req q = c.recv((r + n - dist) % n, step, unpack, nb * block);
        UCC_CO_TRY(co_await c.wait(s, q));
        nb = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (i & d) {
                c.copy(tmp + static_cast<size_t>(i) * block, unpack + nb * block, block);
                ++nb;
            }
        }
    }
    for (uint32_t i = 0; i < n; ++i) {
        c.copy(dst + static_cast<size_t>((r + n - i) % n) * block,
               tmp + static_cast<size_t>(i) * block, block);
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
