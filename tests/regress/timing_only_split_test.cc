// A team split in a timing-only run (ucc_sim --timing-only, ucc_replay
// --timing-only): the split's agreement (who is included, the next team id)
// travels as an allgather on the parent, and a timing-only world moved no
// payload, so every member concluded from zeros: an active child of size 0
// with the parent's id, on which a collective divided by zero. The split's
// transfers now carry their payload in every mode (Xfer::carry), and its
// local copies run.
#include <gtest/gtest.h>

#include <vector>

#include "tests/common/sim_lifecycle.h"

namespace {

struct Result {
    ucc_status_t split = UCC_ERR_NO_MESSAGE;
    uint64_t size = 0;
    uint64_t ep = 0;
    ucc_status_t coll = UCC_ERR_NO_MESSAGE;
};

void split_rank(void *arg) {
    auto &out = *static_cast<std::vector<Result> *>(arg);
    const uint32_t rank = ucc_sim_rank();
    Result &res = out[rank];
    ucc::testkit::SimLifecycle lc;
    if (lc.open() == UCC_OK) {
        const uint32_t included = rank % 3 == 0 ? 1 : 0;
        ucc_team_h child = nullptr;
        ucc_status_t st = ucc_team_create_from_parent(rank, included, lc.team, &child);
        while (st == UCC_OK && (st = ucc_team_create_test(child)) == UCC_INPROGRESS) {
            ucc_context_progress(lc.ctx);
        }
        res.split = st;
        if (st == UCC_OK && included != 0) {
            ucc_team_attr_t attr{};
            attr.mask = UCC_TEAM_ATTR_FIELD_SIZE | UCC_TEAM_ATTR_FIELD_EP;
            ucc_team_get_attr(child, &attr);
            res.size = attr.size;
            res.ep = attr.ep;
            ucc_coll_args_t a{};
            a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
            a.op = UCC_OP_SUM;
            a.src.info = {nullptr, 1000, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {nullptr, 1000, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
            std::swap(lc.team, child);
            res.coll = lc.run(a);
            std::swap(lc.team, child);
        }
        if (child != nullptr) {
            while (ucc_team_destroy(child) == UCC_INPROGRESS) {
                ucc_context_progress(lc.ctx);
            }
        }
    }
    lc.close();
}

}  // namespace

TEST(Regress, TimingOnlySplitKnowsItsMembers) {
    for (const char *select : {"cost", "rules"}) {
        const uint32_t n = 11;
        std::vector<Result> out(n);
        ucc_sim_params_t p{};
        p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS |
                 UCC_SIM_PARAM_FIELD_TIMING_ONLY;
        p.n_ranks = n;
        p.flags = UCC_SIM_FLAG_QUIET;
        p.timing_only = 1;
        setenv("UCC_SELECT", select, 1);
        EXPECT_EQ(ucc_sim_run(&p, split_rank, &out), UCC_OK) << select;
        unsetenv("UCC_SELECT");
        for (uint32_t r = 0; r < n; ++r) {
            EXPECT_EQ(out[r].split, UCC_OK) << "rank " << r;
            if (r % 3 == 0) {
                EXPECT_EQ(out[r].size, 4u) << "rank " << r;  // ranks 0, 3, 6, 9
                EXPECT_EQ(out[r].ep, r / 3) << "rank " << r;
                EXPECT_EQ(out[r].coll, UCC_OK) << "rank " << r;
            }
        }
    }
}
