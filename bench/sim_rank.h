// The public-API lifecycle every benchmark rank runs: library, context over the
// simulator's OOB, team over all ranks (FULL ep map), one collective, teardown
// (or, `team_oob`, a context without an OOB and the team over the
// simulator's OOB); and the same in completion-callback style for a rank
// without a fiber (UCC_SIM_FLAG_FIBERLESS). Header-only, shared by the
// programs in bench/.
#pragma once

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::bench {

struct SimRank {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

// The context's and team's parameters: the context over the simulator's OOB
// and the team over all its eps, or (`team_oob`) a context without an OOB
// and the team over the simulator's OOB.
inline void sim_rank_params(bool team_oob, ucc_context_params_t *cp, ucc_team_params_t *tp) {
    *cp = {};
    *tp = {};
    if (!team_oob) {
        cp->mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        ucc_sim_oob(&cp->oob);
    }
    tp->mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    if (team_oob) {
        tp->mask |= UCC_TEAM_PARAM_FIELD_OOB;
        ucc_sim_oob(&tp->oob);
    } else {
        tp->mask |= UCC_TEAM_PARAM_FIELD_EP_MAP;
        tp->ep_map.type = UCC_EP_MAP_FULL;
        tp->ep_map.ep_num = ucc_sim_size();
    }
    tp->ep = ucc_sim_rank();
    tp->ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
}

// Creates lib, context and team on the calling simulated rank (`team_oob`:
// sim_rank_params).
inline bool sim_rank_open(SimRank *r, bool team_oob = false) {
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
    ucc_context_params_t cp;
    ucc_team_params_t tp;
    sim_rank_params(team_oob, &cp, &tp);
    if (ucc_context_create(r->lib, &cp, nullptr, &r->ctx) != UCC_OK) {
        return false;
    }
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

// A rank without a fiber: sim_rank_start() makes the library and context,
// posts the team and returns (a context over the OOB then learns its peers,
// and the team starts, in the rank's later passes); the collective (`proto`, shared by all ranks,
// with this rank's `src` and `dst`, owned by the caller) is posted once the
// team is made, and the teardown follows its callback. `status` is its final
// status (UCC_INPROGRESS until then), `coll_s` its virtual duration.
struct SimRankCallbacks {
    SimRank r;
    bool team_oob = false;  // sim_rank_params
    const ucc_coll_args_t *proto = nullptr;
    void *src = nullptr;
    void *dst = nullptr;
    ucc_coll_req_h req = nullptr;
    double t0 = 0;
    double coll_s = 0;
    ucc_status_t status = UCC_INPROGRESS;
};

inline ucc_status_t sim_rank_teardown(void *arg) {
    auto *c = static_cast<SimRankCallbacks *>(arg);
    if (c->r.team != nullptr) {
        if (ucc_team_destroy(c->r.team) == UCC_INPROGRESS) {
            return UCC_INPROGRESS;
        }
        c->r.team = nullptr;
    }
    sim_rank_close(&c->r);
    return UCC_OK;
}

inline void sim_rank_done(SimRankCallbacks *c, ucc_status_t st) {
    c->status = st;
    if (ucc_sim_on_progress(sim_rank_teardown, c) != UCC_OK) {
        c->status = UCC_ERR_NO_MEMORY;
    }
}

inline void sim_rank_collective_done(void *data, ucc_status_t st) {
    auto *c = static_cast<SimRankCallbacks *>(data);
    ucc_collective_finalize(c->req);
    c->req = nullptr;
    c->coll_s = ucc_sim_now() - c->t0;
    sim_rank_done(c, st);
}

inline ucc_status_t sim_rank_team_ready(void *arg) {
    auto *c = static_cast<SimRankCallbacks *>(arg);
    ucc_status_t st = ucc_team_create_test(c->r.team);
    if (st == UCC_INPROGRESS) {
        return st;
    }
    if (st == UCC_OK) {
        ucc_coll_args_t a = *c->proto;
        a.src.info.buffer = c->src;
        a.dst.info.buffer = c->dst;
        a.mask |= UCC_COLL_ARGS_FIELD_CB;
        a.cb.cb = sim_rank_collective_done;
        a.cb.data = c;
        c->t0 = ucc_sim_now();
        st = ucc_collective_init(&a, &c->req, c->r.team);
        if (st == UCC_OK && (st = ucc_collective_post(c->req)) != UCC_OK) {
            ucc_collective_finalize(c->req);
        }
    }
    if (st != UCC_OK) {
        sim_rank_done(c, st);
    }
    return UCC_OK;
}

inline void sim_rank_start(SimRankCallbacks *c) {
    ucc_lib_config_h lcfg;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lcfg);
    if (st == UCC_OK) {
        ucc_lib_params_t lp{};
        lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
        lp.thread_mode = UCC_THREAD_SINGLE;
        st = ucc_init(&lp, lcfg, &c->r.lib);
        ucc_lib_config_release(lcfg);
    }
    ucc_context_params_t cp;
    ucc_team_params_t tp;
    sim_rank_params(c->team_oob, &cp, &tp);
    if (st == UCC_OK) {
        st = ucc_context_create(c->r.lib, &cp, nullptr, &c->r.ctx);
    }
    if (st == UCC_OK) {
        st = ucc_team_create_post(&c->r.ctx, 1, &tp, &c->r.team);
        if (st != UCC_OK) {
            c->r.team = nullptr;
        }
    }
    if (st == UCC_OK) {
        st = ucc_sim_on_progress(sim_rank_team_ready, c);
    }
    if (st != UCC_OK) {
        sim_rank_done(c, st);
    }
}

}  // namespace ucc::bench
