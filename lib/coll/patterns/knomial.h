// Rank maths of k-nomial trees, recursive doubling and rings. Pure functions.
//
// A k-nomial tree over n ranks rooted at virtual rank 0: write a virtual rank
// in base k; its parent clears its lowest non-zero digit; its children set one
// digit below that position to 1..k-1. Radix 2 gives the binomial tree.
#pragma once

#include <cstdint>

#include "lib/util/small_vector.h"

namespace ucc::coll::patterns {

// Virtual rank with `root` moved to 0, and back.
inline uint32_t to_vrank(uint32_t rank, uint32_t root, uint32_t n) {
    return (rank + n - root) % n;
}
inline uint32_t from_vrank(uint32_t vrank, uint32_t root, uint32_t n) {
    return (vrank + root) % n;
}

struct KnomialNode {
    int64_t parent = -1;  // virtual rank of the parent, -1 for the root
    // Virtual ranks, largest subtree first (inline up to 32: radix 4 up to 2^20 ranks).
    SmallVector<uint32_t, 32> children;
};

// The node of virtual rank `v` in a radix-`k` tree over `n` ranks.
inline KnomialNode knomial_node(uint32_t v, uint32_t n, uint32_t k) {
    KnomialNode node;
    uint64_t pos = 1;  // k^p
    // Lowest non-zero digit of v bounds the positions where children sit.
    while (pos < n) {
        uint64_t digit = (v / pos) % k;
        if (digit != 0) {
            node.parent = static_cast<int64_t>(v - digit * pos);
            break;
        }
        pos *= k;
    }
    // Children: positions below `pos` (for the root: all positions < n),
    // the highest first.
    uint64_t top = 0;
    for (uint64_t q = 1; q < pos && q < n; q *= k) {
        top = q;
        if (q > UINT64_MAX / k) {
            break;
        }
    }
    for (uint64_t q = top; q >= 1; q /= k) {
        for (uint64_t j = k - 1; j >= 1; --j) {
            uint64_t c = v + j * q;
            if (c < n) {
                node.children.push_back(static_cast<uint32_t>(c));
            }
        }
    }
    return node;
}

// Largest power of two <= n (n >= 1).
inline uint32_t pow2_floor(uint32_t n) {
    uint32_t p = 1;
    while (p <= n / 2) {
        p *= 2;
    }
    return p;
}

// Number of rounds of a dissemination pattern: ceil(log2 n).
inline uint32_t log2_ceil(uint32_t n) {
    uint32_t r = 0;
    while ((uint64_t{1} << r) < n) {
        ++r;
    }
    return r;
}

// Block `i` of `n` near-equal blocks of `count` elements: [offset, offset+len).
inline void block_range(uint64_t count, uint32_t n, uint32_t i, uint64_t *offset, uint64_t *len) {
    uint64_t base = count / n;
    uint64_t extra = count % n;
    *offset = i * base + (i < extra ? i : extra);
    *len = base + (i < extra ? 1 : 0);
}

// The elements of blocks [lo, hi) (lo < hi) of `n` near-equal blocks.
inline void blocks_range(uint64_t count, uint32_t n, uint32_t lo, uint32_t hi, uint64_t *offset,
                         uint64_t *len) {
    uint64_t last_off;
    uint64_t last_len;
    uint64_t first_len;
    block_range(count, n, lo, offset, &first_len);
    block_range(count, n, hi - 1, &last_off, &last_len);
    *len = last_off + last_len - *offset;
}

// The radix k an algorithm of radix `radix` runs with on n ranks: lowered
// to n on smaller teams, at least 2.
inline uint32_t lowered_radix(uint32_t radix, uint32_t n) {
    const uint32_t k = radix < n ? radix : n;
    return k < 2 ? 2 : k;
}

// Bruck's rounds in base k (alltoall bruck): the indices whose base-k digit
// at d (a power of k) is j, as runs [b, b + len) below n.
template <class Run>
void digit_runs(uint64_t n, uint64_t k, uint64_t d, uint64_t j, Run run) {
    for (uint64_t b = j * d; b < n; b += k * d) {
        run(b, d < n - b ? d : n - b);
    }
}
// The indices below n whose digit at d is not 0: the blocks round d moves.
inline uint64_t digit_blocks(uint64_t n, uint64_t k, uint64_t d) {
    uint64_t blocks = 0;
    for (uint64_t j = 1; j < k && j * d < n; ++j) {
        digit_runs(n, k, d, j, [&](uint64_t, uint64_t len) { blocks += len; });
    }
    return blocks;
}

// Recursive multiplying with radix k (allreduce knomial, sra_knomial): k
// lowered to n on smaller teams (at least 2), and p the largest power of k
// <= n; ranks p..n-1 are the extras folded into rank r mod p.
struct MultiplyShape {
    uint32_t k = 2;
    uint32_t p = 1;
};
inline MultiplyShape multiply_shape(uint32_t radix, uint32_t n) {
    MultiplyShape s;
    s.k = lowered_radix(radix, n);
    while (uint64_t{s.p} * s.k <= n) {
        s.p *= s.k;
    }
    return s;
}

}  // namespace ucc::coll::patterns

namespace ucc::coll::patterns {

// The virtual ranks a k-nomial subtree covers: [v, v + span) — contiguous,
// because a child sets one digit below its parent's lowest non-zero digit.
inline uint32_t knomial_span(uint32_t v, uint32_t n, uint32_t k) {
    uint64_t pos = 1;
    while (pos < n && (v / pos) % k == 0) {
        pos *= k;
    }
    // v's subtree: all ranks that share v's digits from its lowest non-zero
    // digit's position upwards; for the root, everyone.
    uint64_t end = v == 0 ? n : v + pos;
    return static_cast<uint32_t>((end < n ? end : n) - v);
}

}  // namespace ucc::coll::patterns
