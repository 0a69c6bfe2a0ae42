// Threads of a simulated rank (sim::run_threads, ucc_sim_run_threads; P47):
// the seed decides the interleaving and replays it; the context's lock keeps
// one thread at a time inside the library; and a program whose threads share
// an ordered team (a user error, ucc#979) is caught by the checkers.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "model/trace.h"
#include "tests/common/workload.h"
#include "transports/sim/cluster.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::sim {
namespace {

// One rank, a THREAD_MULTIPLE context, `threads` threads that each make
// `calls` library calls; returns the order in which the calls were made
// (thread numbers).
std::vector<uint32_t> call_order(uint64_t seed, uint32_t threads, uint32_t calls) {
    std::vector<uint32_t> order;
    ClusterParams p;
    p.seed = seed;
    RunResult res = run(p, [&](uint32_t) {
        ucc_lib_config_h lcfg;
        ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &lcfg), UCC_OK);
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = UCC_THREAD_MULTIPLE;
        ucc_lib_h lib;
        ASSERT_EQ(ucc_init(&lp, lcfg, &lib), UCC_OK);
        ucc_lib_config_release(lcfg);
        ucc_context_params_t cp{};
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        ASSERT_EQ(oob(&cp.oob), UCC_OK);
        ucc_context_h ctx;
        ASSERT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);
        EXPECT_EQ(run_threads(threads,
                              [&](uint32_t t) {
                                  for (uint32_t i = 0; i < calls; ++i) {
                                      ucc_context_attr_t attr{};
                                      attr.mask = UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN;
                                      EXPECT_EQ(ucc_context_get_attr(ctx, &attr), UCC_OK);
                                      order.push_back(t);
                                  }
                              }),
                  UCC_OK);
        EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    return order;
}

TEST(SimThreads, TheSeedDecidesAndReplaysTheInterleaving) {
    std::set<std::vector<uint32_t>> seen;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        const std::vector<uint32_t> a = call_order(seed, 3, 6);
        ASSERT_EQ(a.size(), 18u);
        EXPECT_EQ(call_order(seed, 3, 6), a) << "seed " << seed << " did not replay";
        seen.insert(a);
    }
    // Eight seeds, 3 threads of 6 calls each: they interleave, and differently.
    EXPECT_GE(seen.size(), 6u);
    EXPECT_EQ(seen.count({0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}), 0u);
}

TEST(SimThreads, RunThreadsRefusesWhatItCannotDo) {
    EXPECT_EQ(run_threads(2, [](uint32_t) {}), UCC_ERR_INVALID_PARAM);  // outside a rank
    EXPECT_EQ(ucc_sim_run_threads(
                  2, [](uint32_t, void *) {}, nullptr),
              UCC_ERR_INVALID_PARAM);
    ClusterParams p;
    RunResult res = run(p, [](uint32_t) {
        EXPECT_EQ(run_threads(0, [](uint32_t) {}), UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(ucc_sim_run_threads(1, nullptr, nullptr), UCC_ERR_INVALID_PARAM);
        int ran = 0;
        EXPECT_EQ(run_threads(2,
                              [&](uint32_t) {
                                  ++ran;
                                  // No threads inside a thread.
                                  EXPECT_EQ(run_threads(2, [](uint32_t) {}), UCC_ERR_INVALID_PARAM);
                              }),
                  UCC_OK);
        EXPECT_EQ(ran, 2);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

// Two threads per rank each post collectives on one shared ordered team: the
// order in which a rank's posts reach the team depends on the interleaving,
// so ranks disagree about which collective is the k-th. The harness must
// notice (a desync report, wrong data, a hang, or a P18/P44 finding) for some
// seed; the same program with one team per thread is clean for every seed
// (TraceProps.Threads).
TEST(SimThreads, ThreadsSharingAnOrderedTeamAreCaught) {
    uint32_t caught = 0;
    std::string first;
    for (uint64_t seed = 1; seed <= 30 && caught == 0; ++seed) {
        testkit::Workload w;
        w.n = 3;
        w.seed = seed;
        w.threads = 2;
        w.share_teams = true;
        w.teams.push_back(testkit::WorkloadTeam{{0, 1, 2}, false, false});
        const ucc_coll_type_t types[] = {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_BCAST,
                                         UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLTOALL};
        for (uint32_t i = 0; i < 4; ++i) {
            testkit::WorkloadOp op;
            op.coll.type = types[i];
            op.coll.n = 3;
            op.coll.count = 4 + i;
            op.coll.seed = seed * 10 + i;
            // Mismatched posts time out instead of hanging, so every rank
            // still finalizes and tears down (nothing leaks).
            op.timeout = 1e-3;
            w.ops.push_back(op);
        }
        const testkit::WorkloadOutcome out = testkit::run_workload(w);
        const model::Findings f = model::check_all(out.run.trace);
        if (!out.failure.empty() || !f.empty()) {
            ++caught;
            first = "seed " + std::to_string(seed) + ": " +
                    (out.failure.empty() ? model::format(f) : out.failure);
        }
    }
    EXPECT_GT(caught, 0u) << "no seed made the threads' posts disagree";
    std::printf("caught: %s\n", first.substr(0, 300).c_str());
}

}  // namespace
}  // namespace ucc::sim
