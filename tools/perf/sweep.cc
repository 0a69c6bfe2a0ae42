// The tools' benchmark sweep (sweep.h).
#include "tools/perf/sweep.h"

#include <algorithm>
#include <cmath>

#include "tools/perf/lifecycle.h"
#include "tools/perf/report.h"

namespace ucc::perf {

uint32_t SweepPlan::warmup(uint64_t count) const {
    return count >= large_from ? warmup_large : warmup_small;
}

uint32_t SweepPlan::iterations(uint64_t count) const {
    return std::max<uint32_t>(1, count >= large_from ? iters_large : iters_small);
}

std::vector<uint64_t> geometric_counts(uint64_t min, uint64_t max, uint64_t factor) {
    std::vector<uint64_t> v;
    for (uint64_t c = min; c <= max;) {
        v.push_back(c);
        if (c == 0) {
            c = 1;
        } else if (c > UINT64_MAX / factor) {
            break;
        } else {
            c *= factor;
        }
    }
    return v;
}

Results::Results(const SweepPlan &plan, uint32_t n)
    : plan_(plan),
      n_(n),
      counts_(plan.counts.size()),
      varrays_(plan.counts.size()),
      users_(plan.counts.size(), 0) {}

void Results::add(size_t k, uint32_t rank, double mean_s, const std::string &algorithm, bool wrong,
                  const std::string &why) {
    CountResult &r = counts_[k];
    r.sum_s += mean_s;
    r.min_s = r.ranks == 0 ? mean_s : std::min(r.min_s, mean_s);
    r.max_s = r.ranks == 0 ? mean_s : std::max(r.max_s, mean_s);
    ++r.ranks;
    if (rank == 0) {
        r.algorithm = algorithm;
    }
    if (wrong) {
        note_wrong(k, rank, why);
        ++r.wrong_ranks;
    }
}

void Results::note_wrong(size_t k, uint32_t rank, const std::string &why) {
    if (counts_[k].first_wrong.empty()) {
        counts_[k].first_wrong = "rank " + std::to_string(rank) + ": " + why;
    }
}

void Results::set(size_t k, uint32_t n, const double minmaxsum[3], const std::string &algorithm,
                  uint32_t wrong_ranks) {
    CountResult &r = counts_[k];
    r.ranks = n;
    r.min_s = minmaxsum[0];
    r.max_s = minmaxsum[1];
    r.sum_s = minmaxsum[2];
    r.algorithm = algorithm;
    r.wrong_ranks = wrong_ranks;
}

void Results::set_unchecked(size_t k, const std::string &why) {
    counts_[k].unchecked = why;
}

const VArrays *Results::varrays(size_t k) {
    if (!plan_.spec.coll->v) {
        return nullptr;
    }
    if (!varrays_[k]) {
        varrays_[k] = std::make_unique<VArrays>();
        varrays_[k]->build(plan_.counts[k], n_);
    }
    ++users_[k];
    return varrays_[k].get();
}

void Results::done_with(size_t k) {
    if (users_[k] > 0 && --users_[k] == 0) {
        varrays_[k].reset();
    }
}

bool prepare_iteration(const SweepPlan &plan, const CollSpec &spec, uint64_t count, uint32_t n,
                       uint32_t rank, const VArrays *va, uint32_t it, bool last, CollSpec *s,
                       CollCall *call, ucc_coll_req_h *persistent) {
    // A root shift moves the root every iteration (fresh arguments).
    *s = spec;
    s->root = static_cast<uint32_t>((spec.root + uint64_t{it} * plan.root_shift) % n);
    const bool build = it < plan.n_bufs || (plan.root_shift != 0 && s->root != call->args.root);
    if (build) {
        if (*persistent != nullptr) {
            ucc_collective_finalize(*persistent);
            *persistent = nullptr;
        }
        build_call(*s, count, n, rank, va, call);
    }
    if (last && plan.check) {
        fill_pattern(*s, count, n, rank, call);
    }
    if (build || (last && plan.check)) {
        call->device_error = push_to_device(*s, call);
    }
    return build;
}

namespace {

// -T: a CUDA stream and a UCC_EE_CUDA_STREAM engine on it, for one count's
// iterations. Each collective is triggered on the stream and its
// COLLECTIVE_POST event taken at once, as the reference's perftest does.
class TriggerEngine {
  public:
    TriggerEngine() = default;
    TriggerEngine(const TriggerEngine &) = delete;
    TriggerEngine &operator=(const TriggerEngine &) = delete;
    ~TriggerEngine() {
        if (ee_ != nullptr) {
            ucc_ee_destroy(ee_);
        }
        if (stream_ != nullptr) {
            cuda_->stream_sync(stream_);
            cuda_->stream_destroy(stream_);
        }
    }
    // "" or what failed.
    // Without a component (a simulated run) any handle names a simulated
    // stream of the rank: this engine's address.
    std::string open(const CollSpec &spec, ucc_team_h team) {
        cuda_ = spec.cuda;
        void *stream = this;
        if (cuda_ != nullptr) {
            if (const int rc = cuda_->stream_create(&stream_); rc != 0) {
                stream_ = nullptr;
                return std::string("-T: creating a CUDA stream: ") + cuda_->error_string(rc);
            }
            stream = stream_;
        }
        ucc_ee_params_t p{};
        p.ee_type = UCC_EE_CUDA_STREAM;
        p.ee_context = stream;
        p.ee_context_size = sizeof(stream);
        if (const ucc_status_t st = ucc_ee_create(team, &p, &ee_); st != UCC_OK) {
            ee_ = nullptr;
            return std::string("-T: ucc_ee_create: ") + ucc_status_string(st);
        }
        return "";
    }
    ucc_status_t post(ucc_coll_req_h req) {
        ucc_ev_t ev{};
        ev.ev_type = UCC_EVENT_COMPUTE_COMPLETE;
        ev.req = req;
        if (const ucc_status_t st = ucc_collective_triggered_post(ee_, &ev); st != UCC_OK) {
            return st;
        }
        ucc_ev_t *posted = nullptr;
        if (const ucc_status_t st = ucc_ee_get_event(ee_, &posted); st != UCC_OK) {
            return st;
        }
        const bool right = posted->ev_type == UCC_EVENT_COLLECTIVE_POST;
        ucc_ee_ack_event(ee_, posted);
        return right ? UCC_OK : UCC_ERR_NO_MESSAGE;
    }

