// The in-network allreduce (allreduce sharp; the simulator's sharp_lat) on
// the simulator: results byte for byte against the model and the event-trace
// checkers; where it may run (a network that reduces, one rank per node, what
// the switches compute) and where the selector takes it (a flat team of one
// rank per node unless UCC_CL_BASIC_TLS leaves sharp out; a hierarchical
// algorithm's node leaders or rails when UCC_CL_HIER_*_SBGP_TLS names it; a
// TUNE token of the flat algorithms' score does not displace it).
#include <gtest/gtest.h>

#include <string>

#include "lib/coll/coll.h"
#include "model/trace.h"
#include "tests/common/scenario.h"
#include "tests/common/scoped_env.h"

using ucc::testkit::Scenario;
using ucc::testkit::ScopedEnv;

namespace {

uint16_t sharp_number() {
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(UCC_COLL_TYPE_ALLREDUCE)) {
        if (std::string(a.name) == "sharp") {
            return static_cast<uint16_t>(ucc::coll::algorithm_number(a));
        }
    }
    return 0;
}

// Whether some init of the run chose `alg` (0: some chose none, a team of
// one or an empty vector), and every other chose none.
bool ran(const ucc::sim::RunResult &run, uint16_t alg) {
    bool some = false;
    for (const ucc::TraceEvent &e : run.trace) {
        if (e.kind == ucc::TraceKind::kInit && e.alg != 0) {
            if (e.alg != alg) {
                return false;
            }
            some = true;
        }
    }
    return some;
}

// One rank per node, switches that take 1 ms: a run that used them shows it.
constexpr const char *kSlowSwitch = "hdr,ppn=1,sharp_lat=1ms";

}  // namespace

TEST(Sharp, AllreduceMatchesModelAndTrace) {
    const uint16_t number = sharp_number();
    ASSERT_NE(number, 0);
    struct Case {
        ucc_datatype_t dt;
        ucc_reduction_op_t op;
    };
    constexpr Case kCases[] = {
        {UCC_DT_INT32, UCC_OP_SUM},   {UCC_DT_FLOAT64, UCC_OP_SUM}, {UCC_DT_FLOAT32, UCC_OP_MAX},
        {UCC_DT_UINT16, UCC_OP_BXOR}, {UCC_DT_INT64, UCC_OP_MIN},   {UCC_DT_FLOAT16, UCC_OP_SUM},
        {UCC_DT_UINT64, UCC_OP_LAND},
    };
    for (const Case &k : kCases) {
        for (uint32_t n : {1u, 2u, 5u, 12u}) {
            for (uint64_t count : {0ull, 1ull, 13ull}) {
                for (bool inplace : {false, true}) {
                    Scenario s;
                    s.alg = "sharp";
                    s.n = n;
                    s.count = count;
                    s.dt = k.dt;
                    s.op = k.op;
                    s.inplace = inplace;
                    s.poison_inplace_src = inplace;
                    s.network = "hdr,ppn=1,sharp_lat=2us,sharp_bw=1GB/s";
                    s.posts = 2;
                    s.skew_ps = 3'000'000;
                    s.record_events = true;
                    s.seed = n * 7 + count;
                    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
                    const std::string what = ucc::testkit::describe(s);
                    ASSERT_EQ(o.failure, "") << what;
                    if (n > 1 && count > 0) {
                        EXPECT_TRUE(ran(o.run, number)) << what;
                    }
                    const ucc::model::Findings f = ucc::model::check_all(o.run.trace);
                    EXPECT_TRUE(f.empty()) << what << "\n" << ucc::model::format(f);
                }
            }
        }
    }
}

// Forced where the switches cannot: the init refuses it.
TEST(Sharp, RefusedWhereTheSwitchesCannot) {
    struct Case {
        const char *network;
        ucc_datatype_t dt;
        ucc_reduction_op_t op;
    };
    constexpr Case kCases[] = {
        {"hdr,ppn=1", UCC_DT_INT32, UCC_OP_SUM},                // the switches do not reduce
        {"hdr,ppn=2,sharp_lat=2us", UCC_DT_INT32, UCC_OP_SUM},  // two ranks share a node
        {"hdr,ppn=1,sharp_lat=2us", UCC_DT_INT32, UCC_OP_PROD},
        {"hdr,ppn=1,sharp_lat=2us", UCC_DT_FLOAT32, UCC_OP_AVG},
        {"hdr,ppn=1,sharp_lat=2us", UCC_DT_INT8, UCC_OP_SUM},
        {"hdr,ppn=1,sharp_lat=2us", UCC_DT_FLOAT128, UCC_OP_SUM},
    };
    for (const Case &k : kCases) {
        Scenario s;
        s.alg = "sharp";
        s.n = 4;
        s.network = k.network;
        s.dt = k.dt;
        s.op = k.op;
        EXPECT_FALSE(ucc::testkit::alg_can_run(s)) << ucc::testkit::describe(s);
        EXPECT_NE(ucc::testkit::run_scenario(s).failure, "") << ucc::testkit::describe(s);
        // Left to the selector, a host algorithm runs them.
        s.alg = "auto";
        s.record_events = true;
        const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
        ASSERT_EQ(o.failure, "") << ucc::testkit::describe(s);
        EXPECT_FALSE(ran(o.run, sharp_number())) << ucc::testkit::describe(s);
    }
}

