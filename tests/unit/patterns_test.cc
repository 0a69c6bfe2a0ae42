// Rank maths of the tree and block patterns, for every team size up to 64 and
// every radix: a k-nomial tree spans all ranks exactly once, parents and
// children agree, and blocks tile a vector exactly; both trees of a double
// binary tree span their nodes, and no node is inner in both; a ring
// step's pieces tile its block, and no block's pieces begin another's.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "lib/coll/patterns/dbt.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/pieces.h"

using namespace ucc::coll::patterns;

TEST(Patterns, KnomialTreeIsASpanningTree) {
    for (uint32_t n = 1; n <= 64; ++n) {
        for (uint32_t k = 2; k <= 9; ++k) {
            std::vector<int> parent_seen(n, 0);
            for (uint32_t v = 0; v < n; ++v) {
                KnomialNode node = knomial_node(v, n, k);
                if (v == 0) {
                    EXPECT_EQ(node.parent, -1);
                } else {
                    ASSERT_GE(node.parent, 0);
                    ASSERT_LT(node.parent, static_cast<int64_t>(v)) << "n=" << n << " k=" << k;
                    KnomialNode p = knomial_node(static_cast<uint32_t>(node.parent), n, k);
                    int found = 0;
                    for (uint32_t c : p.children) {
                        found += c == v;
                    }
                    EXPECT_EQ(found, 1) << "n=" << n << " k=" << k << " v=" << v;
                }
                for (uint32_t c : node.children) {
                    ASSERT_LT(c, n);
                    ASSERT_GT(c, v);
                    parent_seen[c]++;
                }
            }
            for (uint32_t v = 1; v < n; ++v) {
                EXPECT_EQ(parent_seen[v], 1) << "n=" << n << " k=" << k << " v=" << v;
            }
        }
    }
}

TEST(Patterns, KnomialDepthIsLogarithmic) {
    for (uint32_t n : {2u, 7u, 64u, 1000u, 4096u}) {
        for (uint32_t k : {2u, 4u, 8u}) {
            uint32_t max_depth = 0;
            for (uint32_t v = 0; v < n; ++v) {
                uint32_t depth = 0;
                for (int64_t x = v; x > 0;
                     x = knomial_node(static_cast<uint32_t>(x), n, k).parent) {
                    ++depth;
                }
                max_depth = std::max(max_depth, depth);
            }
            uint32_t levels = 0;
            for (uint64_t p = 1; p < n; p *= k) {
                ++levels;
            }
            // Each step to the parent clears one base-k digit.
            EXPECT_LE(max_depth, levels) << "n=" << n << " k=" << k;
            EXPECT_GE(max_depth, levels > 0 ? 1u : 0u);
        }
    }
}

TEST(Patterns, VirtualRanksRoundTrip) {
    for (uint32_t n = 1; n <= 17; ++n) {
        for (uint32_t root = 0; root < n; ++root) {
            EXPECT_EQ(to_vrank(root, root, n), 0u);
            for (uint32_t r = 0; r < n; ++r) {
                EXPECT_EQ(from_vrank(to_vrank(r, root, n), root, n), r);
            }
        }
    }
}

TEST(Patterns, BlocksTileTheVector) {
    for (uint64_t count : {0ull, 1ull, 5ull, 63ull, 64ull, 1000ull}) {
        for (uint32_t n = 1; n <= 64; ++n) {
            uint64_t next = 0;
            uint64_t largest = 0;
            for (uint32_t i = 0; i < n; ++i) {
                uint64_t off;
                uint64_t len;
                block_range(count, n, i, &off, &len);
                EXPECT_EQ(off, next);
                next = off + len;
                largest = std::max(largest, len);
                uint64_t off0;
                uint64_t len0;
                block_range(count, n, 0, &off0, &len0);
                EXPECT_LE(len, len0);  // block 0 is a largest block
            }
            EXPECT_EQ(next, count);
            EXPECT_LE(largest, count / n + 1);
        }
    }
}

TEST(Patterns, PowersAndLogs) {
    EXPECT_EQ(pow2_floor(1), 1u);
    EXPECT_EQ(pow2_floor(2), 2u);
    EXPECT_EQ(pow2_floor(3), 2u);
    EXPECT_EQ(pow2_floor(1023), 512u);
    EXPECT_EQ(pow2_floor(1024), 1024u);
    EXPECT_EQ(log2_ceil(1), 0u);
    EXPECT_EQ(log2_ceil(2), 1u);
    EXPECT_EQ(log2_ceil(5), 3u);
    EXPECT_EQ(log2_ceil(1024), 10u);
    EXPECT_EQ(log2_ceil(1025), 11u);
}

