// The reference's radix variables end to end: a program that sets
// UCC_TL_UCP_BCAST_KN_RADIX (or a ranged one) runs exactly what
// KNOMIAL_RADIX of that value runs, and nothing else changes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "lib/coll/coll.h"
#include "lib/coll/radix.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
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

// Every radix variable and KNOMIAL_RADIX auto (the defaults) on the
// simulator: the algorithm runs with the radix the formulas predict
// cheapest on the simulated network, exactly as if KNOMIAL_RADIX said it.
TEST(RadixVars, AutoRunsTheCheapestPredicted) {
    ucc::net::NetworkModel m;
    ASSERT_TRUE(ucc::net::network_preset("hdr", &m));  // 8 ranks per node
    const ucc::cost::Params net = ucc::net::cost_params(m);
    struct Case {
        ucc_coll_type_t type;
        const char *alg;
        uint32_t n;
        uint64_t count;
    };
    int not_four = 0;
    for (const Case &c : {Case{UCC_COLL_TYPE_BARRIER, "knomial", 16, 0},
                          Case{UCC_COLL_TYPE_BCAST, "knomial", 24, 1024},
                          Case{UCC_COLL_TYPE_ALLREDUCE, "sra_knomial", 12, 16384},
                          Case{UCC_COLL_TYPE_ALLGATHER, "knomial", 16, 64}}) {
        const ucc::coll::Algorithm *alg = nullptr;
        for (const ucc::coll::Algorithm &x : ucc::coll::algorithms(c.type)) {
            alg = std::strcmp(x.name, c.alg) == 0 ? &x : alg;
        }
        ASSERT_NE(alg, nullptr) << c.alg;
        const ucc::coll::Radixes autos;
        ucc::coll::Args a;
        a.type = c.type;
        a.count = c.count;
        a.esize = 4;
        a.dt = UCC_DT_INT32;
        a.radixes = &autos;
        a.radix = autos.fallback;
        const uint32_t k = ucc::cost::radix_for(*alg, a, c.n, net);
        Scenario s;
        s.type = c.type;
        s.alg = c.alg;
        s.n = c.n;
        s.count = c.count;
        s.radix = 0;  // the default: auto
        const uint64_t chosen = hash_of(s);
        s.radix = k;
        EXPECT_EQ(chosen, hash_of(s)) << c.alg << " on " << c.n << ": radix " << k;
        if (k != 4) {
            ++not_four;
            s.radix = 4;
            EXPECT_NE(chosen, hash_of(s)) << c.alg;
        }
    }
    EXPECT_GT(not_four, 0);
}
