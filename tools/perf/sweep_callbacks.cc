// The tools' sweep in completion-callback style (sweep_callbacks.h).
#include "tools/perf/sweep_callbacks.h"

#include <utility>
#include <vector>

#include "tools/perf/report.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::perf {

// The iterations of one count, as measure() in sweep.cc runs them.
struct CallbackSweep::Count {
    uint64_t count = 0;
    uint32_t warmup = 0;
    uint32_t iters = 1;
    const VArrays *va = nullptr;
    CollSpec spec;  // root within the team
    std::vector<CollCall> calls;
    std::vector<ucc_coll_req_h> persistent;
    uint32_t it = 0;
    uint32_t b = 0;  // the iteration's buffer set
    CollSpec s;      // the iteration's arguments (root shifted)
    double timed = 0;
    double start = 0;
    double t0 = 0;
    std::string algorithm;
    bool wrong = false;
    std::string why;
    bool last() const { return it + 1 == warmup + iters; }
};

CallbackSweep::CallbackSweep(const SweepPlan &plan, const SweepWorld &w, RankSetup setup,
                             Results *results, Progress *progress, Failures *failures)
    : plan_(plan),
      w_(w),
      setup_(std::move(setup)),
      results_(results),
      progress_(progress),
      failures_(failures) {}

CallbackSweep::~CallbackSweep() = default;

void CallbackSweep::start() {
    err_ = lc_.post(setup_);
    if (!err_.empty()) {
        failures_->note(w_.rank, err_);
        phase_ = Phase::kTeardown;
    }
    if (ucc_sim_on_progress(hook, this) != UCC_OK) {
        failures_->note(w_.rank, "ucc_sim_on_progress failed");
        lc_.teardown();
        ucc_sim_exit();
    }
}

ucc_status_t CallbackSweep::hook(void *self) {
    auto *me = static_cast<CallbackSweep *>(self);
    while (me->step()) {
    }
    return me->phase_ == Phase::kDone ? UCC_OK : UCC_INPROGRESS;
}

void CallbackSweep::completed(void *self, ucc_status_t status) {
    auto *me = static_cast<CallbackSweep *>(self);
    me->done_ = true;
    me->status_ = status;
}

bool CallbackSweep::step() {
    switch (phase_) {
        case Phase::kTeam: {
            const ucc_status_t st = ucc_team_create_test(lc_.team);
            if (st == UCC_INPROGRESS) {
                return false;
            }
            if (st != UCC_OK) {
                fail(failed("ucc_team_create_test", st));
            } else if (plan_.counts.empty()) {
                phase_ = Phase::kTeardown;
            } else {
                begin_count();
            }
            return true;
        }
        case Phase::kAlign:
        case Phase::kAlignEnd: {
            const bool start = phase_ == Phase::kAlign;
            const ucc_status_t st = align_.test();
            if (st == UCC_INPROGRESS) {
                return false;
            }
            if (st != UCC_OK) {
                fail(failed(
                    start ? "the aligned start's OOB allgather" : "the aligned end's OOB allgather",
                    st));
            } else if (start) {
                count_->start = w_.now();
                post_collective();
            } else {
                next_count();
            }
            return true;
        }
        case Phase::kBarrier:
        case Phase::kCollective:
            break;
        case Phase::kTeardown:
            return teardown();
        case Phase::kDone:
            return false;
    }
    if (!done_) {
        return false;
    }
    done_ = false;
    Count &c = *count_;
    if (phase_ == Phase::kBarrier) {
        ucc_collective_finalize(req_);
        req_ = nullptr;
        if (status_ != UCC_OK) {
            fail(failed("barrier", status_));
            return true;
        }
        if (plan_.aligned) {
            phase_ = Phase::kAlign;
            if (const ucc_status_t st = align_.post(w_.oob); st != UCC_OK) {
                fail(failed("the aligned start's OOB allgather", st));
            }
            return true;
        }
        c.start = w_.now();
        post_collective();
        return true;
    }
    if (c.it == c.warmup) {
        c.algorithm = w_.algorithm(req_);
    }
    if (c.spec.persistent) {
        c.persistent[c.b] = req_;
    } else {
        w_.finalize(req_);
    }
    const double t1 = w_.now();
    req_ = nullptr;
    if (status_ != UCC_OK) {
        fail(std::string(c.spec.coll->name) + " of " + std::to_string(c.count) +
             " elements failed: " + ucc_status_string(status_));
        return true;
    }
    if (c.it >= c.warmup && plan_.per_iteration) {
        c.timed += t1 - c.t0;
    }
    if (c.last() && !plan_.per_iteration) {
        c.timed = w_.now() - c.start;
    }
    if (c.last() && plan_.check) {
        c.wrong = !check_result(c.s, c.count, w_.size, w_.rank, c.calls[c.b], &c.why);
    }
    if (progress_ != nullptr) {
        progress_->tick();
    }
    ++c.it;
    next_iteration();
    return true;
}

