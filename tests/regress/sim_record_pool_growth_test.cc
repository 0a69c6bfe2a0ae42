// Found measuring the million-rank barrier: the simulator's record pools
// (Cluster::FreeList: posted receives, messages), once they came in blocks of
// 64, reserved their free list's room exactly one block larger each time. A
// million messages in flight made the list copy itself 16,000 times (tens of
// gigabytes copied), and every outgrown buffer left a hole in the heap: the
// run's peak grew from 4.8 to 6.7 GB. The list now grows by doubling.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transports/sim/cluster.h"

namespace {

struct Record {
    uint64_t a = 0;
    uint64_t b = 0;
};

TEST(Regress, SimRecordPoolsGrowTheirFreeListByDoubling) {
    ucc::sim::Cluster::FreeList<Record> pool;
    std::vector<Record *> out;
    size_t growths = 0;
    size_t capacity = pool.list_capacity();
    for (int i = 0; i < 200'000; ++i) {
        out.push_back(pool.get());
        if (pool.list_capacity() != capacity) {
            capacity = pool.list_capacity();
            ++growths;
        }
    }
    EXPECT_GE(capacity, out.size());
    EXPECT_LE(growths, 20u) << "the free list grew " << growths << " times for 200,000 records";
    for (Record *r : out) {
        pool.put(r);  // never allocates: the list has room for every record
    }
    EXPECT_EQ(pool.list_capacity(), capacity);
    Record *again = pool.get();
    EXPECT_EQ(again, out.back());  // last in, first out
    pool.put(again);
}

}  // namespace
