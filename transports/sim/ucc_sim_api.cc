// The simulator's C API (include/ucc/sim/ucc_sim.h).
#include "ucc/sim/ucc_sim.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "lib/coll/algorithms.h"
#include "lib/net/network_arg.h"
#include "lib/net/network_model.h"
#include "lib/util/common.h"
#include "transports/sim/cluster.h"
#include "transports/sim/timeline.h"

namespace {

constexpr uint32_t kRanksMax = 1u << 20;

// Results of the last run started from this thread.
thread_local uint64_t tls_last_hash = 0;
thread_local double tls_last_time_s = 0;
thread_local uint64_t tls_last_events = 0;
thread_local uint64_t tls_last_resumes = 0;

// `text` into buf, cut to len - 1 bytes and NUL-terminated (nothing when len is 0).
void copy_out(const std::string &text, char *buf, size_t len) {
    if (buf != nullptr && len > 0) {
        const size_t n = std::min(len - 1, text.size());
        std::memcpy(buf, text.data(), n);
        buf[n] = '\0';
    }
}

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
    // A run refused below leaves zeros, not the figures of an earlier run.
    tls_last_hash = 0;
    tls_last_time_s = 0;
    tls_last_events = 0;
    tls_last_resumes = 0;
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
    if (params->mask & UCC_SIM_PARAM_FIELD_TIMING_ONLY) {
        p.timing_only = params->timing_only != 0;
    }
    if ((params->mask & UCC_SIM_PARAM_FIELD_TIMELINE) && params->timeline != nullptr) {
        p.timeline = params->timeline;
        if (p.timeline.empty()) {
            std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: timeline is an empty path\n");
            return UCC_ERR_INVALID_PARAM;
        }
    }
    if ((params->mask & UCC_SIM_PARAM_FIELD_TIMELINE_RANKS) && params->timeline_ranks != nullptr) {
        p.timeline_ranks = params->timeline_ranks;
    }
    const char *faults = "";
    if ((params->mask & UCC_SIM_PARAM_FIELD_FAULTS) && params->faults != nullptr) {
        faults = params->faults;
    }
    if (p.n_ranks == 0 || p.n_ranks > kRanksMax) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: n_ranks=%u is not in [1, %u]\n", p.n_ranks,
                     kRanksMax);
        return UCC_ERR_INVALID_PARAM;
    }
    std::string error;
    if (ucc::net::parse_network(network, &p.net, &error) != UCC_OK) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: %s\n", error.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    if (!p.timeline.empty()) {
        std::string error;
        ucc::sim::RankSet set;
        if (!ucc::sim::RankSet::parse(p.timeline_ranks, p.n_ranks, &set, &error)) {
            std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: timeline_ranks: %s\n", error.c_str());
            return UCC_ERR_INVALID_PARAM;
        }
    }
    if (!ucc::sim::FaultPlan::from_spec(faults, p.n_ranks, p.seed, &p.faults, &error)) {
        std::fprintf(stderr, "[ucc] ERROR ucc_sim_run: %s\n", error.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    p.drain = (flags & UCC_SIM_FLAG_NO_DRAIN) == 0;
    p.fiberless = (flags & UCC_SIM_FLAG_FIBERLESS) != 0;
    p.inputs_written = (flags & UCC_SIM_FLAG_INPUTS_WRITTEN) != 0;
    bool quiet = (flags & UCC_SIM_FLAG_QUIET) != 0;
    if (!quiet) {
        std::fprintf(stderr, "ucc_sim: seed=%" PRIu64 " ranks=%u network=%s%s%s\n", p.seed,
                     p.n_ranks, p.net.describe().c_str(), p.timing_only ? " timing-only" : "",
                     p.inputs_written && p.net.written_pulls() ? " inputs-written" : "");
        if (!p.faults.empty()) {
            std::fprintf(stderr, "ucc_sim: faults=%s\n", p.faults.describe().c_str());
        }
    }
    RankMain rm{rank_main, arg};
    ucc::sim::RunResult res = ucc::sim::run(p, [rm](uint32_t) { rm.fn(rm.arg); });
    if (res.status == UCC_ERR_INVALID_PARAM && res.events == 0 && !res.report.empty()) {
        std::fputs(res.report.c_str(), stderr);  // refused before it started (e.g. the timeline)
    }
    tls_last_hash = res.trace_hash;
    tls_last_time_s = res.virtual_time_s;
    tls_last_events = res.events;
    tls_last_resumes = res.resumes;
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

UCC_EXPORT ucc_status_t ucc_sim_run_threads(uint32_t n_threads,
                                            void (*thread_main)(uint32_t thread, void *arg),
                                            void *arg) {
    return ucc::api_guard("ucc_sim_run_threads", [&] {
        const char *bad = n_threads == 0           ? "n_threads is 0"
                          : thread_main == nullptr ? "thread_main is NULL"
                          : !ucc::sim::in_rank()   ? "not called from a simulated rank"
                          : ucc::sim::fiberless()  ? "a rank without a fiber has no threads"
                                                   : nullptr;
        ucc_status_t st = UCC_ERR_INVALID_PARAM;
        if (bad == nullptr) {
            st = ucc::sim::run_threads(n_threads, [&](uint32_t t) { thread_main(t, arg); });
            bad = st == UCC_ERR_INVALID_PARAM ? "called from inside a thread"
                                              : "no memory for the threads' stacks";
        }
        if (st != UCC_OK) {
            std::fprintf(stderr, "[ucc] ERROR ucc_sim_run_threads: %s\n", bad);
        }
        return st;
    });
}

UCC_EXPORT ucc_status_t ucc_sim_on_progress(ucc_status_t (*fn)(void *arg), void *arg) {
    return ucc::api_guard("ucc_sim_on_progress", [&] {
        const ucc_status_t st = ucc::sim::on_progress(fn, arg);
        if (st != UCC_OK) {
            std::fprintf(stderr, "[ucc] ERROR ucc_sim_on_progress: %s\n",
                         fn == nullptr ? "fn is NULL"
                         : st == UCC_ERR_INVALID_PARAM
                             ? "not called from a simulated rank without a fiber "
                               "(UCC_SIM_FLAG_FIBERLESS)"
                             : "no memory for the hook");
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

UCC_EXPORT void ucc_sim_compute(double seconds) {
    try {
        ucc::sim::compute(seconds);
    } catch (...) {
    }
}

UCC_EXPORT uint64_t ucc_sim_trace_hash(void) {
    return tls_last_hash;
}

UCC_EXPORT double ucc_sim_last_time(void) {
    return tls_last_time_s;
}

UCC_EXPORT uint64_t ucc_sim_last_events(void) {
    return tls_last_events;
}

UCC_EXPORT uint64_t ucc_sim_last_resumes(void) {
    return tls_last_resumes;
}

UCC_EXPORT ucc_status_t ucc_sim_algorithms(ucc_coll_type_t coll_type, char *buf, size_t len) {
    const auto t = static_cast<uint64_t>(coll_type);
    if (t == 0 || (t & (t - 1)) != 0 || t >= UCC_COLL_TYPE_LAST) {
        return UCC_ERR_INVALID_PARAM;
    }
    std::string list;
    for (const ucc::coll::Algorithm &a : ucc::coll::algorithms(coll_type)) {
        if (!a.hierarchical && !a.onesided && a.score == 0) {
            list += (list.empty() ? "" : ",") + std::string(a.name);
        }
    }
    if (list.size() + 1 > len) {
        return UCC_ERR_NO_RESOURCE;
    }
    std::memcpy(buf, list.c_str(), list.size() + 1);
    return UCC_OK;
}

UCC_EXPORT const char *ucc_sim_last_algorithm(void) {
    try {
        return ucc::sim::last_algorithm();
    } catch (...) {
        return "";
    }
}

UCC_EXPORT void ucc_sim_exit(void) {
    ucc::sim::exit_rank();
}

UCC_EXPORT ucc_status_t ucc_sim_faults_describe(const char *spec, uint32_t n_ranks, uint64_t seed,
                                                char *buf, size_t len) {
    return ucc::api_guard("ucc_sim_faults_describe", [&] {
        ucc::sim::FaultPlan plan;
        std::string error;
        ucc_status_t st = UCC_OK;
        if (n_ranks == 0 || n_ranks > kRanksMax) {
            error = "n_ranks=" + std::to_string(n_ranks) + " is not in [1, " +
                    std::to_string(kRanksMax) + "]";
            st = UCC_ERR_INVALID_PARAM;
        } else if (!ucc::sim::FaultPlan::from_spec(spec != nullptr ? spec : "", n_ranks, seed,
                                                   &plan, &error)) {
            st = UCC_ERR_INVALID_PARAM;
        }
        const std::string text = st == UCC_OK ? plan.describe() : error;
        copy_out(text, buf, len);
        return st;
    });
}

UCC_EXPORT ucc_status_t ucc_sim_network_resolve(const char *name, char *buf, size_t len,
                                                uint64_t *slots) {
    return ucc::api_guard("ucc_sim_network_resolve", [&] {
        ucc::net::NetworkArg arg;
        std::string error;
        if (name == nullptr || !ucc::net::resolve_network(name, &arg, &error)) {
            copy_out(name == nullptr ? "name is NULL" : error, buf, len);
            return UCC_ERR_INVALID_PARAM;
        }
        if (arg.spec.size() + 1 > len) {
            return UCC_ERR_NO_RESOURCE;
        }
        copy_out(arg.spec, buf, len);
        if (slots != nullptr) {
            *slots = arg.slots;
        }
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_sim_network_describe(const char *spec, char *buf, size_t len) {
    return ucc::api_guard("ucc_sim_network_describe", [&] {
        ucc::net::NetworkModel m;
        std::string error;
        ucc_status_t st = ucc::net::parse_network(spec, &m, &error);
        copy_out(st == UCC_OK ? m.describe() : error, buf, len);
        return st;
    });
}
