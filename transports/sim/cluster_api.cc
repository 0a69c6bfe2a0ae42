// The public functions of cluster.h outside the Cluster class: run(), which
// runs a simulation on a thread of its own, and what a rank asks of its
// cluster (oob() is in cluster_oob.cc, run_threads() in sim_threads.cc).
#include <cmath>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "transports/sim/cluster.h"
#include "transports/sim/timeline.h"

namespace ucc::sim {

RunResult run(const ClusterParams &p, std::function<void(uint32_t rank)> program) {
    RunResult res;
    if (p.n_ranks == 0 || !program) {
        res.status = UCC_ERR_INVALID_PARAM;
        res.report = p.n_ranks == 0 ? "ucc_sim: n_ranks must be at least 1\n"
                                    : "ucc_sim: no program to run\n";
        return res;
    }
    std::unique_ptr<Timeline> timeline;
    if (!p.timeline.empty()) {
        std::string error;
        timeline = Timeline::open(p.timeline, p.timeline_ranks, p.n_ranks, p.seed, p.net.describe(),
                                  &error);
        if (!timeline) {
            res.status = UCC_ERR_INVALID_PARAM;
            res.report = "ucc_sim: " + error + "\n";
            return res;
        }
    }
    auto body = [&]() {
        try {
            Cluster c(p, std::move(program));
            c.set_timeline(timeline.get());
            res = c.execute();
            std::string error;
            if (timeline &&
                !timeline->close([&c](uint32_t r) { return c.rank_state(r).clock_ps; }, &error)) {
                c.note("ucc_sim: " + error);
                res.report += "ucc_sim: " + error + "\n";
                if (res.status == UCC_OK) {
                    res.status = UCC_ERR_NO_RESOURCE;
                }
            }
        } catch (const std::bad_alloc &) {
            res = RunResult();
            res.status = UCC_ERR_NO_MEMORY;
            res.report = "ucc_sim: out of memory setting up the cluster\n";
        }
    };
    try {
        std::thread t(body);
        t.join();
    } catch (const std::system_error &) {
        res.status = UCC_ERR_NO_RESOURCE;
        res.report = "ucc_sim: cannot start the simulation thread\n";
    }
    return res;
}

bool in_rank() {
    Cluster *c = Cluster::current();
    return c != nullptr && c->running_rank() != kNoRank;
}

uint32_t current_rank() {
    Cluster *c = Cluster::current();
    if (c == nullptr) {
        return 0;
    }
    uint32_t r = c->running_rank();
    return r == kNoRank ? 0 : r;
}

uint32_t cluster_size() {
    Cluster *c = Cluster::current();
    return c == nullptr ? 0 : c->size();
}

void record_user_event(TraceEvent e) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return;
    }
    e.kind = TraceKind::kUser;
    c->record(c->running_rank(), e);
}

double now_s() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return 0;
    }
    return static_cast<double>(c->clock_ps(c->running_rank())) / 1e12;
}

bool compute(double seconds) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return false;
    }
    if (seconds > 0) {
        c->advance(c->running_rank(), static_cast<int64_t>(std::llround(seconds * 1e12)));
    }
    return true;
}

bool fiberless() {
    Cluster *c = Cluster::current();
    return c != nullptr && c->running_rank() != kNoRank && c->fiberless();
}

ucc_status_t on_progress(ucc_status_t (*fn)(void *arg), void *arg) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank || !c->fiberless() || fn == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    return c->add_hook(c->running_rank(), fn, arg);
}

}  // namespace ucc::sim
