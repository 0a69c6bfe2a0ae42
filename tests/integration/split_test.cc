// Team split (ucc_team_create_from_parent) on the simulator: every parent
// member calls it; included members form a new team with contiguous eps in
// parent order; excluded members get a placeholder that rejects collectives.
#include <gtest/gtest.h>

#include <vector>

#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

struct RankResult {
    ucc_status_t split = UCC_ERR_NO_MESSAGE;
    uint32_t size = 0;
    uint64_t ep = 0;
    int64_t sum = -1;  // allreduce of parent ranks over the new team
    ucc_status_t placeholder_init = UCC_OK;
    bool torn_down = false;
};

void wait_team(ucc_team_h t, ucc_status_t *st) {
    while ((*st = ucc_team_create_test(t)) == UCC_INPROGRESS) {
    }
}

void split_program(uint32_t rank, uint32_t modulo, std::vector<RankResult> &out) {
    RankResult &res = out[rank];
    const uint32_t n = ucc::sim::cluster_size();
    ucc_lib_config_h lc;
    ucc_lib_config_read(nullptr, nullptr, &lc);
    ucc_lib_params_t lp{};
    ucc_lib_h lib;
    if (ucc_init(&lp, lc, &lib) != UCC_OK) {
        return;
    }
    ucc_lib_config_release(lc);
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc::sim::oob(&cp.oob);
    ucc_context_h ctx;
    if (ucc_context_create(lib, &cp, nullptr, &ctx) != UCC_OK) {
        return;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB;
    ucc::sim::oob(&tp.oob);
    ucc_team_h parent;
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, &parent);
    if (st == UCC_OK) {
        wait_team(parent, &st);
    }
    if (st != UCC_OK) {
        return;
    }
    const uint32_t included = rank % modulo == 0 ? 1 : 0;
    ucc_team_h child;
    st = ucc_team_create_from_parent(rank, included, parent, &child);
    if (st == UCC_OK) {
        wait_team(child, &st);
    }
    res.split = st;
    if (st != UCC_OK) {
        return;
    }
    if (included) {
        ucc_team_attr_t attr{};
        attr.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP;
        ucc_team_get_attr(child, &attr);
        res.size = attr.size;
        res.ep = attr.ep;
        int64_t v = rank;
        int64_t sum = 0;
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {&v, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {&sum, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req;
        if (ucc_collective_init(&a, &req, child) == UCC_OK && ucc_collective_post(req) == UCC_OK) {
            while (ucc_collective_test(req) == UCC_INPROGRESS) {
                ucc_context_progress(ctx);
            }
            res.sum = sum;
            ucc_collective_finalize(req);
        }
    } else {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        ucc_coll_req_h req;
        res.placeholder_init = ucc_collective_init(&a, &req, child);
    }
    // Parent still works after the split.
    ucc_coll_args_t b{};
    b.coll_type = UCC_COLL_TYPE_BARRIER;
    ucc_coll_req_h req;
    if (ucc_collective_init(&b, &req, parent) == UCC_OK && ucc_collective_post(req) == UCC_OK) {
        while (ucc_collective_test(req) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        ucc_collective_finalize(req);
    }
    res.torn_down = ucc_team_destroy(child) == UCC_OK && ucc_team_destroy(parent) == UCC_OK &&
                    ucc_context_destroy(ctx) == UCC_OK && ucc_finalize(lib) == UCC_OK;
    (void)n;
}

}  // namespace

TEST(TeamSplit, IncludedMembersFormContiguousTeam) {
    for (uint32_t n : {1u, 2u, 5u, 9u}) {
        for (uint32_t modulo : {1u, 2u, 3u}) {
            std::vector<RankResult> out(n);
            ucc::sim::ClusterParams p;
            p.n_ranks = n;
            p.seed = n * 10 + modulo;
            auto run = ucc::sim::run(p, [&](uint32_t r) { split_program(r, modulo, out); });
            ASSERT_EQ(run.status, UCC_OK) << run.report;
            uint32_t members = (n + modulo - 1) / modulo;
            int64_t want_sum = 0;
            for (uint32_t r = 0; r < n; r += modulo) {
                want_sum += r;
            }
            for (uint32_t r = 0; r < n; ++r) {
                SCOPED_TRACE("n=" + std::to_string(n) + " modulo=" + std::to_string(modulo) +
                             " rank=" + std::to_string(r));
                EXPECT_EQ(out[r].split, UCC_OK);
                EXPECT_TRUE(out[r].torn_down);
                if (r % modulo == 0) {
                    EXPECT_EQ(out[r].size, members);
                    EXPECT_EQ(out[r].ep, r / modulo);
                    EXPECT_EQ(out[r].sum, want_sum);
                } else {
                    EXPECT_EQ(out[r].placeholder_init, UCC_ERR_INVALID_PARAM);
                }
            }
        }
    }
}
