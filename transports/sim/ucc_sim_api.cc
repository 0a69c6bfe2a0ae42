// The simulator's C API (include/ucc/sim/ucc_sim.h).
#include "ucc/sim/ucc_sim.h"

#include <cinttypes>
#include <cstdio>
#include <string>

#include "lib/util/common.h"
#include "transports/sim/cluster.h"
#include "transports/sim/network.h"

namespace {

constexpr uint32_t kRanksMax = 1u << 20;

// Results of the last run started from this thread.
thread_local uint64_t tls_last_hash = 0;
thread_local double tls_last_time_s = 0;

struct RankMain {
    void (*fn)(void *);
    void *arg;
};

ucc_status_t sim_run(const ucc_sim_params_t *params, void (*rank_main)(void *), void *arg) {
    if (params == nullptr || rank_main == nullptr) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: %s is NULL\n",
                     params == nullptr ? "params" : "rank_main");
        return UCC_ERR_INVALID_PARAM;
    }
    ucc::sim::ClusterParams p;
    p.n_ranks = 1;
    p.seed = 1;
    uint64_t flags = 0;
    const char *network = "hdr";
    if (params->mask & UCC_SIM_PARAM_FIELD_N_RANKS) {
        p.n_ranks = params->n_ranks;
    }
    if (params->mask & UCC_SIM_PARAM_FIELD_SEED) {
        p.seed = params->seed;
    }
    if ((params->mask & UCC_SIM_PARAM_FIELD_NETWORK) && params->network != nullptr) {
        network = params->network;
    }
    if (params->mask & UCC_SIM_PARAM_FIELD_STACK_SIZE) {
        p.stack_bytes = params->stack_size;
    }
    if (params->mask & UCC_SIM_PARAM_FIELD_FLAGS) {
        flags = params->flags;
    }
    if (p.n_ranks == 0 || p.n_ranks > kRanksMax) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: n_ranks=%u is not in [1, %u]\n", p.n_ranks,
                     kRanksMax);
        return UCC_ERR_INVALID_PARAM;
    }
    std::string error;
    if (ucc::sim::parse_network(network, &p.net, &error) != UCC_OK) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: %s\n", error.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    bool quiet = (flags & UCC_SIM_FLAG_QUIET) != 0;
    if (!quiet) {
        std::fprintf(stderr, "ucc_sim: seed=%" PRIu64 " ranks=%u network=%s\n", p.seed, p.n_ranks,
                     p.net.describe().c_str());
    }
    RankMain rm{rank_main, arg};
    ucc::sim::RunResult res = ucc::sim::run(p, [rm](uint32_t) { rm.fn(rm.arg); });
    tls_last_hash = res.trace_hash;
    tls_last_time_s = res.virtual_time_s;
    if (!quiet) {
        std::fprintf(stderr,
                     "ucc_sim: virtual time %.9g s, %" PRIu64 " events, trace hash 0x%016" PRIx64
                     "\n",
                     res.virtual_time_s, res.events, res.trace_hash);
    }
    return res.status;
}

}  // namespace

UCC_EXPORT ucc_status_t ucc_sim_run(const ucc_sim_params_t *params, void (*rank_main)(void *arg),
                                    void *arg) {
    return ucc::api_guard("ucc_sim_run", [&] { return sim_run(params, rank_main, arg); });
}

UCC_EXPORT uint32_t ucc_sim_rank(void) {
    try {
        return ucc::sim::current_rank();
    } catch (...) {
        return 0;
    }
}

UCC_EXPORT uint32_t ucc_sim_size(void) {
    try {
        return ucc::sim::cluster_size();
    } catch (...) {
        return 0;
    }
}

UCC_EXPORT ucc_status_t ucc_sim_oob(ucc_oob_coll_t *oob) {
    return ucc::api_guard("ucc_sim_oob", [&] {
        ucc_status_t st = ucc::sim::oob(oob);
        if (st != UCC_OK) {
            std::fprintf(stderr, "[ucc] ERROR ucc_sim_oob: %s\n",
                         oob == nullptr ? "oob is NULL" : "not called from a simulated rank");
        }
        return st;
    });
}

UCC_EXPORT double ucc_sim_now(void) {
    try {
        return ucc::sim::now_s();
    } catch (...) {
        return 0;
    }
}

UCC_EXPORT uint64_t ucc_sim_trace_hash(void) {
    return tls_last_hash;
}

UCC_EXPORT double ucc_sim_last_time(void) {
    return tls_last_time_s;
}
