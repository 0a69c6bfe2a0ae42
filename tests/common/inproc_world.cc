// Several UCC ranks in one process over UCX (see inproc_world.h).
#include "tests/common/inproc_world.h"

#include <thread>

namespace ucc::testkit {

InprocWorld::InprocWorld(uint32_t n) : oob_(std::make_unique<InprocOob>(n)), ranks_(n) {
    for (uint32_t r = 0; r < n; ++r) {
        members_.push_back({oob_.get(), r});
    }
}

InprocWorld::~InprocWorld() {
    for (InprocRank &r : ranks_) {
        for (int i = 0; r.team != nullptr && i < 1'000'000; ++i) {
            if (ucc_team_destroy(r.team) != UCC_INPROGRESS) {
                break;
            }
            progress();
        }
    }
    for (InprocRank &r : ranks_) {
        if (r.ctx != nullptr) {
            ucc_context_destroy(r.ctx);
        }
        if (r.lib != nullptr) {
            ucc_finalize(r.lib);
        }
    }
}

std::string InprocWorld::open() {
    std::vector<std::string> errors(ranks_.size());
    std::vector<std::thread> threads;
    for (uint32_t r = 0; r < ranks_.size(); ++r) {
        threads.emplace_back([this, r, &errors] { errors[r] = open_rank(r); });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    for (uint32_t r = 0; r < ranks_.size(); ++r) {
        if (!errors[r].empty()) {
            return "rank " + std::to_string(r) + ": " + errors[r];
        }
    }
    return "";
}

std::string InprocWorld::open_rank(uint32_t r) {
    InprocRank &rk = ranks_[r];
    ucc_lib_config_h lcfg;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        return "ucc_lib_config_read";
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_status_t st = ucc_init(&lp, lcfg, &rk.lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        rk.lib = nullptr;
        return "ucc_init";
    }
    ucc_context_config_h cfg;
    if (ucc_context_config_read(rk.lib, nullptr, &cfg) != UCC_OK) {
        return "ucc_context_config_read";
    }
    ucc_context_config_modify(cfg, nullptr, "TLS", "ucx");
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    cp.oob = inproc_oob(&members_[r]);
    st = ucc_context_create(rk.lib, &cp, cfg, &rk.ctx);
    ucc_context_config_release(cfg);
    if (st != UCC_OK) {
        rk.ctx = nullptr;
        return std::string("ucc_context_create: ") + ucc_status_string(st);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = r;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (ucc_team_create_post(&rk.ctx, 1, &tp, &rk.team) != UCC_OK) {
        rk.team = nullptr;
        return "ucc_team_create_post";
    }
    for (int i = 0; i < 10'000'000; ++i) {
        st = ucc_team_create_test(rk.team);
        if (st != UCC_INPROGRESS) {
            break;
        }
        ucc_context_progress(rk.ctx);
    }
    return st == UCC_OK ? "" : std::string("team creation: ") + ucc_status_string(st);
}

void InprocWorld::progress() {
    for (InprocRank &r : ranks_) {
        if (r.ctx != nullptr) {
            ucc_context_progress(r.ctx);
        }
    }
}

bool InprocWorld::run(std::vector<ucc_coll_req_h> &reqs, uint64_t max_spins) {
    for (ucc_coll_req_h q : reqs) {
        if (q != nullptr && ucc_collective_post(q) != UCC_OK) {
            return false;
        }
    }
    return wait(reqs, max_spins);
}

bool InprocWorld::wait(std::vector<ucc_coll_req_h> &reqs, uint64_t max_spins) {
    for (uint64_t spin = 0; spin < max_spins; ++spin) {
        bool all = true;
        for (ucc_coll_req_h q : reqs) {
            if (q == nullptr) {
                continue;
            }
            const ucc_status_t st = ucc_collective_test(q);
            if (st < 0) {
                return false;
            }
            all &= st == UCC_OK;
        }
        if (all) {
            return true;
        }
        progress();
    }
    return false;
}

}  // namespace ucc::testkit