TEST(Patterns, DoubleBinaryTreesSpanAndShareNoInnerNode) {
    for (uint32_t m = 1; m <= 64; ++m) {
        std::vector<int> inner(m, 0);
        for (uint32_t t = 0; t < 2; ++t) {
            uint32_t roots = 0;
            for (uint32_t i = 0; i < m; ++i) {
                const BtreeLinks l = dbt_links(t, i, m);
                EXPECT_EQ(dbt_node(t, dbt_label(t, i, m), m), i);
                inner[i] += l.children() > 0;
                EXPECT_TRUE(l.left >= 0 || l.right < 0) << "an inner node has a left child";
                for (int64_t ch : {l.left, l.right}) {
                    if (ch >= 0) {
                        ASSERT_LT(ch, static_cast<int64_t>(m));
                        EXPECT_EQ(dbt_links(t, static_cast<uint32_t>(ch), m).parent, i);
                    }
                }
                if (l.parent < 0) {
                    ++roots;
                    EXPECT_EQ(dbt_root(t, m), i);
                    continue;
                }
                const BtreeLinks p = dbt_links(t, static_cast<uint32_t>(l.parent), m);
                EXPECT_TRUE(p.left == i || p.right == i) << "m=" << m << " t=" << t << " i=" << i;
                // Depth: floor(log2 m) + 1 levels at most.
                uint32_t depth = 0;
                for (int64_t up = l.parent; up >= 0;
                     up = dbt_links(t, static_cast<uint32_t>(up), m).parent) {
                    ASSERT_LE(++depth, log2_ceil(m + 1)) << "m=" << m << " t=" << t;
                }
            }
            EXPECT_EQ(roots, 1u);
        }
        for (uint32_t i = 0; i < m; ++i) {
            EXPECT_LE(inner[i], 1) << "m=" << m << " node " << i << " is inner in both trees";
        }
    }
}

TEST(Patterns, RootedDoubleBinaryTreeFeedsBothRoots) {
    for (uint32_t n = 2; n <= 64; ++n) {
        for (uint32_t t = 0; t < 2; ++t) {
            const BtreeLinks root = dbt_rank_links(t, 0, n);
            ASSERT_GE(root.left, 1);
            EXPECT_EQ(root.right, -1);
            EXPECT_EQ(dbt_rank_links(t, static_cast<uint32_t>(root.left), n).parent, 0);
            for (uint32_t v = 1; v < n; ++v) {
                EXPECT_GE(dbt_rank_links(t, v, n).parent, 0) << "n=" << n << " v=" << v;
            }
        }
    }
}

TEST(Patterns, SegmentsTileTheVector) {
    for (uint64_t count : {0ull, 1ull, 7ull, 64ull, 1000ull}) {
        for (size_t es : {1u, 2u, 4u, 8u, 16u}) {
            for (uint64_t bytes : {0ull, 1ull, 3ull, 8ull, 12ull, 100ull, 65536ull}) {
                const Segments seg(count, es, bytes);
                uint64_t at = 0;
                for (uint64_t s = 0; s < seg.n; ++s) {
                    EXPECT_EQ(seg.offset(s), at);
                    EXPECT_GE(seg.len(s), 1u);
                    EXPECT_LE(seg.len(s), seg.elems);
                    at += seg.len(s);
                }
                EXPECT_EQ(at, count);
                if (bytes == 0 || count == 0) {
                    EXPECT_EQ(seg.n, count == 0 ? 0u : 1u);
                }
            }
        }
    }
}

// Pieces tile the block, every piece but the last is a chunk and the last
// is smaller, and of two different lengths neither's sizes begin the other's:
// a receiver that expects one length and meets the other's pieces meets a
// piece of another size (the length check) before either ends.
TEST(Patterns, PiecesTileTheBlockAndNoneBeginsAnother) {
    auto sizes = [](uint64_t len, uint64_t chunk) {
        const Pieces p(len, chunk);
        std::vector<uint64_t> v;
        uint64_t at = 0;
        for (uint64_t j = 0; j < p.n; ++j) {
            EXPECT_EQ(p.offset(j), at) << len << " " << chunk;
            v.push_back(p.size(j));
            at += p.size(j);
        }
        EXPECT_EQ(at, len) << len << " " << chunk;
        return v;
    };
    for (uint64_t chunk : {0ull, 1ull, 2ull, 3ull, 7ull, 16ull}) {
        for (uint64_t len = 0; len <= 80; ++len) {
            const std::vector<uint64_t> a = sizes(len, chunk);
            ASSERT_FALSE(a.empty());
            for (size_t j = 0; j + 1 < a.size(); ++j) {
                EXPECT_EQ(a[j], chunk) << len << " " << chunk;
            }
            if (chunk != 0) {
                EXPECT_LT(a.back(), chunk) << len << " " << chunk;
            }
            for (uint64_t other = 0; other <= 80; ++other) {
                if (other == len) {
                    continue;
                }
                const std::vector<uint64_t> b = sizes(other, chunk);
                const size_t common = std::min(a.size(), b.size());
                EXPECT_FALSE(std::equal(a.begin(), a.begin() + common, b.begin()))
                    << "lengths " << len << " and " << other << ", chunk " << chunk;
            }
        }
    }
}