// The selector: a flat team of one rank per node takes sharp (the reference's
// tl/sharp scores 30), unless CL_BASIC_TLS leaves it out or a TUNE token of
// a higher score names another; a token at the flat score does not.
TEST(Sharp, SelectedOnOneRankPerNode) {
    Scenario s;
    s.n = 6;
    s.count = 5;
    s.network = kSlowSwitch;
    s.record_events = true;
    auto run = [&](const char *what) {
        const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
        EXPECT_EQ(o.failure, "") << what;
        return o;
    };
    ucc::testkit::Outcome o = run("auto");
    EXPECT_TRUE(ran(o.run, sharp_number()));
    EXPECT_GE(o.run.virtual_time_s, 1e-3);
    {
        ScopedEnv tls("UCC_CL_BASIC_TLS", "ucp");
        o = run("CL_BASIC_TLS=ucp");
        EXPECT_FALSE(ran(o.run, sharp_number()));
        EXPECT_LT(o.run.virtual_time_s, 1e-3);
    }
    {
        ScopedEnv tune("UCC_TL_UCP_TUNE", "allreduce:@knomial");
        o = run("TL_UCP_TUNE=allreduce:@knomial");
        EXPECT_TRUE(ran(o.run, sharp_number()));
    }
    {
        ScopedEnv tune("UCC_TL_UCP_TUNE", "allreduce:@knomial:inf");
        o = run("TL_UCP_TUNE=allreduce:@knomial:inf");
        EXPECT_FALSE(ran(o.run, sharp_number()));
        EXPECT_LT(o.run.virtual_time_s, 1e-3);
    }
    // Nodes of two ranks: no flat sharp.
    s.network = "hdr,ppn=2,sharp_lat=1ms";
    o = run("ppn=2");
    EXPECT_FALSE(ran(o.run, sharp_number()));
    EXPECT_LT(o.run.virtual_time_s, 1e-3);
}

// The levels of a hierarchical allreduce: rab's node leaders with
// NODE_LEADERS_SBGP_TLS=ucp,sharp, split_rail's rails with NET_SBGP_TLS;
// CL_HIER_TLS without sharp turns both off. Results against the model.
TEST(Sharp, HierarchicalLevelsReduceInTheNetwork) {
    struct Case {
        const char *alg;
        const char *var;
    };
    constexpr Case kCases[] = {{"rab", "UCC_CL_HIER_NODE_LEADERS_SBGP_TLS"},
                               {"split_rail", "UCC_CL_HIER_NET_SBGP_TLS"}};
    for (const Case &k : kCases) {
        for (int mode = 0; mode < 3; ++mode) {  // default, sharp, sharp but CL_HIER_TLS=ucp
            Scenario s;
            s.alg = k.alg;
            s.n = 9;
            s.count = 7;
            s.dt = UCC_DT_FLOAT64;
            s.op = UCC_OP_AVG;  // the levels reduce with SUM: sharp takes them
            s.network = "hdr,ppn=3,sharp_lat=1ms";
            s.posts = 2;
            s.record_events = true;
            ScopedEnv tls(k.var, mode == 0 ? "ucp" : "ucp,sharp");
            ScopedEnv hier("UCC_CL_HIER_TLS", mode == 2 ? "ucp" : "all");
            const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
            const std::string what = ucc::testkit::describe(s) + " mode " + std::to_string(mode);
            ASSERT_EQ(o.failure, "") << what;
            const ucc::model::Findings f = ucc::model::check_all(o.run.trace);
            EXPECT_TRUE(f.empty()) << what << "\n" << ucc::model::format(f);
            if (mode == 1) {
                EXPECT_GE(o.run.virtual_time_s, 2e-3) << what;  // two posts through the switches
            } else {
                EXPECT_LT(o.run.virtual_time_s, 1e-3) << what;
            }
        }
    }
}