  private:
    const ucc_cuda_component_t *cuda_ = nullptr;
    void *stream_ = nullptr;
    ucc_ee_h ee_ = nullptr;
};

// The numbers of one count on one rank.
struct Measured {
    double mean_s = 0;
    std::string algorithm;
    bool wrong = false;
    std::string why;  // of a wrong result, or of one that could not be checked
    std::string err;  // a failed call: the rank stops
};

// The iterations of one count on one rank.
Measured measure(const SweepPlan &plan, const SweepWorld &w, ucc_team_h team, ucc_context_h ctx,
                 uint64_t count, const VArrays *va, Progress *progress) {
    Measured m;
    const uint32_t n = w.size;
    const uint32_t warmup = plan.warmup(count);
    const uint32_t iters = plan.iterations(count);
    CollSpec spec = plan.spec;
    spec.root = plan.spec.root % n;
    std::vector<CollCall> calls(plan.n_bufs);
    std::vector<ucc_coll_req_h> persistent(plan.n_bufs, nullptr);
    double timed = 0;
    double start = 0;
    ucc_status_t st = UCC_OK;
    TriggerEngine trigger;
    if (spec.triggered) {
        if (m.err = trigger.open(spec, team); !m.err.empty()) {
            return m;
        }
    }
    for (uint32_t it = 0; it < warmup + iters; ++it) {
        CollSpec s;
        const uint32_t b = it % plan.n_bufs;
        const bool last = it + 1 == warmup + iters;
        prepare_iteration(plan, spec, count, n, w.rank, va, it, last, &s, &calls[b],
                          &persistent[b]);
        if (!calls[b].device_error.empty()) {
            m.err = calls[b].device_error;
            break;
        }
        if (plan.per_iteration || it == warmup) {
            if ((st = barrier(team, ctx)) != UCC_OK) {
                m.err = failed("barrier", st);
                break;
            }
            if (plan.aligned && (st = align(w.oob)) != UCC_OK) {
                m.err = failed("the aligned start's OOB allgather", st);
                break;
            }
            start = w.now();
        }
        ucc_coll_req_h req = persistent[b];
        double t0 = w.now();  // a persistent request's init is outside (below)
        if (req == nullptr && (st = w.init(&calls[b].args, &req, team)) != UCC_OK) {
            m.err = failed("ucc_collective_init", st);
            break;
        }
        if (spec.persistent) {
            t0 = w.now();
        }
        st = spec.triggered ? trigger.post(req) : ucc_collective_post(req);
        if (st == UCC_OK) {
            st = wait(req, ctx);
        }
        if (it == warmup) {
            m.algorithm = w.algorithm(req);
        }
        if (spec.persistent) {
            persistent[b] = req;
        } else {
            w.finalize(req);
        }
        const double t1 = w.now();
        if (st != UCC_OK) {
            m.err = std::string(spec.coll->name) + " of " + std::to_string(count) +
                    " elements failed: " + ucc_status_string(st);
            break;
        }
        if (it >= warmup) {
            timed += plan.per_iteration ? t1 - t0 : 0;
        }
        if (last && !plan.per_iteration) {
            timed = w.now() - start;
        }
        if (last && plan.check) {
            if (const std::string e = pull_from_device(s, &calls[b]); !e.empty()) {
                m.err = e;
                break;
            }
            m.wrong = !check_result(s, count, n, w.rank, calls[b], &m.why);
        }
        if (progress != nullptr) {
            progress->tick();
        }
    }
    for (ucc_coll_req_h r : persistent) {
        if (r != nullptr) {
            ucc_collective_finalize(r);
        }
    }
    // Aligned, no rank goes on to the next count before every rank is done
    // with this one: the next count's warm-up messages would reach this
    // count's slowest ranks (a linear gather's sends at the root's port
    // while it still takes in a tree's) and time what is not the collective's.
    if (plan.aligned && m.err.empty() && (st = align(w.oob)) != UCC_OK) {
        m.err = failed("the aligned end's OOB allgather", st);
    }
    m.mean_s = timed / iters;
    return m;
}

// Allreduce of n doubles in place.
ucc_status_t allreduce(double *v, uint64_t n, ucc_reduction_op_t op, ucc_team_h team,
                       ucc_context_h ctx) {
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = op;
    a.dst.info = {v, n, UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
    return run_collective(&a, team, ctx);
}

}  // namespace

std::string run_sweep(const SweepPlan &plan, const SweepWorld &w, ucc_team_h team,
                      ucc_context_h ctx, Results *results, Progress *progress) {
    for (size_t k = 0; k < plan.counts.size(); ++k) {
        const uint64_t count = plan.counts[k];
        Measured m = measure(plan, w, team, ctx, count, results->varrays(k), progress);
        results->done_with(k);
        if (!m.wrong && !m.why.empty()) {
            results->set_unchecked(k, m.why);  // e.g. 16-bit float sums at scale
        }
        if (w.shared) {
            if (!m.err.empty()) {
                return m.err;
            }
            results->add(k, w.rank, m.mean_s, m.algorithm, m.wrong, m.why);
            continue;
        }
        // Every rank's numbers, and whether every rank got through (a failed
        // rank still takes part, so that no rank waits for it).
        const bool failed_here = !m.err.empty();
        double mx[2] = {m.mean_s, -m.mean_s};
        double sum[3] = {m.mean_s, m.wrong ? 1.0 : 0.0, failed_here ? 1.0 : 0.0};
        ucc_status_t st = allreduce(mx, 2, UCC_OP_MAX, team, ctx);
        if (st == UCC_OK) {
            st = allreduce(sum, 3, UCC_OP_SUM, team, ctx);
        }
        if (failed_here) {
            return m.err;
        }
        if (st != UCC_OK) {
            return failed("the allreduce of the timings", st);
        }
        if (sum[2] > 0) {
            return "another rank failed at count " + std::to_string(count);
        }
        if (m.wrong) {
            results->note_wrong(k, w.rank, m.why);  // the story, known here only
        }
        const double minmaxsum[3] = {-mx[1], mx[0], sum[0]};
        results->set(k, w.size, minmaxsum, m.algorithm, static_cast<uint32_t>(std::lround(sum[1])));
    }
    return "";
}

}  // namespace ucc::perf
