// The tools' rank lifecycle (lifecycle.h).
#include "tools/perf/lifecycle.h"

namespace ucc::perf {

std::string failed(const char *call, ucc_status_t st) {
    return std::string(call) + " failed: " + ucc_status_string(st);
}

ucc_status_t wait(ucc_coll_req_h req, ucc_context_h ctx) {
    ucc_status_t st;
    // INPROGRESS, or (a triggered post waiting for its trigger) INITIALIZED.
    while ((st = ucc_collective_test(req)) > 0) {
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_status_t run_collective(ucc_coll_args_t *args, ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(args, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    if (st == UCC_OK) {
        st = wait(req, ctx);
    }
    const ucc_status_t fin = ucc_collective_finalize(req);
    return st != UCC_OK ? st : fin;
}

ucc_status_t barrier(ucc_team_h team, ucc_context_h ctx) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    return run_collective(&a, team, ctx);
}

ucc_status_t OobAlign::post(const ucc_oob_coll_t &oob) {
    release();
    if (oob.allgather == nullptr || oob.req_test == nullptr || oob.req_free == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    all_.assign(oob.n_oob_eps, 0);
    oob_ = oob;
    const ucc_status_t st = oob.allgather(&mine_, all_.data(), 1, oob.coll_info, &req_);
    if (st != UCC_OK) {
        req_ = nullptr;
    }
    return st;
}

ucc_status_t OobAlign::test() {
    if (req_ == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    const ucc_status_t st = oob_.req_test(req_);
    if (st != UCC_INPROGRESS) {
        release();
    }
    return st;
}

void OobAlign::release() {
    if (req_ != nullptr) {
        oob_.req_free(req_);
        req_ = nullptr;
    }
}

ucc_status_t align(const ucc_oob_coll_t &oob) {
    OobAlign a;
    ucc_status_t st = a.post(oob);
    if (st != UCC_OK) {
        return st;
    }
    while ((st = a.test()) == UCC_INPROGRESS) {
    }
    return st;
}

std::string Lifecycle::setup(const RankSetup &s) {
    std::string err = post(s);
    if (!err.empty()) {
        return err;
    }
    ucc_status_t st;
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    if (st != UCC_OK) {
        return failed("ucc_team_create_test", st);
    }
    return "";
}

std::string Lifecycle::post(const RankSetup &s) {
    ucc_lib_config_h lcfg = nullptr;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lcfg);
    if (st != UCC_OK) {
        return failed("ucc_lib_config_read", st);
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    st = ucc_init(&lp, lcfg, &lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        lib = nullptr;
        return failed("ucc_init", st);
    }
    ucc_context_config_h ccfg = nullptr;
    if ((st = ucc_context_config_read(lib, nullptr, &ccfg)) != UCC_OK) {
        return failed("ucc_context_config_read", st);
    }
    for (const auto &[name, value] : s.config) {
        if ((st = ucc_context_config_modify(ccfg, nullptr, name.c_str(), value.c_str())) !=
            UCC_OK) {
            ucc_context_config_release(ccfg);
            return failed(("ucc_context_config_modify(" + name + ")").c_str(), st);
        }
    }
    ucc_context_params_t cp{};
    if (!s.context_without_oob) {
        cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        cp.oob = s.oob;
    }
    st = ucc_context_create(lib, &cp, ccfg, &ctx);
    ucc_context_config_release(ccfg);
    if (st != UCC_OK) {
        ctx = nullptr;
        return failed("ucc_context_create", st);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = s.rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (s.team_from_ep_map && !s.context_without_oob) {
        tp.mask |= UCC_TEAM_PARAM_FIELD_EP_MAP;
        tp.ep_map.type = UCC_EP_MAP_FULL;
        tp.ep_map.ep_num = s.size;
    } else {
        tp.mask |= UCC_TEAM_PARAM_FIELD_OOB;
        tp.oob = s.oob;
    }
    st = ucc_team_create_post(&ctx, 1, &tp, &team);
    if (st != UCC_OK) {
        team = nullptr;
        return failed("ucc_team_create_post", st);
    }
    return "";
}

std::string Lifecycle::teardown() {
    std::string err;
    ucc_status_t st = UCC_OK;
    if (team != nullptr) {
        while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        team = nullptr;
        if (st != UCC_OK) {
            err = failed("ucc_team_destroy", st);
        }
    }
    if (ctx != nullptr) {
        st = ucc_context_destroy(ctx);
        ctx = nullptr;
        if (st != UCC_OK && err.empty()) {
            err = failed("ucc_context_destroy", st);
        }
    }
    if (lib != nullptr) {
        st = ucc_finalize(lib);
        lib = nullptr;
        if (st != UCC_OK && err.empty()) {
            err = failed("ucc_finalize", st);
        }
    }
    return err;
}

}  // namespace ucc::perf
