// Threads of a simulated rank (run_threads; CONFORMANCE.md P47).
//
// A program in UCC_THREAD_MULTIPLE mode drives one context from several
// threads. On the simulator a rank's threads are fibers of that rank: the
// rank's own fiber becomes their scheduler and resumes one thread at a time;
// a thread runs until it reaches a library yield point and hands control
// back. The yield points are where a real thread can lose the CPU to another
// inside the library: the entry of every API call on a context (its lock,
// lib/core/core.h ContextGuard) and the transport's idle(). At an entry the
// thread gives way with probability 1/2; the scheduler then resumes a runnable
// thread drawn uniformly. Both draws come from the cluster's thread stream
// (seeded from the run's seed), so one seed is one interleaving, replayed bit
// for bit, and many seeds explore many.
//
// A thread is runnable, idle (it called idle(): it waits for the rank's next
// event or its deadline, or for another thread to return), waiting (for a lock another thread
// holds: runnable again once another thread has run) or done. When no thread is runnable the
// scheduler idles the rank itself, with the earliest deadline of its idle
// threads, and wakes them all when the rank wakes. Threads share the rank's
// clock: they model concurrency, not extra cores.
//
// Cost: one fiber and stack per thread (the rank's stack size); nothing per
// thread in RankState beyond one pointer per rank.
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "transports/sim/fiber_switch.h"

namespace ucc::sim {

namespace {

enum ThreadState : uint8_t { kRunnable, kIdle, kWaiting, kDone };
constexpr uint32_t kNoThread = UINT32_MAX;

// A guarded stack that also tells where it is (for AddressSanitizer).
class ThreadStack {
  public:
    ThreadStack(size_t bytes, boost::context::stack_context *where)
        : inner_(bytes), where_(where) {}
    boost::context::stack_context allocate() {
        boost::context::stack_context s = inner_.allocate();
        *where_ = s;
        return s;
    }
    void deallocate(boost::context::stack_context &s) noexcept { inner_.deallocate(s); }

