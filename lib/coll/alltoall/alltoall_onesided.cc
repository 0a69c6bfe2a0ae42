// Alltoall: one-sided (the reference's "onesided").
//
// Rank r puts its block for rank p straight into p's dst, at block r (the
// place of r's block in p's dst is that of block r in r's own dst: every
// member maps its segments alike and places dst at the same offset), and
// signals p through the global work buffer; it is done when all n blocks
// have reached its own dst (lib/coll/patterns/onesided.h).
// Cost: one round of n puts of B bytes, a flush and an atomic each:
// T = 2L + 3o + n B G. No scratch; nothing passes through a third rank.
// Constraints: UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS (src and dst in memory
// the context mapped), a global work buffer, an ordered team; not in place.
// A rank that reuses its dst for the next one-sided collective must know its
// peers have finished this one (their next puts may land at once).
#include "lib/coll/alltoall/alltoall.h"
#include "lib/coll/patterns/onesided.h"

namespace ucc::coll {

bool alltoall_onesided_supports(const Args &a, uint32_t) {
    return onesided_args(a) && !a.inplace;
}

Task alltoall_onesided(Coll &c) {
    const Args &a = c.args();
    const size_t block = a.count * a.esize;
    const auto *src = static_cast<const uint8_t *>(a.src);
    const uint8_t *mine = static_cast<const uint8_t *>(a.dst) + c.rank() * block;
    co_return co_await put_to_all(c, [=](uint32_t p) {
        return PutBlock{src + p * block, mine, block};
    });
}

}  // namespace ucc::coll
