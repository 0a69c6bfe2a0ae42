// SmallMap (the simulator endpoint's matching queues): behaves as std::map
// whatever mix of inline and spilled entries it holds, and iterates in key order.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "transports/sim/small_map.h"

namespace ucc::sim {
namespace {

using Key = std::pair<uint64_t, uint64_t>;

std::vector<std::pair<Key, int>> contents(const SmallMap<Key, int, 3> &m) {
    std::vector<std::pair<Key, int>> out;
    m.for_each([&](const Key &k, const int &v) { out.emplace_back(k, v); });
    return out;
}

std::vector<std::pair<Key, int>> contents(const std::map<Key, int> &m) {
    return {m.begin(), m.end()};
}

TEST(SimSmallMap, SameAsStdMapUnderRandomOperations) {
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        std::mt19937_64 rng(seed);
        SmallMap<Key, int, 3> m;
        std::map<Key, int> ref;
        // Few distinct keys, so entries move between the inline slots and the spill.
        const uint64_t keys = 2 + seed % 8;
        for (int step = 0; step < 2000; ++step) {
            const Key k{rng() % keys, rng() % 3};
            switch (rng() % 4) {
                case 0:
                case 1: {
                    const int v = static_cast<int>(rng() % 1000);
                    m[k] = v;
                    ref[k] = v;
                    break;
                }
                case 2:
                    m.erase(k);
                    ref.erase(k);
                    break;
                default: {
                    const int *got = m.find(k);
                    auto it = ref.find(k);
                    ASSERT_EQ(got != nullptr, it != ref.end());
                    if (got != nullptr) {
                        EXPECT_EQ(*got, it->second);
                    }
                    break;
                }
            }
            ASSERT_EQ(m.size(), ref.size()) << "seed " << seed << " step " << step;
            ASSERT_EQ(m.empty(), ref.empty());
            ASSERT_EQ(contents(m), contents(ref)) << "seed " << seed << " step " << step;
        }
        m.clear();
        EXPECT_TRUE(m.empty());
        EXPECT_EQ(m.find(Key{0, 0}), nullptr);
    }
}

TEST(SimSmallMap, OperatorBracketValueInitialises) {
    SmallMap<Key, int, 3> m;
    for (uint64_t i = 0; i < 6; ++i) {  // three inline, three spilled
        EXPECT_EQ((m[Key{i, i}]), 0);
        m[Key{i, i}] = static_cast<int>(i) + 1;
    }
    EXPECT_EQ(m.size(), 6u);
    for (uint64_t i = 0; i < 6; ++i) {
        ASSERT_NE(m.find(Key{i, i}), nullptr);
        EXPECT_EQ(*m.find(Key{i, i}), static_cast<int>(i) + 1);
    }
}

}  // namespace
}  // namespace ucc::sim
