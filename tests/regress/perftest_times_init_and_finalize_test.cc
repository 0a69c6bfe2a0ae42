// ucc_perftest's per-iteration time spans each iteration's init, post, wait
// and finalize, as the reference's ucc_perftest times them
// (run_single_coll_test); a persistent request's init is outside, its
// post to completion inside. It used to time post and wait alone.
//
// The test's init and finalize add 1 s and 2 s to a rank's own clock (the
// simulator's virtual time plus what they added), so an iteration that
// spans them takes over 3 s, one that does not well under 1 s; both
// sweeps, the fibered (run_sweep) and the callback one (ucc_sim
// --fiberless).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/perf/lifecycle.h"
#include "tools/perf/report.h"
#include "tools/perf/sweep.h"
#include "tools/perf/sweep_callbacks.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using namespace ucc::perf;

constexpr uint32_t kRanks = 3;

// Seconds the test's init and finalize added to each rank's clock.
std::vector<double> g_added;

double test_now() {
    return ucc_sim_now() + g_added[ucc_sim_rank()];
}

ucc_status_t slow_init(ucc_coll_args_t *args, ucc_coll_req_h *req, ucc_team_h team) {
    g_added[ucc_sim_rank()] += 1;
    return ucc_collective_init(args, req, team);
}

ucc_status_t slow_finalize(ucc_coll_req_h req) {
    g_added[ucc_sim_rank()] += 2;
    return ucc_collective_finalize(req);
}

const char *last_algorithm(ucc_coll_req_h) {
    return ucc_sim_last_algorithm();
}

struct Run {
    SweepPlan plan;
    std::unique_ptr<Results> results;
    Failures failures;
    std::vector<std::unique_ptr<CallbackSweep>> sweeps;
};

SweepWorld world() {
    SweepWorld w;
    w.rank = ucc_sim_rank();
    w.size = ucc_sim_size();
    w.now = test_now;
    w.algorithm = last_algorithm;
    w.shared = true;
    w.init = slow_init;
    w.finalize = slow_finalize;
    return w;
}

RankSetup setup() {
    RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    return s;
}

void fibered_rank(void *arg) {
    auto *run = static_cast<Run *>(arg);
    const SweepWorld w = world();
    Lifecycle lc;
    std::string err = lc.setup(setup());
    if (err.empty()) {
        err = run_sweep(run->plan, w, lc.team, lc.ctx, run->results.get(), nullptr);
    }
    const std::string down = lc.teardown();
    if (!err.empty() || !down.empty()) {
        run->failures.note(w.rank, err + down);
    }
}

void callback_rank(void *arg) {
    auto *run = static_cast<Run *>(arg);
    const SweepWorld w = world();
    run->sweeps[w.rank] = std::make_unique<CallbackSweep>(run->plan, w, setup(), run->results.get(),
                                                          nullptr, &run->failures);
    run->sweeps[w.rank]->start();
}

// The mean microseconds per iteration of an 8-element allreduce.
double mean_us(bool persistent, bool fiberless) {
    g_added.assign(kRanks, 0);
    Run run;
    run.plan.spec.coll = find_coll("allreduce");
    run.plan.spec.dtype = find_dtype("int32");
    run.plan.spec.op = find_op("sum");
    run.plan.spec.persistent = persistent;
    run.plan.counts = {8};
    run.plan.warmup_small = 1;
    run.plan.iters_small = 4;
    run.plan.per_iteration = true;
    run.results = std::make_unique<Results>(run.plan, kRanks);
    run.sweeps.resize(kRanks);
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = kRanks;
    p.flags = UCC_SIM_FLAG_QUIET | (fiberless ? UCC_SIM_FLAG_FIBERLESS : 0);
    EXPECT_EQ(ucc_sim_run(&p, fiberless ? callback_rank : fibered_rank, &run), UCC_OK);
    EXPECT_EQ(run.failures.ranks, 0u) << run.failures.first;
    RunInfo info;
    info.ranks = kRanks;
    const std::vector<Row> rows = rows_of(run.plan, *run.results, info);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? 0 : rows[0].avg_us;
}

TEST(Regress, PerftestTimesInitAndFinalizeOfEachIteration) {
    for (const bool fiberless : {false, true}) {
        const char *sweep = fiberless ? "callback sweep" : "fibered sweep";
        EXPECT_GT(mean_us(false, fiberless), 3e6) << sweep << ": init and finalize inside";
        EXPECT_LT(mean_us(true, fiberless), 1e6) << sweep << ": a persistent init outside";
    }
}

}  // namespace
