// Regression: a collective that could never complete (no timeout, and a peer
// that posted something else) could not be given up. Its finalize, the
// team's and the context's destroy and ucc_finalize all returned
// UCC_ERR_INVALID_PARAM, so the program could not clean up (found over real
// processes: a peer stalled for 30 s). Now destroying the team or the context
// cancels the collectives still in progress (UCC_ERR_CANCELED), their
// requests stay valid until finalized, and everything returns UCC_OK.
//
// Two ranks post different collectives under one sequence number (an
// allreduce and a bcast: their messages never match) and tear down: rank 0
// through ucc_team_destroy, rank 1 through ucc_context_destroy with the team
// still alive and the request finalized only after the context is gone.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 2;

struct Outcome {
    ucc_status_t setup = UCC_ERR_LAST;
    ucc_status_t before = UCC_ERR_LAST;  // the request's status before teardown
    ucc_status_t destroy = UCC_ERR_LAST;
    ucc_status_t after = UCC_ERR_LAST;  // its status after
    ucc_status_t callback = UCC_ERR_LAST;
    ucc_status_t finalize_req = UCC_ERR_LAST;
    ucc_status_t context_destroy = UCC_ERR_LAST;
    ucc_status_t finalize = UCC_ERR_LAST;
};

std::vector<Outcome> g_out(kRanks);

void on_done(void *data, ucc_status_t st) {
    static_cast<Outcome *>(data)->callback = st;
}

ucc_status_t run_rank(uint32_t rank, Outcome *o) {
    ucc_lib_config_h lc = nullptr;
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lc);
    if (st != UCC_OK) {
        return st;
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    st = ucc_init(&lp, lc, &lib);
    ucc_lib_config_release(lc);
    if (st != UCC_OK) {
        return st;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    if ((st = ucc_sim_oob(&cp.oob)) != UCC_OK ||
        (st = ucc_context_create(lib, &cp, nullptr, &ctx)) != UCC_OK) {
        return st;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    if ((st = ucc_sim_oob(&tp.oob)) != UCC_OK) {
        return st;
    }
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    st = ucc_team_create_post(&ctx, 1, &tp, &team);
    while (st == UCC_OK && (st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    if (st != UCC_OK) {
        return st;
    }
    int64_t src[4] = {1, 2, 3, 4};
    int64_t dst[4] = {};
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_CB;
    a.cb.cb = on_done;
    a.cb.data = o;
    if (rank == 0) {
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.src.info = {src, 4, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst, 4, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.op = UCC_OP_SUM;
    } else {
        a.coll_type = UCC_COLL_TYPE_BCAST;
        a.root = 0;
        a.src.info = {src, 4, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    }
    ucc_coll_req_h req = nullptr;
    if ((st = ucc_collective_init(&a, &req, team)) != UCC_OK ||
        (st = ucc_collective_post(req)) != UCC_OK) {
        return st;
    }
    // (No progress here: on the simulator two ranks idle in progress with
    // nothing to match would be a deadlock the simulator reports.)
    o->setup = UCC_OK;
    o->before = ucc_collective_test(req);
    if (rank == 0) {
        o->destroy = ucc_team_destroy(team);
        o->after = ucc_collective_test(req);
        o->finalize_req = ucc_collective_finalize(req);
        o->context_destroy = ucc_context_destroy(ctx);
    } else {
        o->destroy = ucc_context_destroy(ctx);  // the team goes down with it
        o->after = ucc_collective_test(req);
        o->context_destroy = o->destroy;
        o->finalize_req = ucc_collective_finalize(req);
    }
    o->finalize = ucc_finalize(lib);
    return UCC_OK;
}

void rank_main(void *) {
    uint32_t rank = ucc_sim_rank();
    ucc_status_t st = run_rank(rank, &g_out[rank]);
    if (st != UCC_OK) {
        g_out[rank].setup = st;
    }
}

}  // namespace

TEST(Regress, TeardownCancelsCollectivesInProgress) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = kRanks;
    p.seed = 11;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, nullptr), UCC_OK);
    for (uint32_t r = 0; r < kRanks; ++r) {
        const Outcome &o = g_out[r];
        ASSERT_EQ(o.setup, UCC_OK) << "rank " << r << ": " << ucc_status_string(o.setup);
        EXPECT_EQ(o.before, UCC_INPROGRESS) << "rank " << r;
        EXPECT_EQ(o.destroy, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.after, UCC_ERR_CANCELED) << "rank " << r;
        EXPECT_EQ(o.callback, UCC_ERR_CANCELED) << "rank " << r;
        EXPECT_EQ(o.finalize_req, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.context_destroy, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.finalize, UCC_OK) << "rank " << r;
    }
}
