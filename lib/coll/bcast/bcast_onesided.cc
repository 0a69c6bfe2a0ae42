// Bcast: one-sided (beyond the reference, which has none).
//
// The root puts its buffer into every peer's buffer (the place that
// corresponds to its own: members map alike and place the buffer at the same
// offset); every rank signals every other through the global work buffer,
// the root after its puts, and a rank is done when all have signalled it
// (lib/coll/patterns/onesided.h). That every rank hears from every other
// keeps the members within one one-sided round of each other, which the
// work buffer's two counter pairs rely on.
// Cost: the root's n-1 puts of B bytes, n-1 atomics per rank: T = L + n o +
// (n-1) B G at the root: for small teams, and large buffers on few ranks.
// Constraints: UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS (the buffer in memory
// the context mapped), a global work buffer, an ordered team. Chosen by
// TUNE (bcast:0-inf:@onesided).
#include "lib/coll/bcast/bcast.h"
#include "lib/coll/patterns/onesided.h"

namespace ucc::coll {

bool bcast_onesided_supports(const Args &a, uint32_t) {
    return onesided_args(a);
}

Task bcast_onesided(Coll &c) {
    const Args &a = c.args();
    const void *buf = a.src;  // every rank's buffer (bcast has src only)
    const size_t bytes = c.rank() == a.root ? a.count * a.esize : 0;
    const uint32_t me = c.rank();
    co_return co_await put_to_all(c, [=](uint32_t p) {
        return PutBlock{buf, buf, p == me ? 0 : bytes};
    });
}

}  // namespace ucc::coll
