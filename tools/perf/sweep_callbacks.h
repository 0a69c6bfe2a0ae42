// The tools' benchmark sweep (sweep.h) in completion-callback style, for a
// simulated rank without a fiber (ucc_sim --fiberless, UCC_SIM_FLAG_FIBERLESS).
//
// The same plan, calls and timings as run_sweep() on a shared Results, but
// nothing waits: start() makes the library and the context and posts the
// team (a context over the OOB learns its peers, and the team starts, in
// the rank's later passes); a progress hook
// (ucc_sim_on_progress) then drives the sweep. Each collective's callback
// records its status, and the hook, run after every pass over the rank's
// contexts, takes the next step: the next barrier or iteration, the next
// count, the teardown. The hook, not the callback, posts: a collective that
// completes inside its own post (zero size, one rank) then never recurses.
#pragma once

#include <memory>
#include <string>

#include "tools/perf/lifecycle.h"
#include "tools/perf/sweep.h"

namespace ucc::perf {

class CallbackSweep {
  public:
    CallbackSweep(const SweepPlan &plan, const SweepWorld &w, RankSetup setup, Results *results,
                  Progress *progress, Failures *failures);
    ~CallbackSweep();
    CallbackSweep(const CallbackSweep &) = delete;
    CallbackSweep &operator=(const CallbackSweep &) = delete;

    // Inside the rank: posts the setup and adds the hook, then returns.
    void start();

  private:
    struct Count;
    enum class Phase { kTeam, kBarrier, kAlign, kCollective, kAlignEnd, kTeardown, kDone };
    static ucc_status_t hook(void *self);
    static void completed(void *self, ucc_status_t status);
    // One step of the sweep; false when it waits for a completion.
    bool step();
    void begin_count();
    void next_iteration();
    void post_collective();
    void end_count();
    void next_count();  // the next count, or the teardown after the last
    void fail(const std::string &why);
    bool teardown();

    const SweepPlan &plan_;
    SweepWorld w_;
    RankSetup setup_;
    Results *results_;
    Progress *progress_;
    Failures *failures_;
    Lifecycle lc_;
    Phase phase_ = Phase::kTeam;
    size_t k_ = 0;                  // the count
    std::unique_ptr<Count> count_;  // its iterations' state
    ucc_coll_req_h req_ = nullptr;  // in flight
    OobAlign align_;                // an aligned start's and end's exchange (kAlign, kAlignEnd)
    bool done_ = false;             // req_'s callback has run
    ucc_status_t status_ = UCC_OK;  // ... with this status
    std::string err_;
};

}  // namespace ucc::perf
