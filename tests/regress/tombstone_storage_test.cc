// Regression: a destroyed context's tombstone (P36) kept 7.3 KB, not the
// few hundred bytes its comment promised. ucc_context_destroy "emptied" the
// address and segment vectors with `v = {}`, which assigns from an empty
// initializer list and keeps the capacity, and it kept the configuration's
// values and the pool's cached blocks. Found by
// Drift.SimulatorCyclesUnderOneLibraryGrowOnlyByTombstones, which now bounds a
// tombstone at 2 KiB (1.4 KB measured).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/util/common.h"
#include "lib/util/pool.h"

namespace {

TEST(Regress, FreeStorageGivesTheCapacityBack) {
    std::vector<uint8_t> v(4096, 1);
    v = {};
    EXPECT_GE(v.capacity(), 4096u);  // the trap: `= {}` empties but keeps
    ucc::free_storage(v);
    EXPECT_EQ(v.capacity(), 0u);
    std::string s(1000, 'x');
    ucc::free_storage(s);
    EXPECT_LT(s.capacity(), 1000u);
}

TEST(Regress, APoolReleasesItsCachedBlocks) {
    ucc::Pool pool;
    std::vector<void *> blocks;
    for (int i = 0; i < 10; ++i) {
        blocks.push_back(pool.allocate(200));
    }
    for (void *b : blocks) {
        pool.deallocate(b, 200);
    }
    EXPECT_EQ(pool.kept(), 10u);
    pool.release();
    EXPECT_EQ(pool.kept(), 0u);
    void *b = pool.allocate(200);  // still usable afterwards
    pool.deallocate(b, 200);
    EXPECT_EQ(pool.kept(), 1u);
}

}  // namespace
