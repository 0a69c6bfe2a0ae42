// The cost formulas (lib/cost) against the simulator they model: every flat
// algorithm with a formula, on an uncontended network (no jitter; one rank
// per node, or every rank on one node), team sizes 2 to 32 with primes and
// non-powers of two, 8 B to 64 KiB per rank's vector or block: the
// prediction within 10 % of the simulated time (from the last post to the
// last completion) wherever recursive multiplying has no extra ranks, and
// within 30 % where it has (the formulas take the proxies' lag whole or
// overlapped, not rank by rank), and within 15 % for the double binary trees
// whose trees are not complete (n - 1 not one less than a power of two: the
// formula follows the deepest path, not the slowest). The v-variants are left out: the kit's
// blocks differ in size, the formulas take one. With COST_MODEL_VERBOSE set,
// every cell is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/core/core.h"
#include "lib/cost/cost.h"
#include "lib/net/network_model.h"
#include "tests/common/scenario.h"

using ucc::testkit::Scenario;

namespace {

bool is_v(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLGATHERV || t == UCC_COLL_TYPE_ALLTOALLV ||
           t == UCC_COLL_TYPE_GATHERV || t == UCC_COLL_TYPE_SCATTERV ||
           t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

// Whether recursive multiplying leaves ranks over (proxies fold them in).
bool has_extras(const ucc::coll::Algorithm &alg, uint32_t n, uint32_t radix) {
    const std::string name = alg.name;
    if (name == "recursive_doubling" || name == "rabenseifner") {
        return ucc::coll::patterns::pow2_floor(n) != n;
    }
    const bool multiplying = (alg.type == UCC_COLL_TYPE_ALLREDUCE && name == "knomial") ||
                             name == "sra_knomial" ||
                             (alg.type == UCC_COLL_TYPE_ALLGATHER && name == "knomial") ||
                             (alg.type == UCC_COLL_TYPE_REDUCE_SCATTER && name == "knomial");
    return multiplying && ucc::coll::patterns::multiply_shape(radix, n).p != n;
}

// A double binary tree over n - 1 ranks that is not complete.
bool incomplete_dbt(const ucc::coll::Algorithm &alg, uint32_t n) {
    return std::string(alg.name) == "dbt" && ucc::coll::patterns::pow2_floor(n) != n;
}

bool has_data(ucc_coll_type_t t) {
    return t != UCC_COLL_TYPE_BARRIER && t != UCC_COLL_TYPE_FANIN && t != UCC_COLL_TYPE_FANOUT;
}

// Seconds from the last post to the last completion.
double simulated(const Scenario &s, std::string *failure) {
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    *failure = o.failure;
    double post = 0;
    double done = 0;
    for (uint32_t r = 0; r < s.n; ++r) {
        post = std::max(post, o.post_s[0][r]);
        done = std::max(done, o.done_s[0][r]);
    }
    return done - post;
}

ucc::coll::Args args_of(const Scenario &s) {
    ucc::coll::Args a;
    a.type = s.type;
    a.count = s.count;
    a.esize = 4;
    a.inplace = s.inplace;
    a.radix = s.radix;
    a.chunk_bytes = 256 * 1024;
    return a;
}

// `predicted` over the simulated time of `s` (0 when the run failed, which
// is reported), printed when `verbose`.
// One cell: `alg` on n ranks of network `spec`, `bytes` of float32-sized
// elements per rank, radix 4.
Scenario cell(const ucc::coll::Algorithm &alg, uint32_t n, uint64_t bytes, const char *spec) {
    Scenario s;
    s.type = alg.type;
    s.alg = alg.name;
    s.n = n;
    s.count = bytes / 4;
    s.network = spec;
    s.radix = 4;
    return s;
}

double ratio_to_simulator(const Scenario &s, double predicted, bool verbose) {
    std::string failure;
    const double sim = simulated(s, &failure);
    if (!failure.empty()) {
        ADD_FAILURE() << s.alg << " n=" << s.n << ": " << failure;
        return 0;
    }
    const double ratio = predicted / sim;
    if (verbose) {
        std::printf("%-32s %-16s %-20s n=%-3u %7llu B  sim %9.3f us  predicted %9.3f us  %.3f\n",
                    s.network.c_str(), ucc::core::coll_type_name(s.type), s.alg.c_str(), s.n,
                    static_cast<unsigned long long>(s.count * 4), sim * 1e6, predicted * 1e6,
                    ratio);
    }
    return ratio;
}

}  // namespace

TEST(CostModel, FormulasPredictTheSimulatorWithinTenPercent) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    uint32_t cells = 0;
    for (const char *spec : {"hdr,ppn=1,jitter=0", "hdr,ppn=64,jitter=0"}) {
        ucc::net::NetworkModel net;
        ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
        const ucc::cost::Params p = ucc::net::cost_params(net);
        for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
            for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(t)) {
                if (alg.hierarchical || alg.onesided || is_v(t)) {
                    continue;
                }
                for (uint32_t n : {2u, 3u, 5u, 8u, 13u, 16u, 32u}) {
                    for (uint64_t bytes : {8ull, 2048ull, 65536ull}) {
                        if (!has_data(t) && bytes > 8) {
                            continue;
                        }
                        const Scenario s = cell(alg, n, bytes, spec);
                        const double predicted = ucc::cost::predict(alg, args_of(s), n, p);
                        if (predicted < 0 || !ucc::testkit::alg_can_run(s)) {
                            continue;
                        }
                        const double ratio = ratio_to_simulator(s, predicted, verbose);
                        EXPECT_NEAR(ratio, 1.0,
                                    has_extras(alg, n, s.radix) ? 0.30
                                    : incomplete_dbt(alg, n)    ? 0.15
                                                                : 0.10)
                            << spec << " " << alg.name << " n=" << n << " bytes=" << bytes;
                        ++cells;
                    }
                }
            }
        }
    }
    EXPECT_GT(cells, 0u);
}

