// The hierarchical algorithms (UCC_CLS with hier; lib/coll/subgroup.h) on the
// simulator, checked byte for byte against the model and by the event-trace
// checkers: nodes of 2 to 5 ranks, partial last nodes, teams over some ranks
// of some nodes (uneven nodes, a node of one rank), every root class, in
// place, zero and odd counts, AVG, persistent re-posts. That the algorithm
// ran, and not the flat fallback, is read from the trace's init events.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/coll/topology.h"
#include "model/trace.h"
#include "tests/common/scenario.h"
#include "tests/common/workload.h"

using ucc::testkit::Scenario;

namespace {

struct HierAlg {
    ucc_coll_type_t type;
    const char *name;
};
constexpr HierAlg kHier[] = {
    {UCC_COLL_TYPE_ALLREDUCE, "rab"},        {UCC_COLL_TYPE_BCAST, "2step"},
    {UCC_COLL_TYPE_REDUCE, "2step"},         {UCC_COLL_TYPE_BARRIER, "hier"},
    {UCC_COLL_TYPE_ALLREDUCE, "split_rail"}, {UCC_COLL_TYPE_ALLGATHER, "gab"},
    {UCC_COLL_TYPE_ALLGATHERV, "gab"},       {UCC_COLL_TYPE_ALLTOALL, "node_split"},
    {UCC_COLL_TYPE_ALLTOALLV, "node_split"},
};

uint16_t number_of(ucc_coll_type_t t, const char *name) {
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(t)) {
        if (std::string(a.name) == name) {
            return static_cast<uint16_t>(ucc::coll::algorithm_number(a));
        }
    }
    return 0;
}

// Every init of the run chose `alg` (or none: a zero-size collective).
std::string inits_chose(const ucc::sim::RunResult &run, uint16_t alg) {
    int inits = 0;
    for (const ucc::TraceEvent &e : run.trace) {
        if (e.kind == ucc::TraceKind::kInit) {
            ++inits;
            if (e.alg != 0 && e.alg != alg) {
                return "rank " + std::to_string(e.rank) + " ran algorithm " +
                       std::to_string(e.alg) + ", not " + std::to_string(alg);
            }
        }
    }
    return inits > 0 ? "" : "no init in the trace";
}

}  // namespace

TEST(Hier, EveryAlgorithmShapeMatchesModelAndTrace) {
    for (const HierAlg &h : kHier) {
        const uint16_t number = number_of(h.type, h.name);
        ASSERT_NE(number, 0) << h.name;
        for (uint32_t ppn : {2u, 3u, 5u}) {
            for (uint32_t n : {3u, 7u, 12u}) {
                if (n <= ppn) {
                    continue;  // one node: the flat fallback (Hier.FlatLayoutsFallBack)
                }
                for (uint64_t count : {0ull, 1ull, 13ull}) {
                    for (bool inplace : {false, true}) {
                        if (inplace && h.type == UCC_COLL_TYPE_BCAST) {
                            continue;
                        }
                        Scenario s;
                        s.type = h.type;
                        s.alg = h.name;
                        s.n = n;
                        s.count = count;
                        s.inplace = inplace;
                        s.network = "hdr,ppn=" + std::to_string(ppn);
                        // The root: first rank, a node's last, the last rank.
                        s.root = count == 0 ? 0 : count == 1 ? ppn - 1 : n - 1;
                        s.dt = count == 13 ? UCC_DT_FLOAT64 : UCC_DT_INT32;
                        s.op =
                            count == 13 && h.type != UCC_COLL_TYPE_BCAST ? UCC_OP_AVG : UCC_OP_SUM;
                        s.posts = inplace ? 1 : 2;
                        s.wide_counts = count == 13;
                        s.wide_displs = count == 1;
                        s.poison_inplace_src = inplace;
                        s.record_events = true;
                        s.seed = n * 31 + ppn;
                        const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
                        const std::string what = ucc::testkit::describe(s);
                        ASSERT_EQ(o.failure, "") << what;
                        EXPECT_EQ(inits_chose(o.run, number), "") << what;
                        const ucc::model::Findings f = ucc::model::check_all(o.run.trace);
                        EXPECT_TRUE(f.empty()) << what << "\n" << ucc::model::format(f);
                    }
                }
            }
        }
    }
}

