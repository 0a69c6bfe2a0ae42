// Scatterv: linear.
//
// The root sends rank i the counts[i] elements at src + displacements[i]; every
// other rank receives dst.count elements into dst. Empty blocks are sent as
// empty messages so both sides agree. The root posts its sends before
// copying its own block, so receivers that pull (a rendezvous) do so meanwhile.
// Cost: one level; the root sends sum(counts) elements: T = L + (n-1) o + M G.
// Constraints: none. In-place at the root: nothing is written to its dst.
// Tag steps: 0.
#include "lib/coll/scatterv/scatterv.h"

namespace ucc::coll {

Task scatterv_linear(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const size_t es = a.esize;
    if (c.rank() != a.root) {
        Req q = c.recv(a.root, 0, a.dst, a.dst_count * es);
        co_return co_await c.wait(q);
    }
    const auto *src = static_cast<const uint8_t *>(a.src);
    ReqList out = c.req_list(n - 1);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != a.root) {
            out.push_back(c.send(r, 0, src + a.src_displ_at(r) * es, a.src_count_at(r) * es));
        }
    }
    if (!a.inplace) {
        c.copy(a.dst, src + a.src_displ_at(a.root) * es, a.src_count_at(a.root) * es);
    }
    co_return co_await c.wait_all(out);
}

}  // namespace ucc::coll
