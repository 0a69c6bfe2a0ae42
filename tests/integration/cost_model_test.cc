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
#include <span>
#include <string>
#include <vector>

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
    return o.failure.empty() ? o.span_s() : 0;
}

ucc::coll::Args args_of(const Scenario &s) {
    ucc::coll::Args a;
    a.type = s.type;
    a.count = s.count;
    a.esize = 4;
    a.inplace = s.inplace;
    a.radix = s.radix;
    a.chunk_bytes = 256 * 1024;
    a.segment_bytes = ucc::coll::kSegmentAuto;  // BCAST_SEGMENT, REDUCE_SEGMENT: auto
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

// Every flat algorithm with a formula on network `spec`, team sizes 2 to 32,
// `sizes` bytes per rank: the ratio's allowed distance from 1 is `slack`,
// `extras` where recursive multiplying has extra ranks, and at least 0.15
// for an incomplete dbt. Returns the cells checked; `ratios`, when given,
// gets every cell's ratio, and `ns` replaces the team sizes.
uint32_t check_flat(const char *spec, std::initializer_list<uint64_t> sizes, double slack,
                    double extras, bool verbose, std::vector<double> *ratios = nullptr,
                    std::initializer_list<uint32_t> ns = {2u, 3u, 5u, 8u, 13u, 16u, 32u}) {
    ucc::net::NetworkModel net;
    EXPECT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
    const ucc::cost::Params p = ucc::net::cost_params(net);
    uint32_t cells = 0;
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(t)) {
            if (alg.hierarchical || alg.onesided || is_v(t)) {
                continue;
            }
            for (uint32_t n : ns) {
                for (uint64_t bytes : sizes) {
                    if (!has_data(t) && bytes > 8) {
                        continue;
                    }
                    const Scenario s = cell(alg, n, bytes, spec);
                    const double predicted = ucc::cost::predict(alg, args_of(s), n, p);
                    if (predicted < 0 || !ucc::testkit::alg_can_run(s)) {
                        continue;
                    }
                    const double ratio = ratio_to_simulator(s, predicted, verbose);
                    if (ratios != nullptr) {
                        ratios->push_back(ratio);
                    }
                    EXPECT_NEAR(ratio, 1.0,
                                has_extras(alg, n, s.radix) ? extras
                                : incomplete_dbt(alg, n)    ? std::max(slack, 0.15)
                                                            : slack)
                        << spec << " " << alg.name << " n=" << n << " bytes=" << bytes;
                    ++cells;
                }
            }
        }
    }
    return cells;
}

}  // namespace

TEST(CostModel, FormulasPredictTheSimulatorWithinTenPercent) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    uint32_t cells = 0;
    for (const char *spec : {"hdr,ppn=1,jitter=0", "hdr,ppn=64,jitter=0"}) {
        cells += check_flat(spec, {8, 2048, 65536}, 0.10, 0.30, verbose);
    }
    EXPECT_GT(cells, 0u);
}

// The k-ary dissemination barrier at radixes 2 to 16 on one node, across
// nodes of 8 and of 40: the rounds of k - 1 partners, each rank's chain
// waiting on its partners' (chain.h), within 5 % of the simulator.
TEST(CostModel, DisseminationAtEveryRadix) {
    const ucc::coll::Algorithm *alg = nullptr;
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(UCC_COLL_TYPE_BARRIER)) {
        alg = std::strcmp(a.name, "dissemination") == 0 ? &a : alg;
    }
    ASSERT_NE(alg, nullptr);
    for (const char *spec : {"hdr,ppn=1,jitter=0", "hdr,ppn=8,jitter=0", "hdr,ppn=40,jitter=0"}) {
        ucc::net::NetworkModel net;
        ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
        const ucc::cost::Params p = ucc::net::cost_params(net);
        for (uint32_t n : {7u, 16u, 61u, 64u}) {
            for (uint32_t k : {2u, 3u, 4u, 8u, 16u}) {
                Scenario s = cell(*alg, n, 0, spec);
                s.radix = k;
                const double ratio =
                    ratio_to_simulator(s, ucc::cost::predict(*alg, args_of(s), n, p), false);
                EXPECT_NEAR(ratio, 1.0, 0.05) << spec << " n=" << n << " radix " << k;
            }
        }
    }
}

