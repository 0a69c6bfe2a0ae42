// The reference's radix variables (tl/ucp's <COLL>_KN_RADIX, the ranged
// ones, KN_RADIX): their values, which algorithm each sets, and what an
// algorithm runs with (lib/coll/radix.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/coll/coll.h"
#include "lib/coll/radix.h"
#include "lib/core/config.h"
#include "lib/core/core.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"

namespace {

using ucc::coll::RadixSetting;

RadixSetting parsed(const std::string &v, bool ranged) {
    RadixSetting s;
    std::string error;
    EXPECT_TRUE(ucc::select::parse_radix(v, ranged, &s, &error)) << v << ": " << error;
    return s;
}

bool refused(const std::string &v, bool ranged) {
    RadixSetting s;
    std::string error;
    const bool ok = ucc::select::parse_radix(v, ranged, &s, &error);
    return !ok && !error.empty();
}

const ucc::coll::Algorithm &alg(ucc_coll_type_t type, const char *name) {
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(type)) {
        if (std::strcmp(a.name, name) == 0) {
            return a;
        }
    }
    ADD_FAILURE() << "no algorithm " << name;
    return ucc::coll::algorithms(type)[0];
}

struct EnvVar {
    EnvVar(const char *n, const char *v) : name(n) { setenv(n, v, 1); }
    ~EnvVar() { unsetenv(name); }
    const char *name;
};

}  // namespace

// Every variable names an algorithm we have and is a context variable.
TEST(RadixVars, EachNamesAnAlgorithmAndAContextVariable) {
    for (const ucc::coll::RadixVar &v : ucc::coll::radix_vars()) {
        bool found = false;
        for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(v.type)) {
            found = found || std::strcmp(a.name, v.alg) == 0;
        }
        EXPECT_TRUE(found) << v.var << " names " << v.alg;
        bool known = false;
        for (const ucc::core::ConfigVar &c : ucc::core::context_config_table()) {
            known = known || std::strcmp(c.name, v.var) == 0;
        }
        EXPECT_TRUE(known) << v.var;
    }
}

TEST(RadixVars, ValuesParseAsTheReferenceWrites) {
    EXPECT_EQ(parsed("auto", false).value, 0u);
    EXPECT_EQ(parsed("AUTO", true).value, 0u);
    EXPECT_EQ(parsed("8", false).value, 8u);
    EXPECT_TRUE(refused("1", false));
    EXPECT_TRUE(refused("65", false));
    EXPECT_TRUE(refused("4k", false));
    EXPECT_TRUE(refused("0-4k:2", false));  // a plain variable takes no ranges

    const RadixSetting r = parsed("0-4k:host:2,4k-inf:8,3", true);
    ASSERT_EQ(r.ranges.size(), 2u);
    EXPECT_EQ(r.value, 3u);
    EXPECT_EQ(r.ranges[0].lo, 0u);
    EXPECT_EQ(r.ranges[0].hi, 4096u);
    EXPECT_EQ(r.ranges[0].mem_mask, 1u << UCC_MEMORY_TYPE_HOST);
    EXPECT_EQ(r.ranges[0].value, 2u);
    EXPECT_EQ(r.ranges[1].lo, 4096u);
    EXPECT_EQ(r.ranges[1].hi, UINT64_MAX);
    EXPECT_EQ(r.ranges[1].mem_mask, ~0u);
    EXPECT_EQ(r.ranges[1].value, 8u);

    const RadixSetting m = parsed("cuda^host:16", true);
    ASSERT_EQ(m.ranges.size(), 1u);
    EXPECT_EQ(m.ranges[0].mem_mask, (1u << UCC_MEMORY_TYPE_HOST) | (1u << UCC_MEMORY_TYPE_CUDA));
    EXPECT_EQ(m.ranges[0].lo, 0u);

    for (const char *bad : {"", "0-4k:host:2:9", "red:4", "4k-0:2", "0-4k:1", "0-4k:host:"}) {
        EXPECT_TRUE(refused(bad, true)) << bad;
    }
}

