// Ranks without a fiber (UCC_SIM_FLAG_FIBERLESS): a program in
// completion-callback style runs its start on the simulator's stack, goes on
// in collective callbacks and ucc_sim_on_progress hooks, and never waits.
// Checked: results and statuses over several sizes; the same run (trace
// hash, virtual time) as the same calls made by a program with a fiber that
// waits in test-and-progress loops; no switch to a rank stack; timeouts,
// crashed peers, a hook that never completes (a deadlock report, not a
// hang), and the calls a rank without a fiber cannot make.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Shared;

// One rank's program, as a state machine driven by callbacks and hooks.
struct Rank {
    Shared *sh = nullptr;
    uint32_t me = 0;
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    ucc_coll_req_h req = nullptr;
    uint32_t done = 0;  // collectives completed
    std::vector<int64_t> src;
    std::vector<int64_t> dst;
};

enum class Variant { kPlain, kTimeout, kHookNeverDone };

struct Shared {
    uint32_t n = 0;
    uint32_t iters = 3;
    size_t count = 5;
    Variant variant = Variant::kPlain;
    bool refusals = false;  // rank 0 first tries what a rank without a fiber cannot do
    std::vector<std::unique_ptr<Rank>> ranks;
    uint64_t wrong = 0;      // results that differ from the expected sums
    uint64_t failed = 0;     // ranks whose lifecycle failed
    uint64_t timed_out = 0;  // collectives that ended in UCC_ERR_TIMED_OUT
    uint64_t finished = 0;   // ranks that tore down cleanly
    ucc_status_t ctx_with_oob = UCC_OK;
    ucc_status_t threads = UCC_OK;
};

void fail(Rank *r) {
    r->sh->failed++;
    ucc_sim_exit();
}

ucc_status_t teardown(void *arg) {
    auto *r = static_cast<Rank *>(arg);
    if (r->team != nullptr) {
        const ucc_status_t st = ucc_team_destroy(r->team);
        if (st == UCC_INPROGRESS) {
            return st;
        }
        r->team = nullptr;
    }
    if (ucc_context_destroy(r->ctx) != UCC_OK || ucc_finalize(r->lib) != UCC_OK) {
        r->sh->failed++;
        return UCC_OK;
    }
    r->sh->finished++;
    return UCC_OK;
}

void post_next(Rank *r);

void on_done(void *data, ucc_status_t status) {
    auto *r = static_cast<Rank *>(data);
    Shared &sh = *r->sh;
    ucc_collective_finalize(r->req);
    r->req = nullptr;
    if (status == UCC_ERR_TIMED_OUT) {
        sh.timed_out++;
        ucc_sim_on_progress(teardown, r);
        return;
    }
    if (status != UCC_OK) {
        fail(r);
        return;
    }
    for (size_t i = 0; i < sh.count; ++i) {
        // sum over ranks q of (q + 1 + i + done)
        const int64_t want = static_cast<int64_t>(sh.n) * (sh.n + 1) / 2 +
                             static_cast<int64_t>(sh.n) * static_cast<int64_t>(i + r->done);
        sh.wrong += r->dst[i] != want ? 1 : 0;
    }
    r->done++;
    post_next(r);
}

