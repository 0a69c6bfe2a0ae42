// Ranks without a fiber (UCC_SIM_FLAG_FIBERLESS): a program in
// completion-callback style runs its start on the simulator's stack, goes on
// in collective callbacks and ucc_sim_on_progress hooks, and never waits.
// Checked: results and statuses over several sizes; the same run (trace
// hash, virtual time) as the same calls made by a program with a fiber that
// waits in test-and-progress loops; no switch to a rank stack; timeouts, a
// hook that never completes (a deadlock report, not a hang), and the calls a
// rank without a fiber cannot make. Crashed peers: tests/faults.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/common/sim_fiberless_program.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using namespace ucc::testkit::fiberless;

// Every one of the n ranks got every sum right and tore down cleanly.
void expect_every_rank_right(const Shared &sh, const Outcome &o, uint32_t n) {
    EXPECT_EQ(o.status, UCC_OK);
    EXPECT_EQ(sh.wrong, 0u);
    EXPECT_EQ(sh.failed, 0u);
    EXPECT_EQ(sh.finished, n);
}

TEST(SimFiberless, CallbackProgramsGetRightResultsWithoutAStackSwitch) {
    for (uint32_t n : {1u, 2u, 7u, 64u}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        Shared sh;
        sh.refusals = true;
        const Outcome o = run(&sh, n, true);
        expect_every_rank_right(sh, o, n);
        EXPECT_EQ(o.resumes, 0u);
        EXPECT_GT(o.time, 0);
        // What a rank without a fiber cannot do is refused, not hung (an OOB
        // of one member needs no exchange).
        EXPECT_EQ(sh.ctx_with_oob, n == 1 ? UCC_OK : UCC_ERR_NOT_SUPPORTED);
        EXPECT_EQ(sh.threads, UCC_ERR_INVALID_PARAM);
    }
}

TEST(SimFiberless, SameRunAsTheSameCallsFromAFiber) {
    for (uint32_t n : {2u, 7u, 64u}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        Shared a;
        const Outcome callbacks = run(&a, n, true);
        Shared b;
        const Outcome fibers = run(&b, n, false);
        ASSERT_EQ(callbacks.status, UCC_OK);
        ASSERT_EQ(fibers.status, UCC_OK);
        EXPECT_EQ(b.finished, n);
        EXPECT_EQ(callbacks.hash, fibers.hash);
        EXPECT_EQ(callbacks.time, fibers.time);
        EXPECT_GT(fibers.resumes, 0u);
        Shared c;
        EXPECT_EQ(run(&c, n, true).hash, callbacks.hash) << "not deterministic";
    }
}

// A context over the simulator's OOB cannot be waited for without a fiber:
// it is returned at once and learns its peers in later passes, and a team
// posted on it meanwhile waits for that, then resolves its ep map. The run is
// that of a program with fibers whose ucc_context_create waits.
TEST(SimFiberless, AContextOverTheOobJoinsInLaterPasses) {
    for (Wiring wiring : {Wiring::kContextOob, Wiring::kContextOobArray}) {
        for (uint32_t n : {1u, 2u, 7u, 64u}) {
            SCOPED_TRACE("n=" + std::to_string(n) +
                         (wiring == Wiring::kContextOobArray ? " array" : " full"));
            Shared a;
            a.wiring = wiring;
            const Outcome callbacks = run(&a, n, true);
            expect_every_rank_right(a, callbacks, n);
            EXPECT_EQ(callbacks.resumes, 0u);
            Shared b;
            b.wiring = wiring;
            const Outcome fibers = run(&b, n, false);
            ASSERT_EQ(fibers.status, UCC_OK);
            EXPECT_EQ(b.finished, n);
            EXPECT_EQ(callbacks.hash, fibers.hash);
            EXPECT_EQ(callbacks.time, fibers.time);
        }
    }
}

// A context destroyed while it still joins gives its exchange up: the
// others' exchange completes without it, nothing is left behind (the
// sanitized build checks for leaks), and the next context joins.
TEST(SimFiberless, AContextDestroyedWhileItJoinsGivesItsExchangeUp) {
    Shared sh;
    sh.wiring = Wiring::kContextOob;
    sh.abandon_first_context = true;
    expect_every_rank_right(sh, run(&sh, 7, true), 7);
}

TEST(SimFiberless, TimeoutsFireWithoutAFiberWaitingForThem) {
    Shared sh;
    sh.variant = Variant::kTimeout;
    const Outcome o = run(&sh, 4, true);
    EXPECT_EQ(o.status, UCC_OK);
    EXPECT_EQ(sh.timed_out, 3u);  // every rank but the one that never joined
    EXPECT_EQ(sh.finished, 4u);
    EXPECT_GE(o.time, 1e-3);
    EXPECT_LT(o.time, 2e-3);
}

TEST(SimFiberless, AHookThatNeverCompletesIsADeadlockReport) {
    Shared sh;
    sh.variant = Variant::kHookNeverDone;
    testing::internal::CaptureStderr();
    const Outcome o = run(&sh, 4, true);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(o.status, UCC_ERR_NO_MESSAGE);
    EXPECT_NE(err.find("DEADLOCK"), std::string::npos) << err;
    EXPECT_NE(err.find("rank 3 (local time"), std::string::npos) << err;
    EXPECT_NE(err.find("waits in 1 progress hook(s)"), std::string::npos) << err;
    EXPECT_EQ(sh.wrong, 0u);
    EXPECT_EQ(sh.finished, 4u);  // the hook's rank tore down too; only its hook hung
}

TEST(SimFiberless, OnProgressOutsideAFiberlessRankIsRefused) {
    EXPECT_EQ(ucc_sim_on_progress(never_done, nullptr), UCC_ERR_INVALID_PARAM);
    Shared sh;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = 2;
    p.flags = UCC_SIM_FLAG_QUIET;
    static ucc_status_t in_fiber;
    in_fiber = UCC_OK;
    ASSERT_EQ(ucc_sim_run(
                  &p, [](void *) { in_fiber = ucc_sim_on_progress(never_done, nullptr); }, &sh),
              UCC_OK);
    EXPECT_EQ(in_fiber, UCC_ERR_INVALID_PARAM);
    p.flags |= UCC_SIM_FLAG_FIBERLESS;
    ASSERT_EQ(ucc_sim_run(
                  &p, [](void *) { in_fiber = ucc_sim_on_progress(nullptr, nullptr); }, &sh),
              UCC_OK);
    EXPECT_EQ(in_fiber, UCC_ERR_INVALID_PARAM);
}

}  // namespace
