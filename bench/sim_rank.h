// The public-API lifecycle every benchmark rank runs: library, context over the
// simulator's OOB, team over all ranks (FULL ep map), one collective, teardown.
// Header-only, shared by the programs in bench/.
#pragma once

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::bench {

struct SimRank {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// Creates lib, context and team on the calling simulated rank.
inline bool sim_rank_open(SimRank *r) {
    ucc_lib_config_h lcfg;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        return false;
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_status_t st = ucc_init(&lp, lcfg, &r->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        return false;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp.oob);
    if (ucc_context_create(r->lib, &cp, nullptr, &r->ctx) != UCC_OK) {
        return false;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = ucc_sim_size();
    tp.ep = ucc_sim_rank();
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    st = ucc_team_create_post(&r->ctx, 1, &tp, &r->team);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(r->team)) == UCC_INPROGRESS) {
            ucc_context_progress(r->ctx);
        }
    }
    return st == UCC_OK;
}

// Runs one collective to completion; its virtual duration goes to *virtual_s.
inline ucc_status_t sim_rank_collective(SimRank *r, ucc_coll_args_t *args, double *virtual_s) {
    ucc_coll_req_h req;
    const double t0 = ucc_sim_now();
    ucc_status_t st = ucc_collective_init(args, &req, r->team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(r->ctx);
        }
    }
    ucc_collective_finalize(req);
    *virtual_s = ucc_sim_now() - t0;
    return st;
}

inline void sim_rank_close(SimRank *r) {
    if (r->team != nullptr) {
        while (ucc_team_destroy(r->team) == UCC_INPROGRESS) {
            ucc_context_progress(r->ctx);
        }
    }
    if (r->ctx != nullptr) {
        ucc_context_destroy(r->ctx);
    }
    if (r->lib != nullptr) {
        ucc_finalize(r->lib);
    }
}

}  // namespace ucc::bench
