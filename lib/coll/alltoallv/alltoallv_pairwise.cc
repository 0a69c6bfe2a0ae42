// Alltoallv: pairwise exchange.
//
// As the pairwise alltoall, with per-peer counts and displacements: in step
// i = 1..n-1 rank r sends src block r+i and receives dst block r-i (mod n).
// Zero-size blocks are exchanged as empty messages, so both sides of a pair
// always agree on what to wait for (a skipped message on one side only would
// hang the other), and nothing is written for them.
// Cost: n-1 rounds: T = (n-1)(L + o) + (sum of sent bytes) G.
// Constraints: none. In-place: dst's layout describes both directions; the
// outgoing blocks are first copied to scratch (the extent of dst).
// Tag steps: i (step i, modulo 2^16).
#include "lib/coll/alltoallv/alltoallv.h"

namespace ucc::coll {

Task alltoallv_pairwise(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const uint8_t *src = static_cast<const uint8_t *>(a.src);
    // Outgoing layout: src's, or dst's when in place.
    auto send_count = [&a](uint32_t i) {
        return a.inplace ? a.dst_count_at(i) : a.src_count_at(i);
    };
    auto send_displ = [&a](uint32_t i) {
        return a.inplace ? a.dst_displ_at(i) : a.src_displ_at(i);
    };
    if (a.inplace) {
        uint64_t extent = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (a.dst_count_at(i) != 0) {
                extent = std::max(extent, a.dst_displ_at(i) + a.dst_count_at(i));
            }
        }
        uint8_t *copy = c.scratch(extent * es);
        c.copy(copy, dst, extent * es);
        src = copy;
    } else {
        c.copy(dst + a.dst_displ_at(r) * es, src + send_displ(r) * es, a.dst_count_at(r) * es);
    }
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t to = (r + i) % n;
        const uint32_t from = (r + n - i) % n;
        Req s = c.send(to, i, src + send_displ(to) * es, send_count(to) * es);
        Req q = c.recv(from, i, dst + a.dst_displ_at(from) * es, a.dst_count_at(from) * es);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
