// Desync: ranks that post different collectives at the same sequence number are
// reported (naming the field and the ranks), and fail instead of hanging.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

struct Outcome {
    ucc_status_t st = UCC_OK;
};

void program(uint32_t r, ucc_coll_type_t mine, uint64_t root, std::vector<Outcome> &out) {
    ucc_lib_config_h lc;
    ucc_lib_config_read(nullptr, nullptr, &lc);
    ucc_lib_params_t lp{};
    ucc_lib_h lib;
    ucc_init(&lp, lc, &lib);
    ucc_lib_config_release(lc);
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc::sim::oob(&cp.oob);
    // The report is an ERROR log line: make sure the level lets it through.
    ucc_context_config_h cc;
    ucc_context_config_read(lib, nullptr, &cc);
    ucc_context_config_modify(cc, nullptr, "LOG_LEVEL", "ERROR");
    ucc_context_h ctx;
    ucc_context_create(lib, &cp, cc, &ctx);
    ucc_context_config_release(cc);
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB;
    ucc::sim::oob(&tp.oob);
    ucc_team_h team;
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, &team);
    while (st == UCC_OK && ucc_team_create_test(team) == UCC_INPROGRESS) {
    }
    int32_t buf[4] = {1, 2, 3, 4};
    int32_t dst[4] = {};
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
    a.timeout = 1e-3;
    a.coll_type = mine;
    a.root = root;
    a.op = UCC_OP_SUM;
    a.src.info = {buf, 4, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst, 4, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req;
    out[r].st = ucc_collective_init(&a, &req, team);
    if (out[r].st == UCC_OK) {
        ucc_collective_post(req);
        while ((out[r].st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        ucc_collective_finalize(req);
    }
    ucc_team_destroy(team);
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
}

}  // namespace

TEST(Desync, DifferentCollectiveTypesAreReported) {
    std::vector<Outcome> out(2);
    ucc::sim::ClusterParams p;
    p.n_ranks = 2;
    testing::internal::CaptureStderr();
    auto run = ucc::sim::run(p, [&](uint32_t r) {
        program(r, r == 0 ? UCC_COLL_TYPE_ALLREDUCE : UCC_COLL_TYPE_BCAST, 0, out);
    });
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(run.status, UCC_OK) << run.report;
    EXPECT_NE(err.find("DESYNC"), std::string::npos) << err;
    EXPECT_NE(err.find("coll_type differs"), std::string::npos) << err;
    EXPECT_NE(err.find("allreduce"), std::string::npos) << err;
    EXPECT_NE(err.find("bcast"), std::string::npos) << err;
    // Neither rank completes with OK; one sees the mismatch, the other times out.
    for (const Outcome &o : out) {
        EXPECT_LT(o.st, 0);
    }
}

TEST(Desync, DifferentRootsAreReported) {
    std::vector<Outcome> out(3);
    ucc::sim::ClusterParams p;
    p.n_ranks = 3;
    testing::internal::CaptureStderr();
    auto run =
        ucc::sim::run(p, [&](uint32_t r) { program(r, UCC_COLL_TYPE_BCAST, r == 2 ? 1 : 0, out); });
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(run.status, UCC_OK) << run.report;
    EXPECT_NE(err.find("root differs"), std::string::npos) << err;
}