// The hierarchical algorithms: the sum of their levels, each the cheapest
// flat prediction on its link, against the simulator running them (UCC_CLS
// with hier; each level selected by cost on its link) on nodes of 4 ranks,
// even and uneven (10 = 4 + 4 + 2). Held to 15 % on even nodes (a level
// starts when its slowest member is done with the one before, which the sum
// takes whole) and 30 % on uneven ones (the formulas take every node as
// full; a split_rail rank of a smaller node owns several blocks).
TEST(CostModel, LevelsSumTheirPredictions) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    const char *spec = "hdr,ppn=4,jitter=0";
    ucc::net::NetworkModel net;
    ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    const ucc::cost::Params p = ucc::net::cost_params(net);
    uint32_t cells = 0;
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(t)) {
            if (!alg.hierarchical || is_v(t)) {
                continue;
            }
            for (uint32_t n : {8u, 10u, 16u, 32u}) {
                for (uint64_t bytes : {8ull, 2048ull, 65536ull}) {
                    if (!has_data(t) && bytes > 8) {
                        continue;
                    }
                    Scenario s = cell(alg, n, bytes, spec);
                    s.cls = "basic,hier";
                    const double predicted = ucc::cost::predict(alg, args_of(s), n, p);
                    if (predicted < 0) {
                        continue;
                    }
                    const double ratio = ratio_to_simulator(s, predicted, verbose);
                    EXPECT_NEAR(ratio, 1.0, n % 4 == 0 ? 0.15 : 0.30)
                        << alg.name << " n=" << n << " bytes=" << bytes;
                    ++cells;
                }
            }
        }
    }
    EXPECT_GT(cells, 0u);
}

// The exchanges on a team over nodes whose ranks share the node's NIC:
// rounds within a node on the node's link, rounds across on the NIC's share
// (cost.h: multiply_round, distance_round). Nodes of 8 ranks, HDR's NIC
// (12.5 GB/s, 215 M messages/s) shared by them: 39 of the 48 cells within
// 10 %, all but one within 25 %; held to 30 % (the worst, 0.74: a 64-rank
// reduce_scatter knomial of 64 KiB blocks, whose first round moves 3 MiB
// per rank across). COST_MODEL_SPEC replaces the network.
TEST(CostModel, ExchangesAcrossNodesShareTheNic) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    const char *spec = std::getenv("COST_MODEL_SPEC") != nullptr
                           ? std::getenv("COST_MODEL_SPEC")
                           : "hdr,ppn=8,nic_bw=12.5GB/s,nic_rate=215M,jitter=0";
    ucc::net::NetworkModel net;
    ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    const ucc::cost::Params p = ucc::net::cost_params(net);
    struct Exchange {
        ucc_coll_type_t type;
        const char *alg;
    };
    constexpr Exchange kExchanges[] = {
        {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling"},
        {UCC_COLL_TYPE_ALLREDUCE, "knomial"},
        {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner"},
        {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial"},
        {UCC_COLL_TYPE_ALLGATHER, "bruck"},
        {UCC_COLL_TYPE_ALLGATHER, "knomial"},
        {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial"},
        {UCC_COLL_TYPE_ALLTOALL, "pairwise"},
    };
    uint32_t cells = 0;
    for (const Exchange &e : kExchanges) {
        const ucc::coll::Algorithm *alg = nullptr;
        for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(e.type)) {
            alg = std::strcmp(a.name, e.alg) == 0 ? &a : alg;
        }
        ASSERT_NE(alg, nullptr) << e.alg;
        for (uint32_t n : {16u, 64u}) {
            for (uint64_t bytes : {8ull, 2048ull, 65536ull}) {
                const Scenario s = cell(*alg, n, bytes, spec);
                const double predicted = ucc::cost::predict(*alg, args_of(s), n, p);
                ASSERT_GE(predicted, 0) << e.alg;
                const double ratio = ratio_to_simulator(s, predicted, verbose);
                EXPECT_NEAR(ratio, 1.0, 0.30) << e.alg << " n=" << n << " bytes=" << bytes;
                ++cells;
            }
        }
    }
    EXPECT_GT(cells, 0u);
}
