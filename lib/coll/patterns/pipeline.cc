// The pipeline of lib/coll/patterns/pipeline.h: fragments, the two lanes,
// and the counters by which a lane waits for the other.
#include "lib/coll/patterns/pipeline.h"

#include <algorithm>
#include <utility>

namespace ucc::coll {

namespace {

// How many fragments a stage finished on this rank; a lane awaits a count.
// A lane that fails fails the counters the other lane waits on, so that
// neither waits for good.
class Done {
  public:
    explicit Done(Scheduler &s) : scheduler_(s) {}
    void add() {
        ++count_;
        wake();
    }
    void fail(ucc_status_t st) {
        status_ = st;
        wake();
    }

    struct Awaiter {
        Done &d;
        uint32_t want;
        bool await_ready() const noexcept { return d.status_ < 0 || d.count_ >= want; }
        void await_suspend(std::coroutine_handle<> h) noexcept {
            d.waiter_ = h;
            d.want_ = want;
        }
        ucc_status_t await_resume() const noexcept { return d.status_ < 0 ? d.status_ : UCC_OK; }
    };
    Awaiter reached(uint32_t n) { return Awaiter{*this, n}; }

  private:
    void wake() {
        if (waiter_ && (status_ < 0 || count_ >= want_)) {
            scheduler_.schedule(std::exchange(waiter_, {}));
        }
    }
    Scheduler &scheduler_;
    std::coroutine_handle<> waiter_;
    uint32_t want_ = 0;
    uint32_t count_ = 0;
    ucc_status_t status_ = UCC_OK;
};

// Runs one stage's level of fragment f (nothing where this rank has none)
// and counts it.
Task run_stage(const Stage &stage, uint32_t f, Done &done) {
    Task t = stage(f);
    if (t.valid()) {
        const ucc_status_t st = co_await std::move(t);
        if (st < 0) {
            done.fail(st);
            co_return st;
        }
    }
    done.add();
    co_return UCC_OK;
}

// Every kYieldEvery fragments, resumes the lane from the run queue: a
// level that completes at once returns through its callers' frames, and
// without optimization (no tail calls) a lane of many such fragments would
// nest them all on one stack. (Each pass through the queue costs a
// progress call, so not at every fragment.)
constexpr uint32_t kYieldEvery = 8;
struct Yield {
    Scheduler &s;
    uint32_t f;
    bool await_ready() const noexcept { return f % kYieldEvery != kYieldEvery - 1; }
    void await_suspend(std::coroutine_handle<> h) noexcept { s.schedule(h); }
    void await_resume() const noexcept {}
};

struct Lanes {
    Scheduler &scheduler;
    const Stage &pre;
    const Stage &mid;
    const Stage &post;
    Done pre_done;
    Done mid_done;
    Done post_done;
};

// pre(0..d-1), then post(f - d) and pre(f) in turn, then the last posts.
Task node_lane(Lanes &l, uint32_t frags, uint32_t depth) {
    uint32_t posted = 0;  // post stages run so far
    auto post_next = [&]() -> Task {
        if (l.mid) {
            UCC_CO_TRY(co_await l.mid_done.reached(posted + 1));
        }
        co_return co_await run_stage(l.post, posted++, l.post_done);
    };
    for (uint32_t f = 0; f < frags; ++f) {
        co_await Yield{l.scheduler, f};
        if (f >= depth) {
            if (l.post) {
                UCC_CO_TRY(co_await post_next());
            } else if (l.mid) {
                UCC_CO_TRY(co_await l.mid_done.reached(f - depth + 1));  // depth in flight
            }
        }
        if (l.pre) {
            UCC_CO_TRY(co_await run_stage(l.pre, f, l.pre_done));
        }
    }
    while (l.post && posted < frags) {
        co_await Yield{l.scheduler, posted};
        UCC_CO_TRY(co_await post_next());
    }
    co_return UCC_OK;
}

Task net_lane(Lanes &l, uint32_t frags) {
    for (uint32_t f = 0; f < frags; ++f) {
        co_await Yield{l.scheduler, f};
        if (l.pre) {
            UCC_CO_TRY(co_await l.pre_done.reached(f + 1));
        }
        UCC_CO_TRY(co_await run_stage(l.mid, f, l.mid_done));
    }
    co_return UCC_OK;
}

// A lane that ends in error fails what the other waits on.
Task guarded(Task lane, Lanes &l) {
    const ucc_status_t st = co_await std::move(lane);
    if (st < 0) {
        l.pre_done.fail(st);
        l.mid_done.fail(st);
        l.post_done.fail(st);
    }
    co_return st;
}

}  // namespace

uint32_t pipeline_fragments(const PipelineSetting &s, uint64_t count, uint64_t esize,
                            uint32_t *depth) {
    const uint64_t bytes = count * esize;
    uint64_t frags = 1;
    if (bytes > s.threshold) {
        const uint64_t fb = std::max<uint64_t>(1, s.frag_bytes);
        frags = std::max<uint64_t>(bytes / fb + (bytes % fb != 0 ? 1 : 0), s.frags);
        frags = std::clamp<uint64_t>(frags, 1, std::max<uint64_t>(1, count));  // whole elements
    }
    frags = std::min<uint64_t>(frags, UINT32_MAX);
    *depth = static_cast<uint32_t>(std::clamp<uint64_t>(s.depth, 1, frags));
    return static_cast<uint32_t>(frags);
}

uint32_t pipeline_fragments(const Args &a, PipelineSetting Pipelines::*which, uint32_t *depth) {
    if (a.pipelines == nullptr) {
        *depth = 1;
        return 1;
    }
    return pipeline_fragments(a.pipelines->*which, a.count, a.esize, depth);
}

Args fragment(Args x, uint64_t count, uint32_t frags, uint32_t f) {
    const uint64_t base = count / frags;
    const uint64_t extra = count % frags;
    const uint64_t off = (f * base + std::min<uint64_t>(f, extra)) * x.esize;
    x.count = base + (f < extra ? 1 : 0);
    x.src = x.src != nullptr ? static_cast<uint8_t *>(x.src) + off : nullptr;
    x.dst = x.dst != nullptr ? static_cast<uint8_t *>(x.dst) + off : nullptr;
    return x;
}

Task run_pipeline(Coll &c, uint32_t frags, uint32_t depth, const Stage &pre, const Stage &mid,
                  const Stage &post) {
    Scheduler &s = c.env().scheduler();
    Lanes l{s, pre, mid, post, Done(s), Done(s), Done(s)};
    depth = std::max<uint32_t>(1, depth);
    if (!mid) {
        co_return co_await node_lane(l, frags, depth);
    }
    co_return co_await when_all(c, guarded(node_lane(l, frags, depth), l),
                                guarded(net_lane(l, frags), l));
}

}  // namespace ucc::coll
