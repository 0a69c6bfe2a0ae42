// The pipelined and segmented rooted algorithms (bcast dbt and sag_knomial,
// reduce dbt and srg) at their edges, checked byte for byte against the
// model: segments of one byte, of less than an element and of whole
// elements that do not divide the count, one segment (0) and the default;
// counts 0, 1, odd and many segments; team sizes 1, 2, 3, 5, 8, 13 and 17;
// every root class; radix 2 and 8; in place at the reduce root. Then float64
// SUM and AVG reductions of inexact values: the same bits whatever the
// network's timing (the combining order is fixed by the algorithm alone).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "tools/perf/lifecycle.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

using ucc::testkit::Scenario;

namespace {

struct Alg {
    ucc_coll_type_t type;
    const char *name;
};
constexpr Alg kAlgs[] = {{UCC_COLL_TYPE_BCAST, "dbt"},
                         {UCC_COLL_TYPE_BCAST, "sag_knomial"},
                         {UCC_COLL_TYPE_REDUCE, "dbt"},
                         {UCC_COLL_TYPE_REDUCE, "srg"}};

// Segment settings with the datatype that makes each an edge: one byte (one
// int8 element, and less than one int32), three bytes (never a whole
// element), 12 bytes (three int32: counts 7 and 40 leave a short last
// segment), 16 bytes of float64, one segment, the default (64K).
struct Seg {
    int64_t bytes;
    ucc_datatype_t dt;
};
constexpr Seg kSegs[] = {{1, UCC_DT_INT8},   {1, UCC_DT_INT32},    {3, UCC_DT_INT16},
                         {12, UCC_DT_INT32}, {16, UCC_DT_FLOAT64}, {0, UCC_DT_INT32},
                         {-1, UCC_DT_UINT64}};

std::vector<uint32_t> roots_of(uint32_t n) {
    std::vector<uint32_t> roots = {0};
    if (n / 2 != 0) {
        roots.push_back(n / 2);
    }
    if (n - 1 != n / 2 && n > 1) {
        roots.push_back(n - 1);
    }
    return roots;
}

}  // namespace

TEST(Segmented, EdgeCasesMatchTheModel) {
    uint64_t runs = 0;
    for (const Alg &alg : kAlgs) {
        for (uint32_t n : {1u, 2u, 3u, 5u, 8u, 13u, 17u}) {
            for (uint32_t root : roots_of(n)) {
                for (uint64_t count : {0ull, 1ull, 7ull, 40ull, 257ull}) {
                    for (size_t k = 0; k < std::size(kSegs); ++k) {
                        Scenario s;
                        s.type = alg.type;
                        s.alg = alg.name;
                        s.n = n;
                        s.root = root;
                        s.count = count;
                        s.dt = kSegs[k].dt;
                        s.segment = kSegs[k].bytes;
                        s.radix = (k + root) % 2 == 0 ? 2 : 8;
                        s.inplace = alg.type == UCC_COLL_TYPE_REDUCE && (k + count) % 2 == 1;
                        s.op = k % 3 == 0 ? UCC_OP_MAX : UCC_OP_SUM;
                        s.network = k % 2 == 0 ? "hdr" : "slow";
                        s.seed = n * 131 + count * 7 + k;
                        s.value_seed = 5 + count + k;
                        const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
                        EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n"
                                                       << o.failure;
                        ++runs;
                    }
                }
            }
        }
    }
    EXPECT_GT(runs, 0u);
}

// Persistent requests re-post with new inputs into the same scratch (the
// plans are exact: the kit checks no post allocated).
TEST(Segmented, PersistentRepostsAndSkew) {
    for (const Alg &alg : kAlgs) {
        for (uint32_t n : {3u, 8u, 13u}) {
            Scenario s;
            s.type = alg.type;
            s.alg = alg.name;
            s.n = n;
            s.root = n - 2;
            s.count = 301;
            s.segment = 36;
            s.posts = 3;
            s.skew_ps = 50'000'000;
            s.network = "slow";
            s.op = UCC_OP_AVG;
            s.dt = UCC_DT_FLOAT64;
            const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
            EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
        }
    }
}

namespace {

// Rank r's float64 input element i: inexact sums (thirds, sevenths, spread
// exponents), so that another combining order would change the last bits.
double input(uint32_t r, uint64_t i) {
    return (1.0 + r) / 3.0 + static_cast<double>(i % 17) / 7.0 * (r % 3 == 0 ? 1e6 : 1e-3);
}

// Runs a float64 reduce of `count` elements (root 1) with `alg` on n ranks
// over `network`; the root's result bytes.
std::vector<uint8_t> reduce_bits(const char *alg, ucc_reduction_op_t op, uint32_t n, uint64_t count,
                                 const char *network, uint64_t seed) {
    ucc::sim::ClusterParams p;
    p.n_ranks = n;
    p.seed = seed;
    std::string err;
    EXPECT_EQ(ucc::net::parse_network(network, &p.net, &err), UCC_OK) << err;
    std::vector<uint8_t> result(count * sizeof(double));
    const uint32_t root = 1 % n;
    const ucc::sim::RunResult res = ucc::sim::run(p, [&](uint32_t rank) {
        ucc::testkit::EnvParams ep;
        ep.type = UCC_COLL_TYPE_REDUCE;
        ep.alg = alg;
        ep.segment = 40;  // five elements
        ucc::testkit::RankEnv env;
        const std::string e = ucc::testkit::setup(ep, rank, n, &env);
        EXPECT_EQ(e, "");
        if (e.empty()) {
            std::vector<double> src(count);
            std::vector<double> dst(count, -1.0);
            for (uint64_t i = 0; i < count; ++i) {
                src[i] = input(rank, i);
            }
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_REDUCE;
            a.op = op;
            a.root = root;
            a.src.info = {src.data(), count, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {dst.data(), count, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
            EXPECT_EQ(ucc::perf::run_collective(&a, env.team, env.ctx), UCC_OK);
            if (rank == root) {
                std::memcpy(result.data(), dst.data(), result.size());
            }
        }
        EXPECT_EQ(ucc::testkit::teardown(&env), "");
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    return result;
}

}  // namespace

TEST(Segmented, FloatReductionsAreBitwiseReproducible) {
    const char *networks[] = {"ideal", "slow", "eth100,jitter=50000ns", "hdr,ppn=4,jitter=3000ns"};
    for (const char *alg : {"dbt", "srg"}) {
        for (ucc_reduction_op_t op : {UCC_OP_SUM, UCC_OP_AVG}) {
            for (uint32_t n : {5u, 8u, 13u}) {
                const uint64_t count = 203;
                const std::vector<uint8_t> first = reduce_bits(alg, op, n, count, networks[0], 1);
                // The result is the reduction (to rounding).
                for (uint64_t i = 0; i < count; i += 50) {
                    double want = 0;
                    for (uint32_t r = 0; r < n; ++r) {
                        want += input(r, i);
                    }
                    want /= op == UCC_OP_AVG ? n : 1;
                    double got;
                    std::memcpy(&got, first.data() + i * sizeof(double), sizeof(double));
                    EXPECT_NEAR(got, want, 1e-9 * (1.0 + std::abs(want))) << alg << " i=" << i;
                }
                for (size_t k = 1; k < std::size(networks); ++k) {
                    EXPECT_EQ(reduce_bits(alg, op, n, count, networks[k], 10 + k), first)
                        << alg << " op " << op << " n=" << n << " over " << networks[k];
                }
            }
        }
    }
}
