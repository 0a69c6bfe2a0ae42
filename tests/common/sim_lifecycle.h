// One simulated rank's public-API lifecycle for tests that run on the
// simulator's C API (ucc_sim_run): a library, a context over the simulator's
// OOB and a team of every rank, then a collective run to completion, then
// teardown. Header-only: the drift tests replace operator new and link
// nothing else of the test kit.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::testkit {

struct SimLifecycle {
    // NAME=VALUE settings applied with ucc_lib_config_modify and
    // ucc_context_config_modify (component NULL) before creation.
    std::vector<std::pair<const char *, const char *>> lib_config;
    std::vector<std::pair<const char *, const char *>> context_config;

    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;

    // Library, context and a team of every rank (this rank's ep = its rank).
    ucc_status_t open() {
        ucc_lib_config_h lc = nullptr;
        ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lc);
        if (st != UCC_OK) {
            return st;
        }
        for (const auto &[name, value] : lib_config) {
            if (st == UCC_OK) {
                st = ucc_lib_config_modify(lc, name, value);
            }
        }
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = UCC_THREAD_SINGLE;
        if (st == UCC_OK) {
            st = ucc_init(&lp, lc, &lib);
        }
        ucc_lib_config_release(lc);
        ucc_context_config_h cc = nullptr;
        if (st != UCC_OK || (st = ucc_context_config_read(lib, nullptr, &cc)) != UCC_OK) {
            return st;
        }
        for (const auto &[name, value] : context_config) {
            if (st == UCC_OK) {
                st = ucc_context_config_modify(cc, nullptr, name, value);
            }
        }
        ucc_context_params_t cp{};
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        if (st == UCC_OK && (st = ucc_sim_oob(&cp.oob)) == UCC_OK) {
            st = ucc_context_create(lib, &cp, cc, &ctx);
        }
        ucc_context_config_release(cc);
        if (st != UCC_OK) {
            return st;
        }
        ucc_team_params_t tp{};
        tp.mask =
            UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_OOB;
        tp.ep = ucc_sim_rank();
        tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        if ((st = ucc_sim_oob(&tp.oob)) != UCC_OK ||
            (st = ucc_team_create_post(&ctx, 1, &tp, &team)) != UCC_OK) {
            return st;
        }
        while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        return st;
    }

    // Init, post and wait (at most `max_tests` tests); *init_status gets
    // init's status when given. Returns the completion status.
    ucc_status_t run(ucc_coll_args_t &args, ucc_status_t *init_status = nullptr,
                     uint64_t max_tests = 10'000'000) {
        ucc_coll_req_h req = nullptr;
        ucc_status_t st = ucc_collective_init(&args, &req, team);
        if (init_status != nullptr) {
            *init_status = st;
        }
        if (st != UCC_OK) {
            return st;
        }
        if ((st = ucc_collective_post(req)) == UCC_OK) {
            st = UCC_INPROGRESS;
        }
        for (uint64_t i = 0; st == UCC_INPROGRESS && i < max_tests; ++i) {
            if ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                ucc_context_progress(ctx);
            }
        }
        ucc_collective_finalize(req);
        return st;
    }

    // Team, context and library, whatever was made.
    ucc_status_t close() {
        if (team != nullptr) {
            while (ucc_team_destroy(team) == UCC_INPROGRESS) {
                ucc_context_progress(ctx);
            }
        }
        if (ctx != nullptr) {
            ucc_context_destroy(ctx);
        }
        return lib != nullptr ? ucc_finalize(lib) : UCC_OK;
    }
};

}  // namespace ucc::testkit