// Bruck's alltoall in base 2, 4 and 8 (k - 1 messages a round, each packed
// while the previous ones leave) on 5 to 64 ranks, blocks of 8 B to 64 KiB
// (up to 1 MiB a rank), one rank per node and nodes of 8: within 5 % of the
// simulator.
TEST(CostModel, BruckAtEveryRadix) {
    const ucc::coll::Algorithm *alg = nullptr;
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(UCC_COLL_TYPE_ALLTOALL)) {
        alg = std::strcmp(a.name, "bruck") == 0 ? &a : alg;
    }
    ASSERT_NE(alg, nullptr);
    for (const char *spec : {"hdr,ppn=1,jitter=0", "hdr,ppn=8,jitter=0"}) {
        ucc::net::NetworkModel net;
        ASSERT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
        const ucc::cost::Params p = ucc::net::cost_params(net);
        for (uint32_t n : {5u, 13u, 32u, 64u}) {
            for (uint64_t bytes : {8ull, 2048ull, 65536ull}) {
                if (n * bytes > (1u << 20)) {
                    continue;  // every rank's 4 MiB, checked byte by byte: the test's time
                }
                for (uint32_t k : {2u, 4u, 8u}) {
                    Scenario s = cell(*alg, n, bytes, spec);
                    s.radix = k;
                    const double ratio =
                        ratio_to_simulator(s, ucc::cost::predict(*alg, args_of(s), n, p), false);
                    EXPECT_NEAR(ratio, 1.0, 0.05)
                        << spec << " n=" << n << " " << bytes << " B radix " << k;
                }
            }
        }
    }
}

// UCX's protocols by size (inline, buffered copies on both sides, then
// zero-copy: within a node the receiver's pull, between nodes the NIC's
// read; rendezvous above a threshold), on one node and across nodes, at
// sizes on every side of the thresholds: 1,383 of the 1,414 cells within
// 10 %; held to 20 %, 35 % with extra ranks (the worst, 0.665: allgather
// knomial of 64 KiB on 5 ranks, whose proxy's pulls and answers the formula
// takes whole). The misses: sag_knomial of 2 ranks (its scattered block's
// copy overlaps the chain or not, by size) and sra_knomial of 16 (each
// round's pulls one after another). Then a network as scripts/fit_network.sh
// writes one for a 2-core machine (docs/benchmarks.md), whose caches
// for_team applies (its cores: RanksBeyondTheCores): 686 of 707 cells
// within 10 %, all within 25 %, held to 35 % (the worst, 1.21: allgather
// knomial of 64 KiB on 5 ranks). COST_MODEL_PROTOCOL_SPEC replaces the
// networks.
TEST(CostModel, ProtocolsBySize) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    struct Net {
        const char *spec;
        double slack;
    };
    std::vector<Net> nets = {
        {"hdr,ppn=64,jitter=0,g=0,bw_intra=inf,short_intra=92,zcopy_intra=8K,rndv_intra=8K,"
         "o_bcopy=194ns,bcopy_intra=10GB/s,o_cma=1.9us,cma=16GB/s",
         0.20},
        {"hdr,ppn=1,jitter=0,short_inter=256,zcopy_inter=16K,rndv_inter=16K,o_bcopy=200ns,"
         "bcopy_inter=8GB/s,dma_read=500ns",
         0.20},
        {"hdr,ppn=1024,jitter=0,g=0,lat_intra=62ns,o=172ns,o_call=367ns,bw_intra=inf,"
         "short_intra=92,zcopy_intra=8K,rndv_intra=8K,o_bcopy=194ns,bcopy_intra=10.23GB/s,"
         "o_cma=1.892us,cma=16.293GB/s,cache=2M,cma_mem=7.614GB/s,copy=31.46GB/s,"
         "copy_mem=10.79GB/s,reduce=18.654GB/s,reduce_mem=10.168GB/s",
         0.35}};
    if (const char *env = std::getenv("COST_MODEL_PROTOCOL_SPEC")) {
        nets = {{env, 0.35}};
    }
    uint32_t cells = 0;
    for (const Net &n : nets) {
        cells += check_flat(n.spec, {8, 512, 4096, 65536}, n.slack, 0.35, verbose);
    }
    EXPECT_GT(cells, 0u);
}