// One node, or one rank per node: the built-in choice runs instead.
TEST(Hier, FlatLayoutsFallBack) {
    for (const HierAlg &h : kHier) {
        const uint16_t number = number_of(h.type, h.name);
        for (const char *network : {"hdr,ppn=8", "hdr,ppn=1"}) {
            Scenario s;
            s.type = h.type;
            s.alg = h.name;
            s.n = 6;
            s.count = 5;
            s.network = network;
            s.record_events = true;
            const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
            ASSERT_EQ(o.failure, "") << ucc::testkit::describe(s);
            EXPECT_NE(inits_chose(o.run, number), "") << ucc::testkit::describe(s);
        }
    }
}

// Teams over some ranks of some nodes (nodes of 4): a table topology with
// uneven nodes, a node of one rank, and nodes whose ranks are not
// consecutive in the team; auto selection with UCC_CLS=basic,hier takes the
// hierarchical algorithms below 4 KiB.
TEST(Hier, UnevenNodesOfSubsetTeams) {
    ucc::testkit::Workload w;
    w.n = 16;
    w.seed = 11;
    w.network = "hdr,ppn=4";
    w.cls = "basic,hier";
    w.teams.push_back({{0, 1, 2, 5, 9, 10, 11, 12, 15}, false, false});
    w.teams.push_back({{3, 13, 4, 6, 8, 7}, false, false});  // nodes interleaved
    uint16_t tag = 1;
    for (uint32_t t = 0; t < 2; ++t) {
        const uint32_t size = static_cast<uint32_t>(w.teams[t].members.size());
        for (ucc_coll_type_t type : {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST,
                                     UCC_COLL_TYPE_REDUCE, UCC_COLL_TYPE_BARRIER}) {
            for (uint32_t root : {0u, 3u, size - 1}) {
                ucc::testkit::WorkloadOp op;
                op.team = t;
                op.coll.type = type;
                op.coll.n = size;
                op.coll.count = 6 + root;
                op.coll.root = root;
                op.coll.inplace = root == 3 && type != UCC_COLL_TYPE_BCAST;
                op.coll.op = root == 0 ? UCC_OP_AVG : UCC_OP_SUM;
                op.coll.dt = root == 0 ? UCC_DT_FLOAT32 : UCC_DT_INT64;
                op.coll.posts = root == size - 1 ? 3 : 1;
                op.coll.value_seed = tag;
                op.tag = tag++;
                w.ops.push_back(op);
            }
        }
    }
    const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
    ASSERT_EQ(out.failure, "") << ucc::testkit::describe(w);
    const ucc::model::Findings f = ucc::model::check_all(out.run.trace);
    EXPECT_TRUE(f.empty()) << ucc::model::format(f);
    int hier = 0;
    for (const ucc::TraceEvent &e : out.run.trace) {
        if (e.kind == ucc::TraceKind::kInit && e.alg != 0) {
            const auto &table = ucc::coll::algorithms(e.coll);
            ASSERT_LE(e.alg, table.size());
            hier += table[e.alg - 1].hierarchical ? 1 : 0;
        }
    }
    EXPECT_GT(hier, 0);
}

