// Regression: with UCC_THREAD_MULTIPLE, two threads calling
// ucc_context_progress on one context while a third posts and tests crashed
// in Context::progress (both resumed the same coroutines from the run queue).
// Every call on a context now holds the context's lock.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "ucc/api/ucc.h"

TEST(Regress, TwoThreadsProgressOneContext) {
    ucc_lib_config_h cfg;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_MULTIPLE;
    ucc_lib_h lib;
    ASSERT_EQ(ucc_init(&lp, cfg, &lib), UCC_OK);
    ucc_lib_config_release(cfg);
    ucc_context_params_t cp{};
    ucc_context_h ctx;
    ASSERT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    tp.ep = 0;
    tp.team_size = 1;
    ucc_team_h team;
    ASSERT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_OK);
    while (ucc_team_create_test(team) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> progressers;
    for (int i = 0; i < 2; ++i) {
        progressers.emplace_back([&] {
            while (!stop.load()) {
                ucc_context_progress(ctx);
            }
        });
    }
    int wrong = 0;
    for (int i = 0; i < 2000; ++i) {
        int32_t src[4] = {i, i, i, i};
        int32_t dst[4] = {-1, -1, -1, -1};
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.src.info = {src, 4, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst, 4, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        a.op = UCC_OP_SUM;
        ucc_coll_req_h req;
        ASSERT_EQ(ucc_collective_init_and_post(&a, &req, team), UCC_OK);
        ucc_status_t st;
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        EXPECT_EQ(st, UCC_OK);
        wrong += dst[3] != i;
        ucc_collective_finalize(req);
    }
    stop = true;
    for (auto &t : progressers) {
        t.join();
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(ucc_team_destroy(team), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}
