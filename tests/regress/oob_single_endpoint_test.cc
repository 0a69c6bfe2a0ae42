// Found running Open MPI's coll/ucc component over this library: asked to
// serve a one-process job, the component hands ucc_context_create an OOB of
// one endpoint whose allgather it cannot run (its own OOB test crashes when
// called). The reference skips the address exchange when n_oob_eps <= 1; this
// library ran two allgathers. A context whose OOB has one endpoint now makes
// no OOB call, and a team of that context still runs collectives.
#include <gtest/gtest.h>

#include <cstdint>

#include "ucc/api/ucc.h"

namespace {

int g_unused = 0;  // the callbacks' coll_info; never read

ucc_status_t must_not_allgather(void *, void *, size_t, void *, void **) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (allgather)";
    return UCC_ERR_NO_MESSAGE;
}
ucc_status_t must_not_test(void *) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (req_test)";
    return UCC_ERR_NO_MESSAGE;
}
ucc_status_t must_not_free(void *) {
    ADD_FAILURE() << "the OOB of a one-endpoint context was called (req_free)";
    return UCC_ERR_NO_MESSAGE;
}

}  // namespace

TEST(Regress, ContextWithOneOobEndpointMakesNoOobCall) {
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_config_h lc = nullptr;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &lc), UCC_OK);
    ucc_lib_h lib = nullptr;
    ASSERT_EQ(ucc_init(&lp, lc, &lib), UCC_OK);
    ucc_lib_config_release(lc);

    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob.allgather = must_not_allgather;
    cp.oob.req_test = must_not_test;
    cp.oob.req_free = must_not_free;
    cp.oob.coll_info = &g_unused;
    cp.oob.n_oob_eps = 1;
    cp.oob.oob_ep = 0;
    ucc_context_h ctx = nullptr;
    ASSERT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);

    // A team of the whole context (one ep, no team OOB) and an allreduce on it.
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = 0;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_team_h team = nullptr;
    ASSERT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_OK);
    ucc_status_t st;
    for (int i = 0; i < 1000000 && (st = ucc_team_create_test(team)) == UCC_INPROGRESS; ++i) {
        ucc_context_progress(ctx);
    }
    ASSERT_EQ(st, UCC_OK);

    int64_t v = 7;
    int64_t r = 0;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {&v, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {&r, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, team), UCC_OK);
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    for (int i = 0; i < 1000000 && (st = ucc_collective_test(req)) == UCC_INPROGRESS; ++i) {
        ucc_context_progress(ctx);
    }
    EXPECT_EQ(st, UCC_OK);
    EXPECT_EQ(r, 7);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);

    for (int i = 0; i < 1000000 && (st = ucc_team_destroy(team)) == UCC_INPROGRESS; ++i) {
        ucc_context_progress(ctx);
    }
    EXPECT_EQ(st, UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}