// The first range that holds decides (both ends included, as the
// reference's), then the default, then KNOMIAL_RADIX.
TEST(RadixVars, AnAlgorithmRunsWithItsOwnSetting) {
    ucc::coll::Radixes r;
    r.fallback = 5;
    uint32_t ar = 0;
    uint32_t ag = 0;
    for (uint32_t i = 0; i < ucc::coll::radix_vars().size(); ++i) {
        const ucc::coll::RadixVar &v = ucc::coll::radix_vars()[i];
        ar = v.type == UCC_COLL_TYPE_ALLREDUCE && std::strcmp(v.alg, "knomial") == 0 ? i : ar;
        ag = v.type == UCC_COLL_TYPE_ALLGATHER ? i : ag;
    }
    r.set.push_back({ar, parsed("0-4k:host:2,4k-inf:8", true)});
    r.set.push_back({ag, parsed("0-1k:3,7", true)});
    ucc::coll::Args a;
    a.type = UCC_COLL_TYPE_ALLREDUCE;
    a.esize = 4;
    a.radixes = &r;
    const auto &knomial = alg(UCC_COLL_TYPE_ALLREDUCE, "knomial");
    a.count = 1024;  // 4 KiB: the first range, whose end is included
    EXPECT_EQ(ucc::coll::radix_for(knomial, a, 16), 2u);
    a.count = 1025;
    EXPECT_EQ(ucc::coll::radix_for(knomial, a, 16), 8u);
    a.src_mem = UCC_MEMORY_TYPE_CUDA;
    a.count = 16;  // not host and below 4k: no range holds, KNOMIAL_RADIX
    EXPECT_EQ(ucc::coll::radix_for(knomial, a, 16), 5u);
    a.src_mem = UCC_MEMORY_TYPE_HOST;
    // sra_knomial has no setting here: KNOMIAL_RADIX.
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_ALLREDUCE, "sra_knomial"), a, 16), 5u);
    // Allgather compares the whole result (block x team size).
    a.type = UCC_COLL_TYPE_ALLGATHER;
    a.esize = 1;
    a.count = 64;
    const auto &ag_knomial = alg(UCC_COLL_TYPE_ALLGATHER, "knomial");
    EXPECT_EQ(ucc::coll::radix_for(ag_knomial, a, 16), 3u);  // 1,024 bytes
    EXPECT_EQ(ucc::coll::radix_for(ag_knomial, a, 17), 7u);  // 1,088 bytes
    a.radixes = nullptr;
    a.radix = 9;
    EXPECT_EQ(ucc::coll::radix_for(ag_knomial, a, 17), 9u);
}

// KN_RADIX replaces the plain variables but fanin's and fanout's, as the
// reference's tl/ucp does; the rest stay as set, or KNOMIAL_RADIX.
TEST(RadixVars, KnRadixReplacesThePlainOnes) {
    EnvVar kn("UCC_TL_UCP_KN_RADIX", "3");
    EnvVar bcast("UCC_TL_UCP_BCAST_KN_RADIX", "8");
    EnvVar fanin("UCC_TL_UCP_FANIN_KN_RADIX", "6");
    EnvVar sag("UCC_TL_UCP_BCAST_SAG_KN_RADIX", "0-64k:2");
    ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(c.load(nullptr), UCC_OK);
    ucc::core::Logger log;
    ucc::coll::Radixes r;
    ucc::core::load_radixes(c, log, &r);
    ucc::coll::Args a;
    a.radixes = &r;
    a.esize = 1;
    a.count = 100;
    a.type = UCC_COLL_TYPE_BCAST;
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_BCAST, "knomial"), a, 8), 3u);
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_BCAST, "sag_knomial"), a, 8), 2u);
    a.count = 1 << 20;  // outside the range: auto, and KNOMIAL_RADIX auto too
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_BCAST, "sag_knomial"), a, 8),
              ucc::coll::kRadixAuto);
    a.type = UCC_COLL_TYPE_FANIN;
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_FANIN, "knomial"), a, 8), 6u);
    a.type = UCC_COLL_TYPE_FANOUT;
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_FANOUT, "knomial"), a, 8),
              ucc::coll::kRadixAuto);
    a.type = UCC_COLL_TYPE_SCATTER;
    EXPECT_EQ(ucc::coll::radix_for(alg(UCC_COLL_TYPE_SCATTER, "knomial"), a, 8), 3u);
}

