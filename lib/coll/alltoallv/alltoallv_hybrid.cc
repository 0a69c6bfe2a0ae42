// Alltoallv: hybrid (Bruck rounds for the small blocks, direct exchanges for
// the large ones).
//
// Each block goes one of two ways, which its sender decides: a block of at
// most hybrid_block_limit bytes travels with the other small ones through
// Bruck's rounds (as the alltoall bruck: index i holds the block for rank
// r+i, round d sends every index with bit d set to r+d), a larger one
// directly to its destination afterwards. Since a rank forwards blocks
// whose sizes only their senders know, every round's message starts with a
// header, one entry per index it carries: the block's count, or a mark
// that the block goes directly. The header is sent first as control data
// (moved in timing-only runs too), then the payload of the small blocks,
// whose size the header gives. The entries that reach their destination
// tell it which blocks to receive directly and check the counts it expects.
// The direct exchanges run in pairwise order (rank r sends to r+i and
// receives from r-i at position i), PAIRWISE_NUM_POSTS positions and
// CHUNK_BYTE_LIMIT bytes in flight at a time (at least one position).
// Small blocks are held in a slot of their own between rounds.
// Cost, s small blocks of b bytes among n (the rest direct):
//   T = ceil(log2 n) (2 (L + o) + 4 n/2 G) + (s/n) (n/2) ceil(log2 n) b (G + 2 / copy bw)
//       + (direct pairs) (L + o) / PAIRWISE_NUM_POSTS + (direct bytes) G
// — the small blocks in log2 n messages, the large ones at the wire's pace.
// Constraints: host memory (the reference's). Scratch: two round buffers of
// (n/2 + 1) limit bytes and n slots of limit bytes (about BUFF_SIZE), and in
// place the bytes sent. In-place: the outgoing blocks (dst's layout) are
// first packed into scratch, as the pairwise one does. Tag steps: round k
// is k + 1, the direct exchanges 0.
#include <algorithm>
#include <vector>

#include "lib/coll/alltoallv/alltoallv.h"

