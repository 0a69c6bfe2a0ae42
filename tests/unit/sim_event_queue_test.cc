// The simulator's radix event queue: the same order as a binary heap on
// (time_ps, tie, seq), for monotone clocks with pushes at the current time
// (ties below the last key's included), equal keys, and far-future times;
// its window of the next events (ahead) in the same order.
#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "transports/sim/event_queue.h"

namespace ucc::sim {
namespace {

struct Ev {
    int64_t time_ps;
    uint64_t tie;
    uint64_t seq;
};

struct Later {
    bool operator()(const Ev &a, const Ev &b) const {
        if (a.time_ps != b.time_ps) {
            return a.time_ps > b.time_ps;
        }
        if (a.tie != b.tie) {
            return a.tie > b.tie;
        }
        return a.seq > b.seq;
    }
};

// Drives both queues like the event loop: pop one, push a few at or after its
// time; `tie_bits` small makes equal (time, tie) keys common; `initial`
// events pending at the start.
void compare_with_heap(uint64_t seed, int tie_bits, int64_t spread_ps, int steps,
                       int initial = 64) {
    std::mt19937_64 rng(seed);
    EventQueue<Ev> q;
    std::priority_queue<Ev, std::vector<Ev>, Later> ref;
    uint64_t seq = 0;
    auto tie = [&] { return tie_bits == 64 ? rng() : rng() & ((uint64_t{1} << tie_bits) - 1); };
    for (int i = 0; i < initial; ++i) {
        Ev e{static_cast<int64_t>(rng() % (spread_ps + 1)), tie(), seq++};
        q.push(e);
        ref.push(e);
    }
    for (int step = 0; step < steps && !ref.empty(); ++step) {
        ASSERT_EQ(q.size(), ref.size());
        const Ev want = ref.top();
        ref.pop();
        const Ev got = q.pop();
        ASSERT_EQ(got.time_ps, want.time_ps) << "step " << step;
        ASSERT_EQ(got.tie, want.tie) << "step " << step;
        ASSERT_EQ(got.seq, want.seq) << "step " << step;
        const int pushes = static_cast<int>(rng() % 4);
        for (int k = 0; k < pushes; ++k) {
            int64_t t = got.time_ps;
            switch (rng() % 4) {
                case 0:  // now, any tie (possibly below the one just taken)
                    break;
                case 1:
                    t += static_cast<int64_t>(rng() % 8);
                    break;
                case 2:
                    t += static_cast<int64_t>(rng() % (spread_ps + 1));
                    break;
                default:  // far future
                    t += int64_t{1} << (rng() % 50);
                    break;
            }
            Ev e{t, tie(), seq++};
            q.push(e);
            ref.push(e);
        }
        if (step % 97 == 0) {
            // The window (ahead) holds the next events in order.
            auto copy = ref;
            for (size_t k = 0; k < EventQueue<Ev>::kAhead; ++k) {
                const Ev *a = q.ahead(k);
                ASSERT_EQ(a == nullptr, copy.empty()) << "step " << step << " k " << k;
                if (a == nullptr) {
                    break;
                }
                ASSERT_EQ(a->seq, copy.top().seq) << "step " << step << " k " << k;
                copy.pop();
            }
        }
    }
    while (!ref.empty()) {
        const Ev want = ref.top();
        ref.pop();
        const Ev got = q.pop();
        ASSERT_EQ(got.seq, want.seq);
    }
    EXPECT_TRUE(q.empty());
}

TEST(SimEventQueue, SameOrderAsBinaryHeap) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        compare_with_heap(seed, 64, 1'000'000, 20'000);
    }
}

TEST(SimEventQueue, EqualKeysLeaveInSequenceOrder) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        compare_with_heap(seed, 2, 3, 20'000);
    }
}

// Thousands pending at once (buckets of many chunks, moved down bucket by
// bucket), one time with random ties, and few distinct keys: heap order.
TEST(SimEventQueue, LargeAndSmallBucketsKeepTheOrder) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        compare_with_heap(seed, 64, 1'000'000, 30'000, 20'000);
        compare_with_heap(seed, 64, 0, 30'000, 20'000);  // one time, random ties
        compare_with_heap(seed, 3, 50, 30'000, 20'000);
    }
}

TEST(SimEventQueue, EverythingAtTimeZero) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        compare_with_heap(seed, 64, 0, 5'000);
    }
}

TEST(SimEventQueue, DrainVisitsEveryPendingEvent) {
    EventQueue<Ev> q;
    for (uint64_t i = 0; i < 1000; ++i) {
        q.push(Ev{static_cast<int64_t>(i * 7919 % 1000), i * 31, i});
    }
    for (int i = 0; i < 10; ++i) {
        q.pop();
    }
    uint64_t seen = 0;
    q.drain([&](const Ev &) { ++seen; });
    EXPECT_EQ(seen, 990u);
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace ucc::sim