void post_next(Rank *r) {
    Shared &sh = *r->sh;
    if (r->done == sh.iters) {
        ucc_sim_on_progress(teardown, r);
        return;
    }
    if (sh.variant == Variant::kTimeout && r->me == 1) {
        ucc_sim_on_progress(teardown, r);  // never joins: the others time out
        return;
    }
    for (size_t i = 0; i < sh.count; ++i) {
        r->src[i] = static_cast<int64_t>(r->me + 1 + i + r->done);
        r->dst[i] = -1;
    }
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_CB;
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {r->src.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {r->dst.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.cb.cb = on_done;
    a.cb.data = r;
    if (sh.variant == Variant::kTimeout) {
        a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
        a.timeout = 1e-3;
    }
    if (ucc_collective_init(&a, &r->req, r->team) != UCC_OK ||
        ucc_collective_post(r->req) != UCC_OK) {
        fail(r);
    }
}

ucc_status_t team_ready(void *arg) {
    auto *r = static_cast<Rank *>(arg);
    const ucc_status_t st = ucc_team_create_test(r->team);
    if (st == UCC_INPROGRESS) {
        return st;
    }
    if (st != UCC_OK) {
        fail(r);
        return UCC_OK;
    }
    post_next(r);
    return UCC_OK;
}

ucc_status_t never_done(void *) {
    return UCC_INPROGRESS;
}

void start(void *arg) {
    auto &sh = *static_cast<Shared *>(arg);
    auto *r = sh.ranks[ucc_sim_rank()].get();
    r->sh = &sh;
    r->me = ucc_sim_rank();
    r->src.resize(sh.count);
    r->dst.resize(sh.count);
    ucc_lib_config_h lcfg = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK ||
        ucc_init(&lp, lcfg, &r->lib) != UCC_OK) {
        fail(r);
        return;
    }
    ucc_lib_config_release(lcfg);
    ucc_context_params_t cp{};
    if (r->me == 0 && sh.refusals) {
        // A context over an OOB would have to wait for the others.
        ucc_context_params_t with_oob{};
        with_oob.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        ucc_sim_oob(&with_oob.oob);
        ucc_context_h c = nullptr;
        sh.ctx_with_oob = ucc_context_create(r->lib, &with_oob, nullptr, &c);
        sh.threads = ucc_sim_run_threads(
            2, [](uint32_t, void *) {}, nullptr);
    }
    if (ucc_context_create(r->lib, &cp, nullptr, &r->ctx) != UCC_OK) {
        fail(r);
        return;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    ucc_sim_oob(&tp.oob);
    tp.ep = r->me;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_team_create_post(&r->ctx, 1, &tp, &r->team) != UCC_OK) {
        fail(r);
        return;
    }
    ucc_sim_on_progress(team_ready, r);
    if (sh.variant == Variant::kHookNeverDone && r->me == sh.n - 1) {
        ucc_sim_on_progress(never_done, nullptr);
    }
}

// The same calls from a rank with a fiber, waiting in test-and-progress loops.
void start_with_fiber(void *arg) {
    auto &sh = *static_cast<Shared *>(arg);
    Rank r;
    r.sh = &sh;
    r.me = ucc_sim_rank();
    r.src.resize(sh.count);
    r.dst.resize(sh.count);
    ucc_lib_config_h lcfg = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_context_params_t cp{};
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    ucc_sim_oob(&tp.oob);
    tp.ep = r.me;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK ||
        ucc_init(&lp, lcfg, &r.lib) != UCC_OK) {
        sh.failed++;
        return;
    }
    ucc_lib_config_release(lcfg);
    if (ucc_context_create(r.lib, &cp, nullptr, &r.ctx) != UCC_OK ||
        ucc_team_create_post(&r.ctx, 1, &tp, &r.team) != UCC_OK) {
        sh.failed++;
        return;
    }
    ucc_status_t st;
    while ((st = ucc_team_create_test(r.team)) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    for (uint32_t k = 0; st == UCC_OK && k < sh.iters; ++k) {
        for (size_t i = 0; i < sh.count; ++i) {
            r.src[i] = static_cast<int64_t>(r.me + 1 + i + k);
        }
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {r.src.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {r.dst.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        st = ucc_collective_init(&a, &req, r.team);
        if (st == UCC_OK && (st = ucc_collective_post(req)) == UCC_OK) {
            while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                ucc_context_progress(r.ctx);
            }
        }
        if (req != nullptr) {
            ucc_collective_finalize(req);
        }
    }
    while (ucc_team_destroy(r.team) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    ucc_context_destroy(r.ctx);
    ucc_finalize(r.lib);
    if (st == UCC_OK) {
        sh.finished++;
    } else {
        sh.failed++;
    }
}

struct Outcome {
    ucc_status_t status = UCC_ERR_LAST;
    uint64_t hash = 0;
    double time = 0;
    uint64_t resumes = 0;
};

Outcome run(Shared *sh, uint32_t n, bool fiberless, const char *faults = nullptr) {
    sh->n = n;
    sh->ranks.clear();
    for (uint32_t r = 0; r < n; ++r) {
        sh->ranks.push_back(std::make_unique<Rank>());
    }
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS |
             UCC_SIM_PARAM_FIELD_NETWORK;
    p.n_ranks = n;
    p.seed = 11;
    p.network = "hdr,jitter=40ns";
    p.flags = UCC_SIM_FLAG_QUIET | (fiberless ? UCC_SIM_FLAG_FIBERLESS : 0);
    if (faults != nullptr) {
        p.mask |= UCC_SIM_PARAM_FIELD_FAULTS;
        p.faults = faults;
    }
    Outcome o;
    o.status = ucc_sim_run(&p, fiberless ? start : start_with_fiber, sh);
    o.hash = ucc_sim_trace_hash();
    o.time = ucc_sim_last_time();
    o.resumes = ucc_sim_last_resumes();
    return o;
}

TEST(SimFiberless, CallbackProgramsGetRightResultsWithoutAStackSwitch) {
    for (uint32_t n : {1u, 2u, 7u, 64u}) {
        SCOPED_TRACE("n=" + std::to_string(n));
        Shared sh;
        sh.refusals = true;
        const Outcome o = run(&sh, n, true);
        EXPECT_EQ(o.status, UCC_OK);
        EXPECT_EQ(sh.wrong, 0u);
        EXPECT_EQ(sh.failed, 0u);
        EXPECT_EQ(sh.finished, n);
        EXPECT_EQ(o.resumes, 0u);
        EXPECT_GT(o.time, 0);
        // What a rank without a fiber cannot do is refused, not hung.
        EXPECT_EQ(sh.ctx_with_oob, UCC_ERR_NOT_SUPPORTED);
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

TEST(SimFiberless, PeersOfACrashedRankFailInTheirCallbacks) {
    Shared sh;
    sh.iters = 1000;
    const Outcome o = run(&sh, 8, true, "crash=3@2e-5,detect=1e-6");
    EXPECT_EQ(o.status, UCC_OK);
    EXPECT_EQ(sh.wrong, 0u);
    EXPECT_EQ(sh.failed, 7u);  // every survivor's collective failed, none hung
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
