// Allreduce: ring (reduce-scatter then allgather around a ring), its chunks
// pipelined across the steps.
//
// The vector is cut into n near-equal blocks. In n-1 reduce-scatter steps each
// rank passes one block's running partial to its right neighbour, which folds in
// its own contribution; afterwards rank r holds the full reduction of block
// (r+1) mod n. In n-1 allgather steps the finished blocks travel around the ring.
// Every block is reduced exactly once, on one rank, and then copied, so all
// ranks end with identical bits.
// Each step moves its block in chunks (REDUCE_CHUNK, the algorithm's
// segment: by cost where the network is known), and a rank sends chunk j of
// the next step as soon as it has reduced (or received) chunk j of this one,
// as NCCL's rings do: a chunk is reduced while still in cache, the rank's
// port sends while its CPU reduces, and the allgather's first chunks leave
// while the last reduce-scatter step is still being reduced. The next
// step's receives are posted as a step begins.
// Out of place, every block of dst is written exactly once before it is read
// (received and reduced with the rank's own block, read from src, or received
// finished), so src is never copied to dst and no scratch is needed; in
// place, the partials from the left arrive in two scratch blocks (one
// step's while the step before is reduced). An allgather step overwrites a
// block that a reduce-scatter step sent: its receives are posted only once
// those sends are done (two steps before on four ranks or more, one on
// three; on two in place, after the step's own sends).
// Cost (K chunks of c bytes a block, b = m/n): step 0's sends, then each of
// the 2(n-1) steps max(K (o_recv + o_send + c gamma_reduce [reduce-scatter]),
//   K (g + c G), one chunk's CPU time + L + c G): about 2(n-1)/n m G +
//   (n-1)/n m max(gamma_reduce, G) for large m. Bandwidth-optimal; latency
//   grows with n.
// Constraints: none (any n and count, in-place or not).
// Tag steps: s (reduce-scatter step s), n + s (allgather step s), modulo 2^16.
#include "lib/coll/allreduce/allreduce.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/pieces.h"

#include <algorithm>

namespace ucc::coll {

namespace {

// Block 0 is a largest block.
uint64_t largest_block(uint64_t count, uint32_t n) {
    uint64_t off = 0;
    uint64_t len = 0;
    patterns::block_range(count, n, 0, &off, &len);
    return len;
}

}  // namespace

// In place (n > 1): the partials from the left, two largest blocks (a
// step's arrive while the step before is still being reduced).
void allreduce_ring_scratch(const Args &a, uint32_t, uint32_t n, ScratchPlan &plan) {
    if (a.inplace && n > 1) {
        plan.add(2 * largest_block(a.count, n) * a.esize);
    }
}

Task allreduce_ring(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    uint8_t *acc = static_cast<uint8_t *>(a.dst);
    // This rank's own contribution.
    const uint8_t *own = a.inplace ? acc : static_cast<const uint8_t *>(a.src);
    if (n == 1) {
        c.copy(acc, own, a.count * es);
        c.finalize_result(acc, a.count);
        co_return UCC_OK;
    }
    const uint32_t right = (r + 1) % n;
    const uint32_t left = (r + n - 1) % n;
    const uint64_t most = largest_block(a.count, n);
    uint8_t *tmp = a.inplace ? c.scratch(2 * most * es) : nullptr;
    const uint64_t chunk = a.segment_bytes == 0 || a.segment_bytes == kSegmentAuto
                               ? 0
                               : std::max<uint64_t>(1, a.segment_bytes / std::max<size_t>(es, 1));
    const uint64_t per_block = patterns::Pieces(most, chunk).n;
    // Step t < n-1 reduces; step n-1+s is allgather step s. Each step sends
    // the block the step before received (step 0: this rank's own).
    const uint32_t steps = 2 * (n - 1);
    auto block_of = [&](uint32_t t, uint64_t *off, uint64_t *len) {  // received at step t
        const uint32_t b = t + 1 < n ? (r + 2 * n - t - 1) % n : (r + 2 * n - (t - (n - 1))) % n;
        patterns::block_range(a.count, n, b, off, len);
    };
    auto tag = [n](uint32_t t) { return t + 1 < n ? t : t + 1; };  // allgather step s: n + s
    auto into = [&](uint32_t t, uint64_t off) {                    // where step t's chunks arrive
        return t + 1 < n && a.inplace ? tmp + (t % 2) * most * es : acc + off * es;
    };
    ReqList recvs[2] = {c.req_list(per_block), c.req_list(per_block)};
    ReqList sends[3] = {c.req_list(per_block), c.req_list(per_block), c.req_list(per_block)};
    auto post_recvs = [&](uint32_t t) {
        uint64_t off;
        uint64_t len;
        block_of(t, &off, &len);
        uint8_t *to = into(t, off);
        const patterns::Pieces pieces(len, chunk);
        for (uint64_t j = 0; j < pieces.n; ++j) {
            const uint64_t at = pieces.offset(j);
            recvs[t % 2].push_back(c.recv(left, tag(t), to + at * es, pieces.size(j) * es));
        }
    };
    {  // Step 0 sends this rank's own block.
        uint64_t off;
        uint64_t len;
        patterns::block_range(a.count, n, r, &off, &len);
        const patterns::Pieces pieces(len, chunk);
        for (uint64_t j = 0; j < pieces.n; ++j) {
            const uint64_t at = pieces.offset(j);
            UCC_CO_TRY(
                sends[0].push_posted(c.send(right, 0, own + (off + at) * es, pieces.size(j) * es)));
        }
    }
    post_recvs(0);
    // Step t+1's receives are posted as step t begins, into blocks whose
    // last sends were two steps before (on four ranks or more; one step
    // before on three; on two, in place, allgather step 0 receives the
    // block step 0 sends from dst: after those sends).
    const uint32_t behind = n >= 4 ? 2 : 1;
    const bool early = !(a.inplace && n == 2);
    for (uint32_t t = 0; t < steps; ++t) {
        if (t >= behind) {
            UCC_CO_TRY(co_await c.wait_all(sends[(t - behind) % 3]));
            sends[(t - behind) % 3].clear();
        }
        if (t + 1 < steps && early) {
            post_recvs(t + 1);
        }
        uint64_t off;
        uint64_t len;
        block_of(t, &off, &len);
        const uint8_t *from = into(t, off);
        const bool reduces = t + 1 < n;
        const patterns::Pieces pieces(len, chunk);
        for (uint64_t j = 0; j < pieces.n; ++j) {
            const uint64_t at = pieces.offset(j);
            const uint64_t cnt = pieces.size(j);
            UCC_CO_TRY(co_await c.wait(recvs[t % 2][j]));
            uint8_t *mine = acc + (off + at) * es;
            if (reduces) {
                // The partial from the left holds the earlier ranks of the ring.
                UCC_CO_TRY(c.reduce(mine, from + at * es, own + (off + at) * es, cnt));
                if (t + 2 == n) {
                    c.finalize_result(mine, cnt);
                }
            }
            if (t + 1 < steps) {
                UCC_CO_TRY(
                    sends[(t + 1) % 3].push_posted(c.send(right, tag(t + 1), mine, cnt * es)));
            }
        }
        recvs[t % 2].clear();
        if (t + 1 < steps && !early) {
            UCC_CO_TRY(co_await c.wait_all(sends[t % 3]));
            sends[t % 3].clear();
            post_recvs(t + 1);
        }
    }
    for (ReqList &l : sends) {
        UCC_CO_TRY(co_await c.wait_all(l));
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