// More ranks than cores: the simulator runs a core's ranks in turns (work
// after another rank's pays a switch), the formulas stretch CPU times and
// the switch by the busiest core's ranks. That fits the exchanges, where
// every rank works alike, better than the rooted collectives, whose root
// the simulator lets work on while its core's other ranks wait: on the
// fitted 2-core network, 3 to 5 ranks, 164 of 303 cells are within 35 %
// and 82 within 10 % (from 0.42, exchanges of 5 ranks, to 2.77, rooted
// ones). Each cell is held within 3x either way, and half of them within
// 35 %.
TEST(CostModel, RanksBeyondTheCores) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    const char *spec =
        "hdr,ppn=1024,jitter=0,g=0,lat_intra=62ns,o=172ns,o_call=367ns,bw_intra=inf,"
        "short_intra=92,zcopy_intra=8K,rndv_intra=8K,o_bcopy=194ns,bcopy_intra=10.23GB/s,"
        "o_cma=1.892us,cma=16.293GB/s,cache=2M,cma_mem=7.614GB/s,copy=31.46GB/s,"
        "copy_mem=10.79GB/s,reduce=18.654GB/s,reduce_mem=10.168GB/s,cores=2,wake=736ns";
    std::vector<double> ratios;
    check_flat(spec, {8, 512, 4096, 65536}, 2.0, 2.0, verbose, &ratios, {3u, 4u, 5u});
    ASSERT_FALSE(ratios.empty());
    size_t near = 0;
    for (double r : ratios) {
        EXPECT_GT(r, 1.0 / 3);
        EXPECT_LT(r, 3.0);
        near += std::abs(r - 1) <= 0.35;
    }
    EXPECT_GE(2 * near, ratios.size()) << near << " of " << ratios.size() << " within 35 %";
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
// (12.5 GB/s, 215 M messages/s) shared by them: 42 of the 48 cells within
// 10 %, all within 25 % (the worst, 1.23: 64-rank allreduces of 2 KiB by
// recursive doubling and knomial); held to 25 %. COST_MODEL_SPEC replaces
// the network.
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
                EXPECT_NEAR(ratio, 1.0, 0.25) << e.alg << " n=" << n << " bytes=" << bytes;
                ++cells;
            }
        }
    }
    EXPECT_GT(cells, 0u);
}

