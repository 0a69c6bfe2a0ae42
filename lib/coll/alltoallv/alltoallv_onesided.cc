// Alltoallv: one-sided (the reference's "onesided").
//
// With UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS an alltoallv's arrays mean what
// the writer needs: rank r puts src_counts[p] elements from
// src + src_displs[p] into rank p's dst at dst_displs[p] elements, an offset
// in p's buffer (the place that corresponds to dst + dst_displs[p] in r's
// own mapped memory), and signals p through the global work buffer; it is
// done when every rank has signalled it (lib/coll/patterns/onesided.h). The
// dst counts are not read: each writer says how much it writes.
// Cost: one round of n puts, a flush and an atomic each: T = 2L + 3o +
// max(bytes in, bytes out) G. No scratch.
// Constraints: mapped src and dst, a global work buffer, an ordered team;
// not in place. A block that passes the end of p's mapped segment fails
// the collective at r and at p (no hole is reported as data).
#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/patterns/onesided.h"

namespace ucc::coll {

bool alltoallv_onesided_supports(const Args &a, uint32_t) {
    return onesided_args(a) && !a.inplace;
}

Task alltoallv_onesided(Coll &c) {
    const Args &a = c.args();
    const auto *src = static_cast<const uint8_t *>(a.src);
    const auto *dst = static_cast<const uint8_t *>(a.dst);
    const size_t es = a.esize;
    co_return co_await put_to_all(c, [=](uint32_t p) {
        return PutBlock{src + a.src_displ_at(p) * es, dst + a.dst_displ_at(p) * es,
                        a.src_count_at(p) * es};
    });
}

}  // namespace ucc::coll
