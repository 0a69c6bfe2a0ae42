// Selection by cost predicted from a rank's own arguments, in-place
// included; but a rooted collective is in place at its root only, so the
// root predicted without the copy of its own block and the others with it:
// near a crossover they chose different algorithms (scatter: the root
// linear, the others knomial) and deadlocked. Predictions now leave the
// in-place flag out, as they leave out everything a rank may pass alone.
#include <gtest/gtest.h>

#include "tests/common/scenario.h"

TEST(Regress, SelectionByCostIgnoresARootOnlyInPlace) {
    for (ucc_coll_type_t type :
         {UCC_COLL_TYPE_SCATTER, UCC_COLL_TYPE_GATHER, UCC_COLL_TYPE_REDUCE}) {
        for (uint64_t count : {1ull, 6ull, 18ull, 64ull, 300ull}) {
            for (uint32_t n : {3u, 6u, 16u}) {
                ucc::testkit::Scenario s;
                s.type = type;
                s.dt = UCC_DT_UINT128;
                s.count = count;
                s.n = n;
                s.root = n - 1;
                s.inplace = true;
                s.network = "hdr";
                EXPECT_EQ(ucc::testkit::run_scenario(s).failure, "") << ucc::testkit::describe(s);
            }
        }
    }
}