  private:
    boost::context::protected_fixedsize_stack inner_;
    boost::context::stack_context *where_;
};

}  // namespace

struct RankThreads {
    struct Thread {
        boost::context::fiber fiber;  // while it is not running
        boost::context::stack_context stack;
        ThreadState state = kRunnable;
        double deadline_s = INFINITY;  // kIdle: of its idle() call
        bool lazy = true;
    };
    std::vector<Thread> threads;
    uint32_t current = kNoThread;            // the thread running now
    boost::context::fiber scheduler;         // the rank's fiber while a thread runs
    const void *scheduler_bottom = nullptr;  // its stack, for AddressSanitizer
    size_t scheduler_size = 0;
    bool threw = false;
};

uint32_t Cluster::thread_of(uint32_t r) const {
    const RankThreads *rt = ranks_[r].threads;
    return rt == nullptr || rt->current == kNoThread ? 0 : rt->current + 1;
}

void Cluster::switch_to_scheduler(uint32_t r, uint8_t state, double deadline_s, bool lazy) {
    RankThreads &rt = *ranks_[r].threads;
    RankThreads::Thread &t = rt.threads[rt.current];
    t.state = static_cast<ThreadState>(state);
    t.deadline_s = deadline_s;
    t.lazy = lazy;
    void *fake = nullptr;
    asan_switch_start(&fake, rt.scheduler_bottom, rt.scheduler_size);
    rt.scheduler = std::move(rt.scheduler).resume();
    asan_switch_finish(fake, nullptr, nullptr);
}

void Cluster::yield_thread(uint32_t r, bool blocked) {
    if (ranks_[r].threads == nullptr || thread_of(r) == 0) {
        return;
    }
    if (!blocked && (thread_rng_.next() & 1) != 0) {
        return;  // the seed lets this thread go on
    }
    switch_to_scheduler(r, blocked ? kWaiting : kRunnable, INFINITY, true);
}

ucc_status_t Cluster::run_threads(uint32_t r, uint32_t k,
                                  const std::function<void(uint32_t)> &body) {
    RankState &rs = ranks_[r];
    if (k == 0 || rs.threads != nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    RankThreads rt;
    try {
        rt.threads.resize(k);
        for (uint32_t i = 0; i < k; ++i) {
            RankThreads::Thread &t = rt.threads[i];
            t.fiber = boost::context::fiber(
                std::allocator_arg, ThreadStack(params_.stack_bytes, &t.stack),
                [i, &rt, &body](boost::context::fiber &&scheduler) {
                    asan_switch_finish(nullptr, &rt.scheduler_bottom, &rt.scheduler_size);
                    rt.scheduler = std::move(scheduler);
                    try {
                        body(i);
                    } catch (const boost::context::detail::forced_unwind &) {
                        throw;
                    } catch (...) {
                        rt.threw = true;
                    }
                    rt.threads[i].state = kDone;
                    asan_switch_start(nullptr, rt.scheduler_bottom, rt.scheduler_size);
                    return std::move(rt.scheduler);
                });
        }
    } catch (const std::bad_alloc &) {
        return UCC_ERR_NO_MEMORY;  // also when no stack could be mapped
    }
    rs.threads = &rt;
    uint32_t left = k;
    std::vector<uint32_t> runnable;
    runnable.reserve(k);
    while (left > 0) {
        runnable.clear();
        for (uint32_t i = 0; i < k; ++i) {
            if (rt.threads[i].state == kRunnable) {
                runnable.push_back(i);
            }
        }
        if (runnable.empty()) {
            double deadline = INFINITY;
            bool any_idle = false;
            bool lazy = true;
            for (const RankThreads::Thread &t : rt.threads) {
                if (t.state == kIdle) {
                    any_idle = true;
                    deadline = std::fmin(deadline, t.deadline_s);
                    lazy = lazy && t.lazy;
                }
            }
            if (any_idle) {
                idle_rank(r, deadline, lazy);
            } else {
                // Every thread waits for another: a cycle of locks, which the
                // library's single lock per context cannot make. Let them
                // retry; a real cycle ends in count_spin's report.
                count_spin(r, "idle() while every thread waits for another");
            }
            for (RankThreads::Thread &t : rt.threads) {
                if (t.state == kIdle || (!any_idle && t.state == kWaiting)) {
                    t.state = kRunnable;
                }
            }
            continue;
        }
        const uint32_t i = runnable[thread_rng_.upto(runnable.size() - 1)];
        RankThreads::Thread &t = rt.threads[i];
        rt.current = i;
        void *fake = nullptr;
        asan_switch_start(
            &fake,
            t.stack.sp != nullptr ? static_cast<const char *>(t.stack.sp) - t.stack.size : nullptr,
            t.stack.size);
        t.fiber = std::move(t.fiber).resume();
        asan_switch_finish(fake, nullptr, nullptr);
        rt.current = kNoThread;
        const bool finished = t.state == kDone;
        if (finished) {
            --left;
        }
        // Another thread ran: those waiting for it may go on. One that
        // returned may have completed what an idle one waits for (a real
        // thread's progress call would have returned): they look again.
        for (uint32_t j = 0; j < k; ++j) {
            if (j != i &&
                (rt.threads[j].state == kWaiting || (finished && rt.threads[j].state == kIdle))) {
                rt.threads[j].state = kRunnable;
            }
        }
    }
    rs.threads = nullptr;
    if (rt.threw) {
        note("ucc_sim: rank " + std::to_string(r) + ": a thread threw an exception");
        if (status_ == UCC_OK) {
            status_ = UCC_ERR_NO_MESSAGE;
        }
    }
    return UCC_OK;
}

ucc_status_t run_threads(uint32_t k, const std::function<void(uint32_t thread)> &body) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return UCC_ERR_INVALID_PARAM;
    }
    return c->run_threads(c->running_rank(), k, body);
}

}  // namespace ucc::sim