namespace ucc::coll {

namespace {

constexpr uint32_t kDirect = UINT32_MAX;  // a header entry: the block goes directly
constexpr uint64_t kMaxBruckBytes = 1249;
const HybridSettings kDefaults;

uint64_t out_count(const Args &a, uint32_t to) {
    return a.inplace ? a.dst_count_at(to) : a.src_count_at(to);
}

// In place: the bytes this rank sends (every dst block but its own).
uint64_t inplace_sent(const Args &a, uint32_t r, uint32_t n) {
    uint64_t sent = 0;
    for (uint32_t i = 0; i < n; ++i) {
        sent += i != r ? a.dst_count_at(i) * a.esize : 0;
    }
    return sent;
}

}  // namespace

const HybridSettings &hybrid_settings(const Args &a) {
    return a.hybrid != nullptr ? *a.hybrid : kDefaults;
}

uint64_t hybrid_block_limit(const Args &a, uint32_t n) {
    const HybridSettings &s = hybrid_settings(a);
    const uint64_t parts = std::max<uint64_t>(1, uint64_t{s.scratch_sends} + s.scratch_recvs);
    const uint64_t per_round = std::max<uint64_t>(1, (n + 1) / 2);
    return std::min(kMaxBruckBytes, s.buff_bytes / parts / per_round);
}

void alltoallv_hybrid_scratch(const Args &a, uint32_t r, uint32_t n, ScratchPlan &plan) {
    const uint64_t limit = hybrid_block_limit(a, n);
    plan.add((n / 2 + 1) * limit);
    plan.add((n / 2 + 1) * limit);
    plan.add(static_cast<uint64_t>(n) * limit);
    if (a.inplace) {
        plan.add(inplace_sent(a, r, n));
    }
}

Task alltoallv_hybrid(Coll &c) {
    const Args &a = c.args();
    const uint32_t n = c.size();
    const uint32_t r = c.rank();
    const size_t es = a.esize;
    const uint64_t limit = hybrid_block_limit(a, n);
    auto *dst = static_cast<uint8_t *>(a.dst);
    uint8_t *pack = c.scratch((n / 2 + 1) * limit);
    uint8_t *unpack = c.scratch((n / 2 + 1) * limit);
    uint8_t *slots = c.scratch(static_cast<uint64_t>(n) * limit);
    // Where index i's outgoing block starts (the block for rank r + i).
    std::vector<const uint8_t *> out(n);
    if (a.inplace) {
        uint8_t *packed = c.scratch(inplace_sent(a, r, n));
        for (uint32_t i = 1; i < n; ++i) {
            const uint32_t to = (r + i) % n;
            out[i] = packed;
            c.copy(packed, dst + a.dst_displ_at(to) * es, a.dst_count_at(to) * es);
            packed += a.dst_count_at(to) * es;
        }
    } else {
        const auto *src = static_cast<const uint8_t *>(a.src);
        for (uint32_t i = 1; i < n; ++i) {
            out[i] = src + a.src_displ_at((r + i) % n) * es;
        }
        c.copy(dst + a.dst_displ_at(r) * es, src + a.src_displ_at(r) * es, a.dst_count_at(r) * es);
    }
    auto direct_out = [&](uint32_t i) { return out_count(a, (r + i) % n) * es > limit; };
    // Per index: the block's count (or kDirect), and whether it is in its slot.
    std::vector<uint32_t> count(n, 0);
    std::vector<uint8_t> held(n, 0);
    for (uint32_t i = 1; i < n; ++i) {
        count[i] = direct_out(i) ? kDirect : static_cast<uint32_t>(out_count(a, (r + i) % n));
    }
    std::vector<uint32_t> head_out(n / 2 + 1);
    std::vector<uint32_t> head_in(n / 2 + 1);
    uint32_t step = 1;
    for (uint64_t d = 1; d < n; d *= 2, ++step) {
        const auto to = static_cast<uint32_t>((r + d) % n);
        const auto from = static_cast<uint32_t>((r + n - d) % n);
        size_t m = 0;
        uint64_t bytes = 0;
        for (uint64_t i = d; i < n; i = (i + 1) | d) {  // the indices with bit d set
            head_out[m++] = count[i];
            if (count[i] != kDirect && count[i] != 0) {
                const uint64_t b = count[i] * es;
                c.copy(pack + bytes, held[i] ? slots + i * limit : out[i], b);
                bytes += b;
            }
        }
        Req hq = c.recv_control(from, step, head_in.data(), m * sizeof(uint32_t));
        Req hs = c.send_control(to, step, head_out.data(), m * sizeof(uint32_t));
        Req ps = bytes > 0 ? c.send(to, step, pack, bytes) : Req();
        UCC_CO_TRY(co_await c.wait(hq));
        uint64_t in_bytes = 0;
        for (size_t j = 0; j < m; ++j) {
            if (head_in[j] != kDirect) {
                if (head_in[j] * es > limit) {  // the ranks' settings differ
                    c.env().report_length(from, c.signature(), limit, head_in[j] * es);
                    co_return UCC_ERR_INVALID_PARAM;
                }
                in_bytes += head_in[j] * es;
            }
        }
        Req pq = in_bytes > 0 ? c.recv(from, step, unpack, in_bytes) : Req();
        UCC_CO_TRY(co_await c.wait(hs, ps, pq));
        in_bytes = 0;
        m = 0;
        for (uint64_t i = d; i < n; i = (i + 1) | d) {
            count[i] = head_in[m++];
            held[i] = count[i] != kDirect && count[i] != 0;
            if (held[i]) {
                c.copy(slots + i * limit, unpack + in_bytes, count[i] * es);
                in_bytes += count[i] * es;
            }
        }
    }
    // Index i holds the block from rank r - i, or says it comes directly.
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t from = (r + n - i) % n;
        if (count[i] != kDirect) {
            if (count[i] != a.dst_count_at(from)) {
                c.env().report_length(from, c.signature(), a.dst_count_at(from) * es,
                                      count[i] * es);
                co_return UCC_ERR_INVALID_PARAM;
            }
            c.copy(dst + a.dst_displ_at(from) * es, slots + i * limit, count[i] * es);
        }
    }
    // The direct exchanges, a window of positions at a time.
    const HybridSettings &s = hybrid_settings(a);
    ReqList reqs = c.req_list(2 * std::max<uint32_t>(1, s.posts));
    for (uint32_t i = 1; i < n;) {
        uint32_t posted = 0;
        uint64_t window_bytes = 0;
        for (; i < n && posted < std::max<uint32_t>(1, s.posts); ++i) {
            const uint32_t to = (r + i) % n;
            const uint32_t from = (r + n - i) % n;
            const bool send = direct_out(i);
            const bool recv = count[i] == kDirect;
            if (!send && !recv) {
                continue;
            }
            const uint64_t b =
                std::max(send ? out_count(a, to) * es : 0, recv ? a.dst_count_at(from) * es : 0);
            if (posted > 0 && window_bytes + b > s.chunk_bytes) {
                break;
            }
            window_bytes += b;
            ++posted;
            if (send) {
                reqs.push_back(c.send(to, 0, out[i], out_count(a, to) * es));
            }
            if (recv) {
                reqs.push_back(
                    c.recv(from, 0, dst + a.dst_displ_at(from) * es, a.dst_count_at(from) * es));
            }
        }
        UCC_CO_TRY(co_await c.wait_all(reqs));
        reqs.clear();
    }
    co_return UCC_OK;
}

}  // namespace ucc::coll