void CallbackSweep::begin_count() {
    count_ = std::make_unique<Count>();
    Count &c = *count_;
    c.count = plan_.counts[k_];
    c.warmup = plan_.warmup(c.count);
    c.iters = plan_.iterations(c.count);
    c.va = results_->varrays(k_);
    c.spec = plan_.spec;
    c.spec.root = plan_.spec.root % w_.size;
    c.calls.resize(plan_.n_bufs);
    c.persistent.assign(plan_.n_bufs, nullptr);
    next_iteration();
}

void CallbackSweep::next_iteration() {
    Count &c = *count_;
    if (c.it == c.warmup + c.iters) {
        end_count();
        return;
    }
    c.b = c.it % plan_.n_bufs;
    if (prepare_iteration(plan_, c.spec, c.count, w_.size, w_.rank, c.va, c.it, c.last(), &c.s,
                          &c.calls[c.b], &c.persistent[c.b])) {
        ucc_coll_args_t &a = c.calls[c.b].args;
        a.mask |= UCC_COLL_ARGS_FIELD_CB;
        a.cb.cb = completed;
        a.cb.data = this;
    }
    if (plan_.per_iteration || c.it == c.warmup) {
        ucc_coll_args_t a{};
        a.mask = UCC_COLL_ARGS_FIELD_CB;
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        a.cb.cb = completed;
        a.cb.data = this;
        phase_ = Phase::kBarrier;
        ucc_status_t st = ucc_collective_init(&a, &req_, lc_.team);
        if (st == UCC_OK && (st = ucc_collective_post(req_)) != UCC_OK) {
            ucc_collective_finalize(req_);
        }
        if (st != UCC_OK) {
            req_ = nullptr;
            fail(failed("barrier", st));
        }
        return;
    }
    post_collective();
}

void CallbackSweep::post_collective() {
    Count &c = *count_;
    phase_ = Phase::kCollective;
    req_ = c.persistent[c.b];
    c.persistent[c.b] = nullptr;
    ucc_status_t st = UCC_OK;
    c.t0 = w_.now();  // a persistent request's init is outside (below)
    if (req_ == nullptr && (st = w_.init(&c.calls[c.b].args, &req_, lc_.team)) != UCC_OK) {
        req_ = nullptr;
        fail(failed("ucc_collective_init", st));
        return;
    }
    if (c.spec.persistent) {
        c.t0 = w_.now();
    }
    if ((st = ucc_collective_post(req_)) != UCC_OK) {
        ucc_collective_finalize(req_);
        req_ = nullptr;
        fail(std::string(c.spec.coll->name) + " of " + std::to_string(c.count) +
             " elements failed: " + ucc_status_string(st));
    }
}

void CallbackSweep::end_count() {
    Count &c = *count_;
    for (ucc_coll_req_h r : c.persistent) {
        if (r != nullptr) {
            ucc_collective_finalize(r);
        }
    }
    results_->done_with(k_);
    if (!c.wrong && !c.why.empty()) {
        results_->set_unchecked(k_, c.why);  // e.g. 16-bit float sums at scale
    }
    results_->add(k_, w_.rank, c.timed / c.iters, c.algorithm, c.wrong, c.why);
    count_.reset();
    if (plan_.aligned) {  // no rank goes on before every rank is done (sweep.cc)
        phase_ = Phase::kAlignEnd;
        if (const ucc_status_t st = align_.post(w_.oob); st != UCC_OK) {
            fail(failed("the aligned end's OOB allgather", st));
        }
        return;
    }
    next_count();
}

void CallbackSweep::next_count() {
    if (++k_ < plan_.counts.size()) {
        begin_count();
    } else {
        phase_ = Phase::kTeardown;
    }
}

void CallbackSweep::fail(const std::string &why) {
    err_ = why;
    failures_->note(w_.rank, why);
    if (count_) {
        for (ucc_coll_req_h r : count_->persistent) {
            if (r != nullptr) {
                ucc_collective_finalize(r);
            }
        }
        results_->done_with(k_);
        count_.reset();
    }
    phase_ = Phase::kTeardown;
}

bool CallbackSweep::teardown() {
    const std::string down = lc_.teardown();  // team destruction does not wait
    if (!down.empty() && err_.empty()) {
        err_ = down;
        failures_->note(w_.rank, down);
    }
    if (!err_.empty()) {
        ucc_sim_exit();  // as a process that exits on the error: its peers see it gone
    }
    phase_ = Phase::kDone;
    return true;
}

}  // namespace ucc::perf
