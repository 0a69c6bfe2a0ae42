// Alltoall: pairwise exchange.
//
// Each rank copies its own block, then in step i = 1..n-1 sends block r+i to
// rank r+i and receives block r-i from rank r-i (mod n), one pair at a time, so
// every rank talks to exactly one peer per step and no receiver is flooded.
// Cost: n-1 rounds of B bytes: T = (n-1)(L + o + B G).
// Constraints: none. In-place: dst holds the outgoing blocks; they are first
// copied to scratch (n*B bytes) so incoming blocks can land in place.
// Tag steps: i (step i, modulo 2^16).
#include "lib/coll/alltoall/alltoall.h"

namespace ucc::coll {

// Pairwise and linear, in place: a copy of the n blocks to send.
void alltoall_inplace_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    if (a.inplace) {
        plan.add(a.count * a.esize * n);
    }
}

Task alltoall_pairwise(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const uint8_t *src = static_cast<const uint8_t *>(a.src);
    if (a.inplace) {
        uint8_t *copy = c.scratch(block * n);
        c.copy(copy, dst, block * n);
        src = copy;
    } else {
        c.copy(dst + r * block, src + r * block, block);
    }
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t to = (r + i) % n;
        const uint32_t from = (r + n - i) % n;
        Req s = c.send(to, i, src + to * block, block);
        Req q = c.recv(from, i, dst + from * block, block);
        UCC_CO_TRY(co_await c.wait(s, q));
    }
    co_return UCC_OK;
}

// Alltoall: linear — all n-1 sends and receives posted at once. Fewest rounds
// (one), but every rank receives from everyone simultaneously: for small teams
// and small blocks. Same constraints and tags as pairwise.
Task alltoall_linear(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t block = a.count * a.esize;
    auto *dst = static_cast<uint8_t *>(a.dst);
    const uint8_t *src = static_cast<const uint8_t *>(a.src);
    if (a.inplace) {
        uint8_t *copy = c.scratch(block * n);
        c.copy(copy, dst, block * n);
        src = copy;
    }
    ReqList reqs = c.req_list(2 * (n - 1));
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t from = (r + n - i) % n;
        reqs.push_back(c.recv(from, i, dst + from * block, block));
    }
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t to = (r + i) % n;
        reqs.push_back(c.send(to, i, src + to * block, block));
    }
    if (!a.inplace) {
        // The own block while the transfers are in flight.
        c.copy(dst + r * block, src + r * block, block);
    }
    co_return co_await c.wait_all(reqs);
}

}  // namespace ucc::coll