namespace {

// An algorithm of each kind, predicted against the simulator on nodes of 8
// and 40 ranks (16, 61 and 64 ranks: two full nodes, the last node short,
// one node and a part), within its slack.
struct AcrossNodes {
    ucc_coll_type_t type;
    const char *alg;
    double slack;
    uint64_t max_bytes;
};

uint32_t check_across_nodes(std::span<const AcrossNodes> algs) {
    const bool verbose = std::getenv("COST_MODEL_VERBOSE") != nullptr;
    uint32_t cells = 0;
    for (const char *spec : {"hdr,ppn=8,jitter=0", "hdr,ppn=40,jitter=0"}) {
        ucc::net::NetworkModel net;
        EXPECT_EQ(ucc::net::parse_network(spec, &net, nullptr), UCC_OK);
        const ucc::cost::Params p = ucc::net::cost_params(net);
        for (const AcrossNodes &t : algs) {
            const ucc::coll::Algorithm *alg = nullptr;
            for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t.type)) {
                alg = std::strcmp(a.name, t.alg) == 0 ? &a : alg;
            }
            if (alg == nullptr) {
                ADD_FAILURE() << t.alg;
                continue;
            }
            for (uint32_t n : {16u, 61u, 64u}) {
                for (uint64_t bytes : {8ull, 2048ull, 131072ull}) {
                    if ((!has_data(t.type) && bytes != 8) || bytes > t.max_bytes) {
                        continue;
                    }
                    const Scenario s = cell(*alg, n, bytes, spec);
                    const double predicted = ucc::cost::predict(*alg, args_of(s), n, p);
                    EXPECT_GE(predicted, 0) << t.alg;
                    const double ratio = ratio_to_simulator(s, predicted, verbose);
                    EXPECT_NEAR(ratio, 1.0, t.slack)
                        << spec << " " << t.alg << " n=" << n << " bytes=" << bytes;
                    ++cells;
                }
            }
        }
    }
    return cells;
}

}  // namespace

// The trees across nodes (the root's virtual rank 0 at a node's start): each
// hop on its own pair's link, within a node or between nodes (tree.cc), the
// linear root's node-mates' messages before the others', the double binary
// trees' fill over one crossing below a node's span (one segment, up to
// 2 KiB: their pipeline is FormulasPredictTheSimulatorWithinTenPercent's).
// Were every hop taken between nodes, the k-nomial scatter of 512 B on 16
// ranks of nodes of 8 would be predicted at 4.72 µs where it takes 3.51.
TEST(CostModel, TreesAcrossNodesTakeEachHopsLink) {
    constexpr uint64_t kAll = UINT64_MAX;
    constexpr AcrossNodes kTrees[] = {
        {UCC_COLL_TYPE_BCAST, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_REDUCE, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_GATHER, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_GATHER, "linear", 0.10, kAll},
        {UCC_COLL_TYPE_SCATTER, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_FANIN, "linear", 0.10, kAll},
        {UCC_COLL_TYPE_FANOUT, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_BARRIER, "knomial", 0.10, kAll},
        {UCC_COLL_TYPE_BCAST, "dbt", 0.15, 2048},
        {UCC_COLL_TYPE_REDUCE, "dbt", 0.15, 2048},
    };
    EXPECT_GT(check_across_nodes(kTrees), 0u);
}

// Rounds at doubling distances across nodes (chain.h): a rank waits on its
// sender's chain, which may have crossed nodes more often than its own; the
// slowest chain decides. Averaging each round's links instead predicted the
// dissemination barrier on 61 ranks of nodes of 40 at 0.79 of the
// simulator, and Bruck's allgather of 8 B on 61 ranks of nodes of 8 at 0.88.
// The k-nomial allgather is held to 15 %: since receiving ports take in one
// message at a time, its 2 KiB on 64 ranks of nodes of 8 is predicted at 0.86
// of the simulator (not pinned down; its other cells within 5 %).
TEST(CostModel, ChainsAcrossNodesWaitOnTheirSenders) {
    constexpr uint64_t kAll = UINT64_MAX;
    constexpr AcrossNodes kChains[] = {
        {UCC_COLL_TYPE_BARRIER, "dissemination", 0.05, kAll},
        {UCC_COLL_TYPE_ALLGATHER, "bruck", 0.05, kAll},
        {UCC_COLL_TYPE_ALLTOALL, "bruck", 0.10, 2048},
        {UCC_COLL_TYPE_ALLGATHER, "knomial", 0.15, 2048},
        {UCC_COLL_TYPE_ALLREDUCE, "knomial", 0.10, 2048},
        {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling", 0.10, 2048},
        {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial", 0.10, 2048},
    };
    EXPECT_GT(check_across_nodes(kChains), 0u);
}
