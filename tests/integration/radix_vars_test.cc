// The reference's radix variables end to end: a program that sets
// UCC_TL_UCP_BCAST_KN_RADIX (or a ranged one) runs exactly what
// KNOMIAL_RADIX of that value runs, and nothing else changes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/common/scenario.h"

using ucc::testkit::Scenario;

namespace {

struct EnvVar {
    EnvVar(const char *n, const char *v) : name(n) { setenv(n, v, 1); }
    ~EnvVar() { unsetenv(name); }
    const char *name;
};

uint64_t hash_of(const Scenario &s) {
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
    return o.run.trace_hash;
}

}  // namespace

TEST(RadixVars, ThePerAlgorithmVariableSetsTheRadix) {
    Scenario s;
    s.type = UCC_COLL_TYPE_BCAST;
    s.alg = "knomial";
    s.n = 16;
    s.count = 64;
    s.root = 3;
    s.radix = 4;
    const uint64_t four = hash_of(s);
    s.radix = 16;
    const uint64_t sixteen = hash_of(s);
    ASSERT_NE(four, sixteen);
    s.radix = 4;
    {
        EnvVar v("UCC_TL_UCP_BCAST_KN_RADIX", "16");
        EXPECT_EQ(hash_of(s), sixteen);
    }
    {
        EnvVar v("UCC_TL_UCP_REDUCE_KN_RADIX", "16");  // another collective's
        EXPECT_EQ(hash_of(s), four);
    }
}

// A ranged variable: the radix of the range the message falls in.
TEST(RadixVars, ARangedVariableTakesTheMessagesRange) {
    Scenario s;
    s.type = UCC_COLL_TYPE_ALLREDUCE;
    s.alg = "sra_knomial";
    s.n = 12;
    s.count = 1024;  // 8 KiB of int64
    s.dt = UCC_DT_INT64;
    s.radix = 8;
    const uint64_t eight = hash_of(s);
    s.radix = 2;
    const uint64_t two = hash_of(s);
    ASSERT_NE(eight, two);
    EnvVar v("UCC_TL_UCP_ALLREDUCE_SRA_KN_RADIX", "0-4k:2,4k-inf:host:8");
    EXPECT_EQ(hash_of(s), eight);
    s.count = 512;  // 4 KiB: the first range, both ends included
    s.radix = 8;
    EnvVar none("UCC_ALLREDUCE_SRA_KN_RADIX", "auto");  // the component's name wins
    const uint64_t ranged = hash_of(s);
    s.radix = 2;
    unsetenv("UCC_TL_UCP_ALLREDUCE_SRA_KN_RADIX");
    unsetenv("UCC_ALLREDUCE_SRA_KN_RADIX");
    EXPECT_EQ(ranged, hash_of(s));
}
