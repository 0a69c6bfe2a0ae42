// Gatherv: linear.
//
// Every non-root sends its src.count elements to the root, which receives rank
// i's block straight into dst + displacements[i] (counts and displacements in
// elements, 32- or 64-bit entries as the flags say). Zero-size blocks are still
// exchanged as empty messages, so both sides always agree on what to wait for.
// Cost: one level; the root receives sum(counts) elements: T = L + (n-1) o + M G.
// Constraints: none. In-place at the root: its block is already in place.
// Tag steps: 0.
#include "lib/coll/gatherv/gatherv.h"

namespace ucc::coll {

Task gatherv_linear(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t es = a.esize;
    if (c.rank() != a.root) {
        Req s = c.send(a.root, 0, a.src, a.src_count * es);
        co_return co_await c.wait(s);
    }
    auto *dst = static_cast<uint8_t *>(a.dst);
    if (!a.inplace) {
        c.copy(dst + a.dst_displ_at(a.root) * es, a.src, a.dst_count_at(a.root) * es);
    }
    ReqList in = c.req_list(n - 1);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != a.root) {
            in.push_back(c.recv(r, 0, dst + a.dst_displ_at(r) * es, a.dst_count_at(r) * es));
        }
    }
    co_return co_await c.wait_all(in);
}

}  // namespace ucc::coll
