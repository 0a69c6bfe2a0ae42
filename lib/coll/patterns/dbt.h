// Rank maths of double binary trees and of segmented vectors. Pure functions.
//
// A binary tree over labels 1..m in in-order: label j, with lowest set bit b,
// has the left child j - b/2 and the right child j + d, d the largest power of
// two below b with j + d <= m; the root is the largest power of two <= m. A
// subtree covers a contiguous range of labels (left subtree, node, right
// subtree), the depth is floor(log2 m) + 1, odd labels are leaves and even
// labels inner nodes.
//
// The double binary tree (NCCL's) labels m nodes twice: tree 0 gives node i
// the label i + 1, tree 1 mirrors that (m + 1 - label, m even) or shifts it by
// one (label mod m + 1, m odd), so that tree 1's inner nodes (even labels) are
// tree 0's leaves: every node is an inner node of at most one tree, and the
// two trees together use every node's links in both directions about evenly.
//
// A rooted collective over n ranks keeps its root (virtual rank 0) outside
// both trees: it talks to both trees' roots, and virtual rank v >= 1 is node
// v - 1 of the trees over m = n - 1 nodes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lib/coll/patterns/knomial.h"

namespace ucc::coll::patterns {

// One node's links in one tree (-1: none). `left` precedes the node in the
// tree's in-order and `right` follows it; an inner node always has `left`.
struct BtreeLinks {
    int64_t parent = -1;
    int64_t left = -1;
    int64_t right = -1;
    uint32_t children() const { return (left >= 0 ? 1 : 0) + (right >= 0 ? 1 : 0); }
};

inline uint32_t lowest_bit(uint32_t j) {
    return j & (~j + 1);
}

// The in-order tree over labels 1..m (m >= 1): children and parent of label j.
inline int64_t btree_left(uint32_t j) {
    const uint32_t b = lowest_bit(j);
    return b >= 2 ? static_cast<int64_t>(j - b / 2) : -1;
}
inline int64_t btree_right(uint32_t j, uint32_t m) {
    for (uint32_t d = lowest_bit(j) / 2; d >= 1; d /= 2) {
        if (uint64_t{j} + d <= m) {
            return static_cast<int64_t>(j + d);
        }
    }
    return -1;
}
inline int64_t btree_parent(uint32_t j, uint32_t m) {
    // A binary search from the root: labels are the tree's in-order.
    int64_t parent = -1;
    auto cur = static_cast<int64_t>(pow2_floor(m));
    while (cur != static_cast<int64_t>(j) && cur > 0) {
        parent = cur;
        const auto at = static_cast<uint32_t>(cur);
        cur = j < at ? btree_left(at) : btree_right(at, m);
    }
    return parent;
}

// Tree t's label of node i of m, and back.
inline uint32_t dbt_label(uint32_t t, uint32_t i, uint32_t m) {
    if (t == 0) {
        return i + 1;
    }
    return m % 2 == 0 ? m - i : (i + 1) % m + 1;
}
inline uint32_t dbt_node(uint32_t t, uint32_t label, uint32_t m) {
    if (t == 0) {
        return label - 1;
    }
    return m % 2 == 0 ? m - label : (label + m - 2) % m;
}

// Node i's links in tree t (0 or 1) of a double binary tree over m nodes, as
// node indices.
inline BtreeLinks dbt_links(uint32_t t, uint32_t i, uint32_t m) {
    const uint32_t j = dbt_label(t, i, m);
    auto node = [&](int64_t label) {
        return label < 0 ? -1 : static_cast<int64_t>(dbt_node(t, static_cast<uint32_t>(label), m));
    };
    return {node(btree_parent(j, m)), node(btree_left(j)), node(btree_right(j, m))};
}

// Tree t's root, as a node index.
inline uint32_t dbt_root(uint32_t t, uint32_t m) {
    return dbt_node(t, pow2_floor(m), m);
}

// Virtual rank v's links in tree t of the rooted double binary tree over n
// ranks, as virtual ranks: the root (v = 0) has the tree's root as `left`;
// the trees' roots have the root as parent. n >= 2.
inline BtreeLinks dbt_rank_links(uint32_t t, uint32_t v, uint32_t n) {
    const uint32_t m = n - 1;
    if (v == 0) {
        return {-1, static_cast<int64_t>(dbt_root(t, m)) + 1, -1};
    }
    const BtreeLinks l = dbt_links(t, v - 1, m);
    return {l.parent + 1, l.left < 0 ? -1 : l.left + 1, l.right < 0 ? -1 : l.right + 1};
}

// A vector of `count` elements cut into segments of `segment_bytes` (whole
// elements, at least one; 0: a single segment). Both ends of a message cut
// by this rule.
struct Segments {
    Segments(uint64_t count_elems, size_t esize, uint64_t segment_bytes) : count(count_elems) {
        elems = segment_bytes == 0
                    ? count
                    : std::max<uint64_t>(1, segment_bytes / std::max<size_t>(esize, 1));
        elems = std::min(elems, count);
        n = elems == 0 ? 0 : (count + elems - 1) / elems;
    }
    uint64_t offset(uint64_t s) const { return s * elems; }
    uint64_t len(uint64_t s) const { return std::min(elems, count - s * elems); }
    uint64_t count;
    uint64_t elems = 0;  // of a full segment (all but maybe the last)
    uint64_t n = 0;      // segments (0 for an empty vector)
};

}  // namespace ucc::coll::patterns