TEST(RadixVars, AValueOutsideTheGrammarIsRefused) {
    for (const char *bad : {"1", "100", "x"}) {
        EnvVar v("UCC_BARRIER_KN_RADIX", bad);
        ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
        EXPECT_EQ(c.load(nullptr), UCC_ERR_INVALID_PARAM) << bad;
    }
    EnvVar v("UCC_ALLREDUCE_SRA_KN_RADIX", "0-4k:host:2:2");
    ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
    EXPECT_EQ(c.load(nullptr), UCC_ERR_INVALID_PARAM);
}

// KNOMIAL_RADIX auto (the default) under the algorithm's own auto: the
// radix whose prediction is the cheapest (none above the team size but 2,
// the smaller on a tie), what predict() takes; a setting wins, and an
// algorithm without a radix takes the default.
TEST(RadixVars, AutoIsTheCheapestPrediction) {
    ucc::net::NetworkModel m;
    ASSERT_TRUE(ucc::net::network_preset("hdr", &m));
    const ucc::cost::Params p = ucc::net::cost_params(m);
    ucc::coll::Radixes r;
    ASSERT_EQ(r.fallback, ucc::coll::kRadixAuto);
    const std::pair<ucc_coll_type_t, const char *> algs[] = {
        {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial"}, {UCC_COLL_TYPE_ALLREDUCE, "knomial"},
        {UCC_COLL_TYPE_BCAST, "knomial"},         {UCC_COLL_TYPE_BARRIER, "knomial"},
        {UCC_COLL_TYPE_ALLGATHER, "knomial"},     {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial"},
        {UCC_COLL_TYPE_GATHER, "knomial"},        {UCC_COLL_TYPE_REDUCE, "srg"}};
    int not_four = 0;
    for (const auto &[type, name] : algs) {
        const ucc::coll::Algorithm &k_alg = alg(type, name);
        for (uint32_t n : {2u, 3u, 7u, 16u, 61u, 256u}) {
            for (uint64_t count : {1ull, 1024ull, 1ull << 18}) {
                ucc::coll::Args a;
                a.type = type;
                a.count = type == UCC_COLL_TYPE_BARRIER ? 0 : count;
                a.esize = 4;
                a.dt = UCC_DT_FLOAT32;
                a.radixes = &r;
                a.radix = r.fallback;
                ucc::coll::Args b = a;
                b.radixes = nullptr;
                uint32_t want = 0;
                double best = -1;
                for (uint32_t k : {2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
                    if (k > 2 && k > n) {
                        break;
                    }
                    b.radix = k;
                    const double t = ucc::cost::predict(k_alg, b, n, p);
                    if (t >= 0 && (best < 0 || t < best)) {
                        best = t;
                        want = k;
                    }
                }
                const uint32_t got = ucc::cost::radix_for(k_alg, a, n, p);
                EXPECT_EQ(got, want) << name << " n=" << n << " count=" << count;
                EXPECT_DOUBLE_EQ(ucc::cost::predict(k_alg, a, n, p), best) << name << " n=" << n;
                not_four += got != 4 ? 1 : 0;
            }
        }
    }
    EXPECT_GT(not_four, 0);  // the choice matters somewhere
    ucc::coll::Args a;
    a.type = UCC_COLL_TYPE_ALLREDUCE;
    a.count = 1024;
    a.esize = 4;
    a.radixes = &r;
    r.fallback = 5;  // set: it wins
    EXPECT_EQ(ucc::cost::radix_for(alg(UCC_COLL_TYPE_ALLREDUCE, "sra_knomial"), a, 256, p), 5u);
    r.fallback = ucc::coll::kRadixAuto;
    EXPECT_EQ(ucc::cost::radix_for(alg(UCC_COLL_TYPE_ALLREDUCE, "ring"), a, 256, p),
              ucc::coll::kDefaultRadix);
}
