// Regression: ucc_context_destroy refused (UCC_ERR_INVALID_PARAM, "teams still
// use this context") while a team was alive, and ucc_finalize then refused
// too. Open MPI's coll/ucc destroys its context and library at MPI_Finalize,
// from the delete callback of MPI_COMM_WORLD's attribute, while communicators
// the program never freed still hold their teams; it ignores both statuses,
// so every rank printed two errors and leaked its UCX context. An idle team
// now goes down with its context (its handle a tombstone until ucc_finalize);
// a team with unfinalized requests still keeps it. Found by
// tests/mp/ompi_coll_ucc.c --leave-comm.
//
// The ranks do what coll/ucc does: a context with only an OOB (no TYPE), the
// world team with a FULL ep map and id 0, two disjoint halves with a CB map
// and one shared id (both halves of a split get the same context id), an
// allreduce on each, the world team destroyed, a half left alive.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 4;

struct Outcome {
    ucc_status_t setup = UCC_ERR_LAST;
    int64_t world_sum = -1;
    int64_t half_sum = -1;
    ucc_status_t context_destroy = UCC_ERR_LAST;
    ucc_status_t late_team_destroy = UCC_ERR_LAST;
    ucc_status_t finalize = UCC_ERR_LAST;
};

std::vector<Outcome> g_out(kRanks);

// Half h holds world ranks h, h + 2: team rank i is world rank 2i + h.
uint64_t half_map(uint64_t ep, void *cb_ctx) {
    return 2 * ep + *static_cast<const uint32_t *>(cb_ctx);
}

ucc_status_t team_of(ucc_context_h ctx, const ucc_team_params_t &tp, ucc_team_h *team) {
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, team);
    while (st == UCC_OK && (st = ucc_team_create_test(*team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_status_t allreduce_sum(ucc_context_h ctx, ucc_team_h team, int64_t mine, int64_t *sum) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.src.info = {&mine, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_UNKNOWN};
    a.dst.info = {sum, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_UNKNOWN};
    a.op = UCC_OP_SUM;
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(&a, &req, team);
    if (st == UCC_OK && (st = ucc_collective_post(req)) == UCC_OK) {
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
    }
    if (req != nullptr) {
        ucc_collective_finalize(req);
    }
    return st;
}

ucc_status_t run_rank(uint32_t rank, Outcome *o) {
    ucc_lib_config_h lc = nullptr;
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h world = nullptr;
    ucc_team_h half = nullptr;
    ucc_status_t st = ucc_lib_config_read("OMPI", nullptr, &lc);
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
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP |
              UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_ID;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = kRanks;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    tp.id = 0;
    if ((st = team_of(ctx, tp, &world)) != UCC_OK ||
        (st = allreduce_sum(ctx, world, rank, &o->world_sum)) != UCC_OK) {
        return st;
    }
    uint32_t h = rank % 2;
    tp.ep_map.type = UCC_EP_MAP_CB;
    tp.ep_map.ep_num = kRanks / 2;
    tp.ep_map.cb.cb = half_map;
    tp.ep_map.cb.cb_ctx = &h;
    tp.ep = rank / 2;
    tp.id = 3;
    if ((st = team_of(ctx, tp, &half)) != UCC_OK ||
        (st = allreduce_sum(ctx, half, rank, &o->half_sum)) != UCC_OK ||
        (st = ucc_team_destroy(world)) != UCC_OK) {
        return st;
    }
    o->setup = UCC_OK;
    // MPI_Finalize with the half's communicator never freed.
    o->context_destroy = ucc_context_destroy(ctx);
    o->late_team_destroy = ucc_team_destroy(half);
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

TEST(Regress, ContextDestroyTakesLiveTeamsDown) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = kRanks;
    p.seed = 7;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, nullptr), UCC_OK);
    for (uint32_t r = 0; r < kRanks; ++r) {
        const Outcome &o = g_out[r];
        ASSERT_EQ(o.setup, UCC_OK) << "rank " << r << ": " << ucc_status_string(o.setup);
        EXPECT_EQ(o.world_sum, 0 + 1 + 2 + 3) << "rank " << r;
        EXPECT_EQ(o.half_sum, r % 2 == 0 ? 0 + 2 : 1 + 3) << "rank " << r;
        EXPECT_EQ(o.context_destroy, UCC_OK) << "rank " << r;
        EXPECT_EQ(o.late_team_destroy, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.finalize, UCC_OK) << "rank " << r;
    }
}
