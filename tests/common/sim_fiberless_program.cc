// The callback-style test program (sim_fiberless_program.h).
#include "tests/common/sim_fiberless_program.h"

#include <algorithm>
#include <climits>

namespace ucc::testkit::fiberless {

namespace {

void fail(Rank *r) {
    r->sh->failed++;
    ucc_sim_exit();
}

ucc_status_t teardown(void *arg) {
    auto *r = static_cast<Rank *>(arg);
    if (r->team != nullptr) {
        const ucc_status_t st = ucc_team_destroy(r->team);
        if (st == UCC_INPROGRESS) {
            return st;
        }
        r->team = nullptr;
    }
    if (ucc_context_destroy(r->ctx) != UCC_OK || ucc_finalize(r->lib) != UCC_OK) {
        r->sh->failed++;
        return UCC_OK;
    }
    r->sh->finished++;
    return UCC_OK;
}

void post_next(Rank *r);

void on_done(void *data, ucc_status_t status) {
    auto *r = static_cast<Rank *>(data);
    Shared &sh = *r->sh;
    ucc_collective_finalize(r->req);
    r->req = nullptr;
    if (status == UCC_ERR_TIMED_OUT) {
        sh.timed_out++;
        ucc_sim_on_progress(teardown, r);
        return;
    }
    if (status != UCC_OK) {
        fail(r);
        return;
    }
    for (size_t i = 0; i < sh.count; ++i) {
        // sum over ranks q of (q + 1 + i + done)
        const int64_t want = static_cast<int64_t>(sh.n) * (sh.n + 1) / 2 +
                             static_cast<int64_t>(sh.n) * static_cast<int64_t>(i + r->done);
        sh.wrong += r->dst[i] != want ? 1 : 0;
    }
    r->done++;
    post_next(r);
}

void post_next(Rank *r) {
    Shared &sh = *r->sh;
    if (r->done == sh.iters) {
        ucc_sim_on_progress(teardown, r);
        return;
    }
    if (sh.variant == Variant::kTimeout && r->me == 1) {
        ucc_sim_on_progress(teardown, r);  // never joins: the others time out
        return;
    }
    for (size_t i = 0; i < sh.count; ++i) {
        r->src[i] = static_cast<int64_t>(r->me + 1 + i + r->done);
        r->dst[i] = -1;
    }
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_CB;
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {r->src.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {r->dst.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.cb.cb = on_done;
    a.cb.data = r;
    if (sh.variant == Variant::kTimeout) {
        a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
        a.timeout = 1e-3;
    }
    if (ucc_collective_init(&a, &r->req, r->team) != UCC_OK ||
        ucc_collective_post(r->req) != UCC_OK) {
        fail(r);
    }
}

ucc_status_t team_ready(void *arg) {
    auto *r = static_cast<Rank *>(arg);
    const ucc_status_t st = ucc_team_create_test(r->team);
    if (st == UCC_INPROGRESS) {
        return st;
    }
    if (st != UCC_OK) {
        fail(r);
        return UCC_OK;
    }
    post_next(r);
    return UCC_OK;
}

// The context's and team's parameters of `wiring` (map: an ARRAY ep map's).
void setup_params(const Shared &sh, uint32_t me, ucc_context_params_t *cp, ucc_team_params_t *tp,
                  std::vector<uint32_t> *map) {
    *cp = {};
    *tp = {};
    if (sh.wiring == Wiring::kTeamOob) {
        tp->mask =
            UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
        ucc_sim_oob(&tp->oob);
        tp->ep = me;
        tp->ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        return;
    }
    cp->mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp->oob);
    tp->mask =
        UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp->ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    tp->ep_map.ep_num = sh.n;
    if (sh.wiring == Wiring::kContextOob) {
        tp->ep_map.type = UCC_EP_MAP_FULL;
        tp->ep = me;
        return;
    }
    map->resize(sh.n);
    for (uint32_t i = 0; i < sh.n; ++i) {
        (*map)[i] = sh.n - 1 - i;
    }
    tp->ep_map.type = UCC_EP_MAP_ARRAY;
    tp->ep_map.array.map = map->data();
    tp->ep_map.array.elem_size = sizeof(uint32_t);
    tp->ep = sh.n - 1 - me;
}

// A context over the OOB destroyed at once (abandon_first_context).
bool make_and_drop_a_context(const Shared &sh, ucc_lib_h lib) {
    if (!sh.abandon_first_context) {
        return true;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp.oob);
    ucc_context_h c = nullptr;
    return ucc_context_create(lib, &cp, nullptr, &c) == UCC_OK && ucc_context_destroy(c) == UCC_OK;
}

// An OOB of the program's own, which a rank without a fiber cannot wait for.
ucc_status_t own_allgather(void *, void *, size_t, void *, void **) {
    return UCC_ERR_NOT_IMPLEMENTED;
}

void start(void *arg) {
    auto &sh = *static_cast<Shared *>(arg);
    auto *r = sh.ranks[ucc_sim_rank()].get();
    r->sh = &sh;
    r->me = ucc_sim_rank();
    r->src.resize(sh.count);
    r->dst.resize(sh.count);
    ucc_lib_config_h lcfg = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK ||
        ucc_init(&lp, lcfg, &r->lib) != UCC_OK) {
        fail(r);
        return;
    }
    ucc_lib_config_release(lcfg);
    if (r->me == 0 && sh.refusals) {
        // A context over an OOB of the program's own would have to wait for
        // the others (alone in it, nothing is exchanged: it is made).
        ucc_context_params_t with_oob{};
        with_oob.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
        ucc_sim_oob(&with_oob.oob);
        with_oob.oob.allgather = own_allgather;
        ucc_context_h c = nullptr;
        sh.ctx_with_oob = ucc_context_create(r->lib, &with_oob, nullptr, &c);
        if (c != nullptr) {
            ucc_context_destroy(c);
        }
        sh.threads = ucc_sim_run_threads(
            2, [](uint32_t, void *) {}, nullptr);
    }
    ucc_context_params_t cp;
    ucc_team_params_t tp;
    std::vector<uint32_t> map;
    setup_params(sh, r->me, &cp, &tp, &map);
    if (!make_and_drop_a_context(sh, r->lib) ||
        ucc_context_create(r->lib, &cp, nullptr, &r->ctx) != UCC_OK) {
        fail(r);
        return;
    }
    // Posted at once: a context over the OOB may still be learning its
    // peers, and the team then waits for it.
    if (ucc_team_create_post(&r->ctx, 1, &tp, &r->team) != UCC_OK) {
        fail(r);
        return;
    }
    std::fill(map.begin(), map.end(), UINT32_MAX);  // the post kept what it needs
    ucc_sim_on_progress(team_ready, r);
    if (sh.variant == Variant::kHookNeverDone && r->me == sh.n - 1) {
        ucc_sim_on_progress(never_done, nullptr);
    }
}

// The same calls from a rank with a fiber, waiting in test-and-progress loops.
void start_with_fiber(void *arg) {
    auto &sh = *static_cast<Shared *>(arg);
    Rank r;
    r.sh = &sh;
    r.me = ucc_sim_rank();
    r.src.resize(sh.count);
    r.dst.resize(sh.count);
    ucc_lib_config_h lcfg = nullptr;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_context_params_t cp;
    ucc_team_params_t tp;
    std::vector<uint32_t> map;
    setup_params(sh, r.me, &cp, &tp, &map);
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK ||
        ucc_init(&lp, lcfg, &r.lib) != UCC_OK) {
        sh.failed++;
        return;
    }
    ucc_lib_config_release(lcfg);
    if (!make_and_drop_a_context(sh, r.lib) ||
        ucc_context_create(r.lib, &cp, nullptr, &r.ctx) != UCC_OK ||
        ucc_team_create_post(&r.ctx, 1, &tp, &r.team) != UCC_OK) {
        sh.failed++;
        ucc_sim_exit();  // as fail() does: the peers see it gone
        return;
    }
    ucc_status_t st;
    while ((st = ucc_team_create_test(r.team)) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    for (uint32_t k = 0; st == UCC_OK && k < sh.iters; ++k) {
        for (size_t i = 0; i < sh.count; ++i) {
            r.src[i] = static_cast<int64_t>(r.me + 1 + i + k);
        }
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {r.src.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {r.dst.data(), sh.count, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        ucc_coll_req_h req = nullptr;
        st = ucc_collective_init(&a, &req, r.team);
        if (st == UCC_OK && (st = ucc_collective_post(req)) == UCC_OK) {
            while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                ucc_context_progress(r.ctx);
            }
        }
        if (req != nullptr) {
            ucc_collective_finalize(req);
        }
    }
    while (ucc_team_destroy(r.team) == UCC_INPROGRESS) {
        ucc_context_progress(r.ctx);
    }
    ucc_context_destroy(r.ctx);
    ucc_finalize(r.lib);
    if (st == UCC_OK) {
        sh.finished++;
    } else {
        sh.failed++;
    }
}

}  // namespace

ucc_status_t never_done(void *) {
    return UCC_INPROGRESS;
}

Outcome run(Shared *sh, uint32_t n, bool fiberless, const char *faults) {
    sh->n = n;
    sh->ranks.clear();
    for (uint32_t r = 0; r < n; ++r) {
        sh->ranks.push_back(std::make_unique<Rank>());
    }
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS |
             UCC_SIM_PARAM_FIELD_NETWORK;
    p.n_ranks = n;
    p.seed = 11;
    p.network = "hdr,jitter=40ns";
    p.flags = UCC_SIM_FLAG_QUIET | (fiberless ? UCC_SIM_FLAG_FIBERLESS : 0);
    if (faults != nullptr) {
        p.mask |= UCC_SIM_PARAM_FIELD_FAULTS;
        p.faults = faults;
    }
    return sim_outcome(ucc_sim_run(&p, fiberless ? start : start_with_fiber, sh));
}

}  // namespace ucc::testkit::fiberless
