// Regression: a call on a destroyed context's handle (or on a team of that
// context) crashed when error lines were enabled: its log line read the time
// from the context's transport, which ucc_context_destroy had released. P36
// wants UCC_ERR_INVALID_PARAM; the probes that check it ran with logging off.
// Found when ucc_context_destroy began to take live teams down
// (context_destroy_live_team_test.cc) and a unit test called
// ucc_team_destroy on such a team with the default log level.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 2;

struct Outcome {
    ucc_status_t setup = UCC_ERR_LAST;
    ucc_status_t progress = UCC_ERR_LAST;
    ucc_status_t get_attr = UCC_ERR_LAST;
    ucc_status_t team_destroy = UCC_ERR_LAST;
    ucc_status_t context_destroy = UCC_ERR_LAST;
};

std::vector<Outcome> g_out(kRanks);

ucc_status_t run_rank(uint32_t rank, Outcome *o) {
    ucc_lib_config_h lc = nullptr;
    ucc_lib_h lib = nullptr;
    ucc_context_config_h cc = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lc);
    if (st != UCC_OK) {
        return st;
    }
    ucc_lib_params_t lp{};
    st = ucc_init(&lp, lc, &lib);
    ucc_lib_config_release(lc);
    if (st != UCC_OK || (st = ucc_context_config_read(lib, nullptr, &cc)) != UCC_OK) {
        return st;
    }
    // Error lines on, whatever the environment says.
    if ((st = ucc_context_config_modify(cc, nullptr, "LOG_LEVEL", "ERROR")) != UCC_OK) {
        return st;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    if ((st = ucc_sim_oob(&cp.oob)) == UCC_OK) {
        st = ucc_context_create(lib, &cp, cc, &ctx);
    }
    ucc_context_config_release(cc);
    if (st != UCC_OK) {
        return st;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = kRanks;
    tp.ep = rank;
    if ((st = ucc_team_create_post(&ctx, 1, &tp, &team)) != UCC_OK) {
        return st;
    }
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    if (st != UCC_OK || (st = ucc_team_destroy(team)) != UCC_OK ||
        (st = ucc_context_destroy(ctx)) != UCC_OK) {
        return st;
    }
    o->setup = UCC_OK;
    o->progress = ucc_context_progress(ctx);
    ucc_context_attr_t ca{};
    ca.mask = UCC_CONTEXT_ATTR_FIELD_TYPE;
    o->get_attr = ucc_context_get_attr(ctx, &ca);
    o->team_destroy = ucc_team_destroy(team);
    o->context_destroy = ucc_context_destroy(ctx);
    return ucc_finalize(lib);
}

void rank_main(void *) {
    uint32_t rank = ucc_sim_rank();
    ucc_status_t st = run_rank(rank, &g_out[rank]);
    if (st != UCC_OK) {
        g_out[rank].setup = st;
    }
}

}  // namespace

TEST(Regress, LogAfterContextDestroy) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = kRanks;
    p.seed = 3;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, nullptr), UCC_OK);
    for (uint32_t r = 0; r < kRanks; ++r) {
        const Outcome &o = g_out[r];
        ASSERT_EQ(o.setup, UCC_OK) << "rank " << r << ": " << ucc_status_string(o.setup);
        EXPECT_EQ(o.progress, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.get_attr, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.team_destroy, UCC_ERR_INVALID_PARAM) << "rank " << r;
        EXPECT_EQ(o.context_destroy, UCC_ERR_INVALID_PARAM) << "rank " << r;
    }
}
