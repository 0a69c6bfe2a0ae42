// Ranks without a fiber (ClusterParams::fiberless): programs in
// completion-callback style, run on the event loop's own stack.
//
// A rank's program (its start) runs once, from the ready queue like a fiber's
// first resume: it makes its library and context, posts a team creation or a
// collective with a callback, adds a progress hook and returns. From then on
// the rank is a set of contexts and hooks. Whenever something reaches it (a
// packet for one of its endpoints, an OOB round completing, a timer) it
// becomes ready, and at its turn the loop runs a pass: one step of each of
// its contexts (the progress() pass without the wait, Drain::step), whose
// completions run the program's callbacks, then each hook once. After a pass
// the rank
//   * runs again at once when a step left work behind or a hook was done;
//   * has finished when it has no hook and none of its contexts has anything
//     in flight (nothing of it can ever run again), or it exited (exit_rank);
//   * else waits, as a fiber in a lazy idle() does: until something arrives,
//     or until the earliest timeout of its requests.
// Nothing may wait inside a pass: idle() returns at once (a deadline it names
// is kept for the pass's end), so OOB tests return UCC_INPROGRESS and a
// context over the cluster's OOB learns its peers in later passes
// (SimulatedWorld::can_wait; lib/core/context_peers.h). A
// program that loops on progress inside a callback is caught by the spin
// limit, as a fiber that never blocks is.
//
// Clocks, sends and costs are those of the same calls made from a fiber; the
// order is the ready order, so a run is as deterministic as one with fibers.
#include <cmath>
#include <limits>
#include <new>

#include "transports/sim/cluster.h"
#include "transports/sim/sim_transport.h"

namespace ucc::sim {

namespace {

int64_t deadline_ps(double deadline_s) {
    return deadline_s <= 0 ? 0 : static_cast<int64_t>(std::ceil(deadline_s * 1e12));
}

bool finite_deadline(double deadline_s) {
    return !std::isnan(deadline_s) && deadline_s < 9.0e6;
}

}  // namespace

ucc_status_t Cluster::add_hook(uint32_t r, ucc_status_t (*fn)(void *), void *arg) {
    RankState &rs = ranks_[r];
    try {
        if (rs.hooks == nullptr) {
            rs.hooks = new Hooks();
        }
        rs.hooks->list.push_back(Hooks::Hook{fn, arg});
    } catch (const std::bad_alloc &) {
        return UCC_ERR_NO_MEMORY;  // an empty list goes at the next pass
    }
    return UCC_OK;
}

bool Cluster::run_hooks(uint32_t r) {
    RankState &rs = ranks_[r];
    if (rs.hooks == nullptr) {
        return false;
    }
    // A hook may add hooks (appended: they run in this pass too) and may
    // end the rank's contexts; each is looked up by index, never by pointer.
    bool done = false;
    for (size_t i = 0; i < rs.hooks->list.size();) {
        const Hooks::Hook h = rs.hooks->list[i];
        if (h.fn(h.arg) == UCC_INPROGRESS) {
            ++i;
            continue;
        }
        rs.hooks->list.erase(rs.hooks->list.begin() + static_cast<std::ptrdiff_t>(i));
        done = true;
    }
    if (rs.hooks->list.empty()) {
        delete rs.hooks;
        rs.hooks = nullptr;
    }
    return done;
}

void Cluster::idle_fiberless(uint32_t r, double deadline_s) {
    if (finite_deadline(deadline_s)) {
        pass_deadline_ps_ = std::min(pass_deadline_ps_, deadline_ps(deadline_s));
    }
    count_spin(r, "idle() in a rank without a fiber (a callback that waits in a loop)");
}

void Cluster::run_pass(uint32_t r) {
    RankState &rs = ranks_[r];
    running_ = r;
    ++drains_;
    rs.spins = 0;
    rs.polls = 0;
    pass_deadline_ps_ = std::numeric_limits<int64_t>::max();
    bool again = false;
    if (!rs.started) {
        rs.started = true;
        run_program(r);
        again = true;  // its first pass runs its hooks and steps its contexts
    } else {
        const uint32_t gen = rs.endpoint_gen;
        for (SimTransport *ep = rs.endpoints; ep != nullptr; ep = ep->next_in_rank_) {
            if (ep->owner_ != nullptr) {
                const ucc::Drain::Step s = ep->owner_->step();
                again |= s.again;
                if (finite_deadline(s.deadline)) {
                    pass_deadline_ps_ = std::min(pass_deadline_ps_, deadline_ps(s.deadline));
                }
            }
            if (rs.endpoint_gen != gen) {
                again = true;  // a callback made or destroyed a context: start over
                break;
            }
        }
        again |= run_hooks(r);
    }
    running_ = kNoRank;
    bool busy = false;
    for (const SimTransport *ep = rs.endpoints; ep != nullptr && !busy; ep = ep->next_in_rank_) {
        busy = ep->owner_ != nullptr && ep->owner_->busy();
    }
    // Once the world has given up, a pass that finds nothing more ends the
    // rank: its requests have failed, and nothing will ever arrive.
    if (rs.exiting || (!again && ((rs.hooks == nullptr && !busy) || aborted_))) {
        finish_rank(r);
        return;
    }
    if (again) {
        ready_.push_back(r);
        return;
    }
    // Waits, as a lazy idle() does: ahead of the world it needs no timer at
    // its own time (arm_ahead_timers), only at its earliest deadline.
    const int64_t t = clock_ps(r);
    rs.ahead_ps = t > now_ps_ ? t : 0;
    ++rs.wake_gen;
    rs.blocked = true;
    if (pass_deadline_ps_ != std::numeric_limits<int64_t>::max()) {
        push_event(Event{std::max(pass_deadline_ps_, t + 1), 0, 0, nullptr, rs.wake_gen, r,
                         EventKind::kWake});
    }
}

}  // namespace ucc::sim
