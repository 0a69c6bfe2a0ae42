// Regression: on a simulated rank with two threads (UCC_THREAD_MULTIPLE),
// thread 0 tests its request (in progress), then calls progress; while it
// waited for the context's lock, thread 1's progress completed that very
// request. Thread 0's pass then found nothing to do and idled until the
// rank's next network event, which never came once thread 1 had returned:
// a deadlock no real thread can have (a real progress call never blocks).
// A thread that finds the context's completions moved on while it waited
// for the lock now returns from progress instead (lib/core/api_context.cc,
// Context::lock). Triggered posts made it frequent: the trigger and the
// collective can both run inside the other thread's call.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Shared {
    std::vector<std::string> errors;
};

struct Rank {
    Shared *sh = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    ucc_ee_h ee = nullptr;
    bool done = false;
};

void fail(Shared &sh, const std::string &what) {
    if (sh.errors[ucc_sim_rank()].empty()) {
        sh.errors[ucc_sim_rank()] = what;
    }
}

void thread_main(uint32_t thread, void *arg) {
    Rank &r = *static_cast<Rank *>(arg);
    if (thread == 1) {
        // Helps with progress until thread 0 is done (bounded).
        for (int i = 0; i < 100000 && !r.done; ++i) {
            ucc_context_progress(r.ctx);
        }
        return;
    }
    for (int round = 0; round < 4; ++round) {
        int64_t src = ucc_sim_rank() + round, dst = -1;
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {&src, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {&dst, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        if (ucc_collective_init(&a, &req, r.team) != UCC_OK) {
            fail(*r.sh, "init");
            break;
        }
        ucc_ev_t ev{UCC_EVENT_COMPUTE_COMPLETE, nullptr, 0, req};
        if (round % 2 == 0) {
            ucc_collective_triggered_post(r.ee, &ev);
            ucc_ee_set_event(r.ee, &ev);
        } else {
            ucc_collective_post(req);
        }
        ucc_status_t st = ucc_collective_test(req);
        for (int i = 0; i < 100000 && (st == UCC_INPROGRESS || st == UCC_OPERATION_INITIALIZED);
             ++i) {
            ucc_context_progress(r.ctx);
            st = ucc_collective_test(req);
        }
        if (st != UCC_OK || dst != 1 + 2 * round) {
            fail(*r.sh, "round " + std::to_string(round) + ": " + ucc_status_string(st));
        }
        ucc_collective_finalize(req);
        ucc_ev_t *out = nullptr;
        while (ucc_ee_get_event(r.ee, &out) == UCC_OK) {
            ucc_ee_ack_event(r.ee, out);
        }
    }
    r.done = true;
}

void rank_main(void *arg) {
    Shared &sh = *static_cast<Shared *>(arg);
    Rank r;
    r.sh = &sh;
    ucc_lib_config_h lc = nullptr;
    ucc_lib_h lib = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_MULTIPLE;
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_OOB;
    tp.ep = ucc_sim_rank();
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_ee_params_t ep{};
    ep.ee_type = UCC_EE_CPU_THREAD;
    if (ucc_lib_config_read(nullptr, nullptr, &lc) != UCC_OK || ucc_init(&lp, lc, &lib) != UCC_OK ||
        ucc_sim_oob(&cp.oob) != UCC_OK || ucc_context_create(lib, &cp, nullptr, &r.ctx) != UCC_OK ||
        ucc_sim_oob(&tp.oob) != UCC_OK || ucc_team_create_post(&r.ctx, 1, &tp, &r.team) != UCC_OK) {
        fail(sh, "setup");
        return;
    }
    ucc_lib_config_release(lc);
    while (ucc_team_create_test(r.team) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    if (ucc_ee_create(r.team, &ep, &r.ee) != UCC_OK ||
        ucc_sim_run_threads(2, thread_main, &r) != UCC_OK) {
        fail(sh, "threads");
    }
    ucc_ee_destroy(r.ee);
    while (ucc_team_destroy(r.team) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    ucc_context_destroy(r.ctx);
    ucc_finalize(lib);
}

TEST(Regress, SimulatedThreadDoesNotIdleAfterAnotherCompletedItsRequest) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        Shared sh;
        sh.errors.assign(2, "");
        ucc_sim_params_t p{};
        p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED |
                 UCC_SIM_PARAM_FIELD_NETWORK | UCC_SIM_PARAM_FIELD_FLAGS;
        p.n_ranks = 2;
        p.seed = seed;
        p.network = "hdr";
        p.flags = UCC_SIM_FLAG_QUIET;
        ASSERT_EQ(ucc_sim_run(&p, rank_main, &sh), UCC_OK) << "seed " << seed;
        EXPECT_EQ(sh.errors, std::vector<std::string>(2, "")) << "seed " << seed;
    }
}

}  // namespace