// The algorithms auto selection does not take, forced, on the same uneven
// nodes (the second team's nodes interleaved in rank order: gab's scratch
// path).
TEST(Hier, ForcedAlgorithmsOnUnevenNodes) {
    ucc::testkit::Workload w;
    w.n = 16;
    w.seed = 12;
    w.network = "hdr,ppn=4";
    w.cls = "basic,hier";
    w.config = {{"ALLREDUCE_ALG", "split_rail"},
                {"ALLGATHER_ALG", "gab"},
                {"ALLTOALL_ALG", "node_split"},
                {"ALLTOALLV_ALG", "node_split"}};
    w.teams.push_back({{0, 1, 2, 5, 9, 10, 11, 12, 15}, false, false});
    w.teams.push_back({{8, 0, 4, 13, 5, 14, 6, 7}, false, false});  // nodes interleaved
    uint16_t seed = 1;
    for (uint32_t t = 0; t < 2; ++t) {
        const uint32_t size = static_cast<uint32_t>(w.teams[t].members.size());
        for (ucc_coll_type_t type :
             {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLGATHERV,
              UCC_COLL_TYPE_ALLTOALL, UCC_COLL_TYPE_ALLTOALLV}) {
            for (uint64_t count : {0ull, 1ull, 5ull, 23ull}) {
                ucc::testkit::WorkloadOp op;
                op.team = t;
                op.coll.type = type;
                op.coll.n = size;
                op.coll.count = count;
                op.coll.inplace = count == 5;
                op.coll.op = count == 23 ? UCC_OP_AVG : UCC_OP_SUM;
                op.coll.dt = count == 23 ? UCC_DT_FLOAT64 : UCC_DT_INT16;
                op.coll.posts = count == 1 ? 2 : 1;
                op.coll.wide_counts = count == 23;
                op.coll.value_seed = seed++;
                w.ops.push_back(op);
            }
        }
    }
    const ucc::testkit::WorkloadOutcome out = ucc::testkit::run_workload(w);
    ASSERT_EQ(out.failure, "") << ucc::testkit::describe(w);
    const ucc::model::Findings f = ucc::model::check_all(out.run.trace);
    EXPECT_TRUE(f.empty()) << ucc::model::format(f);
    int hier = 0;
    for (const ucc::TraceEvent &e : out.run.trace) {
        if (e.kind == ucc::TraceKind::kInit && e.alg != 0) {
            hier += ucc::coll::algorithms(e.coll)[e.alg - 1].hierarchical ? 1 : 0;
        }
    }
    EXPECT_GT(hier, 0);
}

// The two forms of a topology agree: a run of consecutive ranks on nodes of
// `ppn` read arithmetically, and the same layout from node keys.
TEST(Hier, RegularTopologyMatchesTable) {
    for (uint32_t ppn : {1u, 3u, 4u}) {
        for (uint64_t first : {0ull, 2ull, 5ull}) {
            for (uint32_t size : {1u, 2u, 7u, 13u}) {
                const ucc::coll::Topology r = ucc::coll::Topology::regular(size, first, ppn);
                std::vector<uint64_t> keys;
                for (uint32_t i = 0; i < size; ++i) {
                    keys.push_back((first + i) / ppn);
                }
                const ucc::coll::Topology t = ucc::coll::Topology::from_keys(keys);
                const std::string what = "ppn " + std::to_string(ppn) + " first " +
                                         std::to_string(first) + " size " + std::to_string(size);
                ASSERT_EQ(r.nodes(), t.nodes()) << what;
                EXPECT_EQ(r.min_node_size(), t.min_node_size()) << what;
                EXPECT_EQ(r.max_node_size(), t.max_node_size()) << what;
                EXPECT_EQ(r.flat(), t.flat()) << what;
                for (uint32_t i = 0; i < size; ++i) {
                    EXPECT_EQ(r.node_of(i), t.node_of(i)) << what;
                    EXPECT_EQ(r.local_index(i), t.local_index(i)) << what;
                }
                for (uint32_t k = 0; k < r.nodes(); ++k) {
                    ASSERT_EQ(r.node_size(k), t.node_size(k)) << what;
                    for (uint32_t j = 0; j < r.node_size(k); ++j) {
                        EXPECT_EQ(r.member(k, j), t.member(k, j)) << what;
                    }
                }
            }
        }
    }
}
