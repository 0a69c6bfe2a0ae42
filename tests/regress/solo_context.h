// Helper for regression tests of one process outside the simulator: a
// library, a context on the real transport (UCX, or the in-process one), and
// a team of that one process; collectives run to completion, bounded.
#pragma once

#include <gtest/gtest.h>

#include "ucc/api/ucc.h"

namespace ucc::regress {

class SoloContext {
  public:
    // `oob`: the context's OOB (nullptr: none).
    explicit SoloContext(const ucc_oob_coll_t *oob = nullptr) {
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = UCC_THREAD_SINGLE;
        ucc_lib_config_h lc = nullptr;
        EXPECT_EQ(ucc_lib_config_read(nullptr, nullptr, &lc), UCC_OK);
        EXPECT_EQ(ucc_init(&lp, lc, &lib), UCC_OK);
        ucc_lib_config_release(lc);
        ucc_context_params_t cp{};
        if (oob != nullptr) {
            cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
            cp.oob = *oob;
        }
        EXPECT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);
        // A team of the whole context: this one process.
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
        tp.ep = 0;
        tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        if (ctx == nullptr || ucc_team_create_post(&ctx, 1, &tp, &team) != UCC_OK) {
            ADD_FAILURE() << "no team";
            return;
        }
        ucc_status_t st = UCC_INPROGRESS;
        for (int i = 0; i < 1000000 && (st = ucc_team_create_test(team)) == UCC_INPROGRESS; ++i) {
            ucc_context_progress(ctx);
        }
        EXPECT_EQ(st, UCC_OK);
    }
    ~SoloContext() {
        ucc_status_t st = UCC_OK;
        for (int i = 0;
             team != nullptr && i < 1000000 && (st = ucc_team_destroy(team)) == UCC_INPROGRESS;
             ++i) {
            ucc_context_progress(ctx);
        }
        EXPECT_EQ(st, UCC_OK);
        EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
        EXPECT_EQ(ucc_finalize(lib), UCC_OK);
    }
    SoloContext(const SoloContext &) = delete;
    SoloContext &operator=(const SoloContext &) = delete;

    // init, post and test until done; the status of the first step that fails.
    ucc_status_t run(ucc_coll_args_t a) {
        ucc_coll_req_h req = nullptr;
        ucc_status_t st = ucc_collective_init(&a, &req, team);
        if (st != UCC_OK) {
            return st;
        }
        st = ucc_collective_post(req);
        for (int i = 0; st == UCC_OK && i < 1000000; ++i) {
            if ((st = ucc_collective_test(req)) != UCC_INPROGRESS) {
                break;
            }
            st = UCC_OK;
            ucc_context_progress(ctx);
        }
        EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
        return st;
    }

    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// An int64 sum allreduce of one element, host memory.
inline ucc_coll_args_t allreduce_of(int64_t *src, int64_t *dst) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {src, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst, 1, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    return a;
}

}  // namespace ucc::regress
