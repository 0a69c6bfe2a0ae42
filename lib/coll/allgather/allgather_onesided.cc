// Allgather: one-sided (beyond the reference, which has none).
//
// Rank r puts its block into every peer's dst at block r (the place that
// corresponds to block r of its own dst: members map alike and place dst at
// the same offset) and signals each through the global work buffer; it is
// done when every rank's block has reached its dst
// (lib/coll/patterns/onesided.h). In place, its block is already there.
// Cost: one round of n-1 puts of B bytes and an atomic each, no forwarding:
// T = L + 2o + (n-1) B G at every rank (in and out at once).
// Constraints: UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS (src and dst in memory
// the context mapped), a global work buffer, an ordered team. Chosen by
// TUNE (allgather:0-inf:@onesided).
#include "lib/coll/allgather/allgather.h"
#include "lib/coll/patterns/onesided.h"

namespace ucc::coll {

bool allgather_onesided_supports(const Args &a, uint32_t) {
    return onesided_args(a);
}

Task allgather_onesided(Coll &c) {
    const Args &a = c.args();
    const size_t block = a.count * a.esize;
    const uint8_t *mine = static_cast<const uint8_t *>(a.dst) + c.rank() * block;
    const void *src = a.inplace ? mine : a.src;
    co_return co_await put_to_all(c, [=](uint32_t) { return PutBlock{src, mine, block}; });
}

}  // namespace ucc::coll
