// Alltoallv: pairwise exchange.
//
// As the pairwise alltoall, with per-peer counts and displacements: in step
// i = 1..n-1 rank r sends src block r+i and receives dst block r-i (mod n).
// Zero-size blocks are exchanged as empty messages, so both sides of a pair
// always agree on what to wait for (a skipped message on one side only would
// hang the other), and nothing is written for them.
// Cost: n-1 rounds: T = (n-1)(L + o) + (sum of sent bytes) G.
// Constraints: none. In-place: dst's layout describes both directions; the
// outgoing blocks (all but this rank's own) are first packed into scratch in
// the order of the steps that send them, so scratch holds the data sent, not
// dst's extent (displacements may leave gaps of any size).
// Tag steps: i (step i, modulo 2^16).
#include "lib/coll/alltoallv/alltoallv.h"

namespace ucc::coll {

namespace {

// In place: the elements this rank sends (every dst block but its own).
uint64_t inplace_sent(const Args &a, uint32_t r, uint32_t n) {
    uint64_t sent = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (i != r) {
            sent += a.dst_count_at(i);
        }
    }
    return sent;
}

}  // namespace

void alltoallv_pairwise_scratch(const Args &a, uint32_t r, uint32_t n, ScratchPlan &plan) {
    if (a.inplace) {
        plan.add(inplace_sent(a, r, n) * a.esize);
    }
}

Task alltoallv_pairwise(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (a.inplace) {
        // Pack in step order; step i then sends the next packed block.
        uint8_t *packed = c.scratch(inplace_sent(a, r, n) * es);
        uint64_t off = 0;
        for (uint32_t i = 1; i < n; ++i) {
            const uint32_t to = (r + i) % n;
            c.copy(packed + off * es, dst + a.dst_displ_at(to) * es, a.dst_count_at(to) * es);
            off += a.dst_count_at(to);
        }
        off = 0;
        for (uint32_t i = 1; i < n; ++i) {
            const uint32_t to = (r + i) % n;
            const uint32_t from = (r + n - i) % n;
            Req s = c.send(to, i, packed + off * es, a.dst_count_at(to) * es);
            Req q = c.recv(from, i, dst + a.dst_displ_at(from) * es, a.dst_count_at(from) * es);
            UCC_CO_TRY(co_await c.wait(s, q));
            off += a.dst_count_at(to);
        }
        co_return UCC_OK;
    }
    const auto *src = static_cast<const uint8_t *>(a.src);
    c.copy(dst + a.dst_displ_at(r) * es, src + a.src_displ_at(r) * es, a.dst_count_at(r) * es);
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t to = (r + i) % n;
        const uint32_t from = (r + n - i) % n;
        Req s = c.send(to, i, src + a.src_displ_at(to) * es, a.src_count_at(to) * es);
        Req q = c.recv(from, i, dst + a.dst_displ_at(from) * es, a.dst_count_at(from) * es);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
