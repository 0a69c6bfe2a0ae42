// Execution engines and triggered collectives (lib/core/ee.h) on simulated
// ranks: a triggered collective starts only when its engine's input event is
// set (in virtual time), the library's COLLECTIVE_POST event comes once per
// trigger, in trigger order, and every path that ends a waiting request
// (timeout, finalize, engine destroyed) leaves the rank able to go on.
// Refusals follow the reference's or name the argument.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/common/ee_sim.h"
#include "tests/common/sim_lifecycle.h"
#if UCC_WITH_UCX
#include "tests/common/inproc_world.h"
#endif
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::testkit::allreduce;
using ucc::testkit::compute_done;
using ucc::testkit::failures;
using ucc::testkit::SimLifecycle;
using ucc::testkit::simulate;
using ucc::testkit::wait_while;

ucc_status_t create_cpu_ee(ucc_team_h team, ucc_ee_h *ee) {
    ucc_ee_params_t p{};
    p.ee_type = UCC_EE_CPU_THREAD;
    return ucc_ee_create(team, &p, ee);
}

// What one rank saw.
struct Seen {
    std::string failure;
    ucc_status_t before = UCC_OK;  // status right after the triggered post
    double set_at = 0;             // virtual time the rank set its event
    double done_at = 0;            // virtual time the collective completed
    int64_t sum = -1;
    std::vector<ucc_event_type_t> events;
    bool post_event_names_req = false;
    void fail(const std::string &what, ucc_status_t st) {
        if (failure.empty()) {
            failure = what + " -> " + ucc_status_string(st);
        }
    }
};

#define CHECK_OK(seen, call)             \
    do {                                 \
        const ucc_status_t st_ = (call); \
        if (st_ != UCC_OK) {             \
            (seen).fail(#call, st_);     \
        }                                \
    } while (0)

// A triggered request left UCC_OPERATION_INITIALIZED: it runs or is done.
void expect_fired(Seen &s, ucc_status_t st) {
    if (st != UCC_INPROGRESS && st != UCC_OK) {
        s.fail("the trigger", st);
    }
}

// Each rank computes for a while of its own before it sets its event: no
// rank's collective completes before the last rank's trigger, and each
// rank's engine hands out one COLLECTIVE_POST naming the request.
TEST(ExecutionEngine, TriggeredAllreduceStartsAtItsEvent) {
    constexpr uint32_t n = 8;
    std::vector<Seen> seen(n);
    ASSERT_EQ(simulate(n,
                       [&](uint32_t rank) {
                           Seen &s = seen[rank];
                           SimLifecycle life;
                           CHECK_OK(s, life.open());
                           ucc_ee_h ee = nullptr;
                           CHECK_OK(s, create_cpu_ee(life.team, &ee));
                           int64_t src = rank + 1;
                           ucc_coll_args_t a = allreduce(&src, &s.sum, 1);
                           ucc_coll_req_h req = nullptr;
                           CHECK_OK(s, ucc_collective_init(&a, &req, life.team));
                           ucc_ev_t ev = compute_done(req);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ev));
                           s.before = ucc_collective_test(req);
                           ucc_sim_compute(1e-6 * (rank + 1) * 10);
                           s.set_at = ucc_sim_now();
                           ucc_ev_t done = compute_done(nullptr);
                           CHECK_OK(s, ucc_ee_set_event(ee, &done));
                           expect_fired(s, wait_while(life.ctx, req, UCC_OPERATION_INITIALIZED));
                           ucc_ev_t *post = nullptr;
                           while (ucc_ee_get_event(ee, &post) == UCC_OK) {
                               s.events.push_back(post->ev_type);
                               s.post_event_names_req = post->req == req;
                               CHECK_OK(s, ucc_ee_ack_event(ee, post));
                           }
                           CHECK_OK(s, wait_while(life.ctx, req, UCC_INPROGRESS));
                           s.done_at = ucc_sim_now();
                           CHECK_OK(s, ucc_collective_finalize(req));
                           CHECK_OK(s, ucc_ee_destroy(ee));
                           CHECK_OK(s, life.close());
                       }),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    double last_set = 0;
    for (const Seen &s : seen) {
        last_set = std::max(last_set, s.set_at);
    }
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(seen[r].before, UCC_OPERATION_INITIALIZED) << r;
        EXPECT_EQ(seen[r].sum, int64_t{n} * (n + 1) / 2) << r;
        EXPECT_GE(seen[r].done_at, last_set) << r;
        ASSERT_EQ(seen[r].events.size(), 1u) << r;
        EXPECT_EQ(seen[r].events[0], UCC_EVENT_COLLECTIVE_POST) << r;
        EXPECT_TRUE(seen[r].post_event_names_req) << r;
    }
}

// Events set before the triggered posts wait in the engine's input queue:
// the first event triggers the first waiting post. Two posts and one event
// run the first only; the second event runs the second. A persistent
// request is triggered again after it completed; a zero-count one completes
// with UCC_OK when triggered.
TEST(ExecutionEngine, EventsPairWithWaitingPostsInOrder) {
    constexpr uint32_t n = 4;
    constexpr int kRounds = 3;
    std::vector<Seen> seen(n);
    std::vector<std::vector<int64_t>> sums(n);
    ASSERT_EQ(simulate(n,
                       [&](uint32_t rank) {
                           Seen &s = seen[rank];
                           SimLifecycle life;
                           CHECK_OK(s, life.open());
                           ucc_ee_h ee = nullptr;
                           CHECK_OK(s, create_cpu_ee(life.team, &ee));
                           int64_t src1 = rank, dst1 = -1, src2 = 10 * rank, dst2 = -1;
                           ucc_coll_args_t a1 = allreduce(&src1, &dst1, 1);
                           a1.mask = UCC_COLL_ARGS_FIELD_FLAGS;
                           a1.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
                           ucc_coll_args_t a2 = allreduce(&src2, &dst2, 1);
                           ucc_coll_req_h r1 = nullptr, r2 = nullptr;
                           CHECK_OK(s, ucc_collective_init(&a1, &r1, life.team));
                           CHECK_OK(s, ucc_collective_init(&a2, &r2, life.team));
                           // One event queued before either post.
                           ucc_ev_t early = compute_done(nullptr);
                           CHECK_OK(s, ucc_ee_set_event(ee, &early));
                           ucc_ev_t e1 = compute_done(r1), e2 = compute_done(r2);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &e1));
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &e2));
                           expect_fired(s, wait_while(life.ctx, r1, UCC_OPERATION_INITIALIZED));
                           CHECK_OK(s, wait_while(life.ctx, r1, UCC_INPROGRESS));
                           sums[rank].push_back(dst1);
                           // r2 still waits for an event of its own.
                           if (ucc_collective_test(r2) != UCC_OPERATION_INITIALIZED) {
                               s.fail("r2 ran without an event", ucc_collective_test(r2));
                           }
                           ucc_ev_t ev{};
                           CHECK_OK(s, ucc_ee_wait(ee, &ev));  // r1's COLLECTIVE_POST, copied out
                           s.events.push_back(ev.ev_type);
                           s.post_event_names_req = ev.req == r1;
                           ucc_ev_t second = compute_done(nullptr);
                           CHECK_OK(s, ucc_ee_set_event(ee, &second));
                           expect_fired(s, wait_while(life.ctx, r2, UCC_OPERATION_INITIALIZED));
                           CHECK_OK(s, wait_while(life.ctx, r2, UCC_INPROGRESS));
                           sums[rank].push_back(dst2);
                           // The persistent one, triggered again.
                           for (int k = 1; k < kRounds; ++k) {
                               src1 = rank + k * 100;
                               CHECK_OK(s, ucc_collective_triggered_post(ee, &e1));
                               if (ucc_collective_test(r1) != UCC_OPERATION_INITIALIZED) {
                                   s.fail("re-triggered persistent not INITIALIZED",
                                          ucc_collective_test(r1));
                               }
                               CHECK_OK(s, ucc_ee_set_event(ee, &second));
                               expect_fired(s, wait_while(life.ctx, r1, UCC_OPERATION_INITIALIZED));
                               CHECK_OK(s, wait_while(life.ctx, r1, UCC_INPROGRESS));
                               sums[rank].push_back(dst1);
                           }
                           // Zero count.
                           ucc_coll_args_t z = allreduce(nullptr, nullptr, 0);
                           ucc_coll_req_h rz = nullptr;
                           CHECK_OK(s, ucc_collective_init(&z, &rz, life.team));
                           ucc_ev_t ez = compute_done(rz);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ez));
                           CHECK_OK(s, ucc_ee_set_event(ee, &second));
                           CHECK_OK(s, wait_while(life.ctx, rz, UCC_OPERATION_INITIALIZED));
                           ucc_ev_t *p = nullptr;
                           while (ucc_ee_get_event(ee, &p) == UCC_OK) {
                               s.events.push_back(p->ev_type);
                               CHECK_OK(s, ucc_ee_ack_event(ee, p));
                           }
                           CHECK_OK(s, ucc_collective_finalize(rz));
                           CHECK_OK(s, ucc_collective_finalize(r1));
                           CHECK_OK(s, ucc_collective_finalize(r2));
                           CHECK_OK(s, ucc_ee_destroy(ee));
                           CHECK_OK(s, life.close());
                       }),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    for (uint32_t r = 0; r < n; ++r) {
        std::vector<int64_t> want{6, 60};
        for (int k = 1; k < kRounds; ++k) {
            want.push_back(6 + 4 * k * 100);
        }
        EXPECT_EQ(sums[r], want) << r;
        // r1, r2, r1 again (kRounds - 1 times) and the zero-count one.
        EXPECT_EQ(seen[r].events.size(), 2u + kRounds) << r;
        for (ucc_event_type_t t : seen[r].events) {
            EXPECT_EQ(t, UCC_EVENT_COLLECTIVE_POST) << r;
        }
        EXPECT_TRUE(seen[r].post_event_names_req) << r;
    }
}

// The ways a waiting request ends without its trigger: its timeout (counted
// from the triggered post), its finalize, its engine's destroy. None emits
// an event; the rank goes on to run a collective afterwards on a new team.
TEST(ExecutionEngine, WaitingRequestsEndWithoutTrigger) {
    constexpr uint32_t n = 2;
    std::vector<Seen> seen(n);
    std::vector<ucc_status_t> timed(n, UCC_OK), cancelled(n, UCC_OK), wait_none(n, UCC_OK);
    std::vector<int> callbacks(n, 0);
    ASSERT_EQ(simulate(n,
                       [&](uint32_t rank) {
                           Seen &s = seen[rank];
                           SimLifecycle life;
                           CHECK_OK(s, life.open());
                           ucc_ee_h ee = nullptr;
                           CHECK_OK(s, create_cpu_ee(life.team, &ee));
                           int64_t src = 1, dst = 0;
                           // Timeout: 5 us after the triggered post, no event.
                           ucc_coll_args_t a = allreduce(&src, &dst, 1);
                           a.mask = UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_CB;
                           a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
                           a.timeout = 5e-6;
                           a.cb.cb = [](void *data, ucc_status_t) { ++*static_cast<int *>(data); };
                           a.cb.data = &callbacks[rank];
                           ucc_coll_req_h req = nullptr;
                           CHECK_OK(s, ucc_collective_init(&a, &req, life.team));
                           ucc_ev_t ev = compute_done(req);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ev));
                           timed[rank] = wait_while(life.ctx, req, UCC_OPERATION_INITIALIZED);
                           CHECK_OK(s, ucc_collective_finalize(req));
                           ucc_ev_t out{};
                           wait_none[rank] = ucc_ee_wait(ee, &out);  // nothing waits: no hang
                           CHECK_OK(s, ucc_ee_destroy(ee));
                           CHECK_OK(s, life.close());  // the timed-out team is left behind
                           // A fresh team: finalize before the trigger, then an
                           // engine destroyed with a request waiting on it.
                           SimLifecycle again;
                           CHECK_OK(s, again.open());
                           CHECK_OK(s, create_cpu_ee(again.team, &ee));
                           ucc_coll_args_t b = allreduce(&src, &dst, 1);
                           CHECK_OK(s, ucc_collective_init(&b, &req, again.team));
                           ev = compute_done(req);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ev));
                           CHECK_OK(s, ucc_collective_finalize(req));
                           // (A finalized trigger leaves the sequence: both ranks
                           // did the same, so the next collective still matches.)
                           CHECK_OK(s, ucc_collective_init(&b, &req, again.team));
                           ev = compute_done(req);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ev));
                           CHECK_OK(s, ucc_ee_destroy(ee));
                           cancelled[rank] = ucc_collective_test(req);
                           CHECK_OK(s, ucc_collective_finalize(req));
                           dst = 0;
                           CHECK_OK(s, again.run(b));
                           s.sum = dst;
                           CHECK_OK(s, again.close());
                       }),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(timed[r], UCC_ERR_TIMED_OUT) << r;
        EXPECT_EQ(callbacks[r], 1) << r;
        EXPECT_EQ(wait_none[r], UCC_ERR_NOT_FOUND) << r;
        EXPECT_EQ(cancelled[r], UCC_ERR_CANCELED) << r;
        EXPECT_EQ(seen[r].sum, 2) << r;
    }
}

// Refusals: an engine type out of range and one this build lacks (ROCm; a
// CUDA stream engine is simulated: tests/integration/sim_stream_ee_test.cc), a trigger of another
// kind than COMPUTE_COMPLETE, a request of another team, a request already waiting (triggered again
// or posted), an event never handed out or acked twice, set_event on an engine whose team is gone.
TEST(ExecutionEngine, Refusals) {
    std::vector<Seen> seen(1);
    std::vector<ucc_status_t> got;
    ASSERT_EQ(simulate(1,
                       [&](uint32_t) {
                           Seen &s = seen[0];
                           SimLifecycle life, other;
                           CHECK_OK(s, life.open());
                           CHECK_OK(s, other.open());
                           ucc_ee_params_t p{};
                           ucc_ee_h ee = nullptr;
                           p.ee_type = static_cast<ucc_ee_type_t>(UCC_EE_LAST);
                           got.push_back(ucc_ee_create(life.team, &p, &ee));  // 0
                           p.ee_type = UCC_EE_ROCM_STREAM;
                           got.push_back(ucc_ee_create(life.team, &p, &ee));  // 1
                           CHECK_OK(s, create_cpu_ee(life.team, &ee));
                           int64_t src = 1, dst = 0;
                           ucc_coll_args_t a = allreduce(&src, &dst, 1);
                           ucc_coll_req_h req = nullptr, foreign = nullptr;
                           CHECK_OK(s, ucc_collective_init(&a, &req, life.team));
                           CHECK_OK(s, ucc_collective_init(&a, &foreign, other.team));
                           ucc_ev_t ev = compute_done(req);
                           ev.ev_type = UCC_EVENT_COLLECTIVE_POST;
                           got.push_back(ucc_collective_triggered_post(ee, &ev));  // 2
                           ucc_ev_t fev = compute_done(foreign);
                           got.push_back(ucc_collective_triggered_post(ee, &fev));  // 3
                           ucc_ev_t nreq = compute_done(nullptr);
                           got.push_back(ucc_collective_triggered_post(ee, &nreq));  // 4
                           ev = compute_done(req);
                           CHECK_OK(s, ucc_collective_triggered_post(ee, &ev));
                           got.push_back(ucc_collective_triggered_post(ee, &ev));  // 5
                           got.push_back(ucc_collective_post(req));                // 6
                           ucc_ev_t stray{};
                           got.push_back(ucc_ee_ack_event(ee, &stray));  // 7
                           ucc_ev_t *taken = nullptr;
                           got.push_back(ucc_ee_get_event(ee, &taken));  // 8: nothing yet
                           CHECK_OK(s, ucc_ee_set_event(ee, &ev));
                           CHECK_OK(s, wait_while(life.ctx, req, UCC_OPERATION_INITIALIZED));
                           CHECK_OK(s, ucc_ee_get_event(ee, &taken));
                           CHECK_OK(s, ucc_ee_ack_event(ee, taken));
                           got.push_back(ucc_ee_ack_event(ee, taken));  // 9: twice
                           CHECK_OK(s, ucc_collective_finalize(req));
                           CHECK_OK(s, ucc_collective_finalize(foreign));
                           // The team goes first (the reference allows it).
                           while (ucc_team_destroy(life.team) == UCC_INPROGRESS) {
                           }
                           life.team = nullptr;
                           got.push_back(ucc_ee_set_event(ee, &ev));  // 10
                           CHECK_OK(s, ucc_ee_destroy(ee));
                           CHECK_OK(s, other.close());
                           CHECK_OK(s, life.close());
                       }),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    const std::vector<ucc_status_t> want{
        UCC_ERR_INVALID_PARAM, UCC_ERR_NOT_SUPPORTED, UCC_ERR_NOT_SUPPORTED, UCC_ERR_INVALID_PARAM,
        UCC_ERR_INVALID_PARAM, UCC_ERR_INVALID_PARAM, UCC_ERR_INVALID_PARAM, UCC_ERR_INVALID_PARAM,
        UCC_ERR_NOT_FOUND,     UCC_ERR_INVALID_PARAM, UCC_ERR_INVALID_PARAM};
    EXPECT_EQ(got, want);
}

#if UCC_WITH_UCX
// Over UCX (two ranks in this process): a triggered bcast waits however long
// its peer has been posted, runs when its event is set, and delivers.
TEST(ExecutionEngine, TriggeredBcastOverUcx) {
    ucc::testkit::InprocWorld world(2);
    ASSERT_EQ(world.open(), "");
    auto &ranks = world.ranks();
    constexpr uint64_t kCount = 4096;
    std::vector<std::vector<int32_t>> buf(2, std::vector<int32_t>(kCount, -1));
    for (uint64_t i = 0; i < kCount; ++i) {
        buf[0][i] = static_cast<int32_t>(i * 7);
    }
    ucc_ee_h ee = nullptr;
    ASSERT_EQ(create_cpu_ee(ranks[1].team, &ee), UCC_OK);
    std::vector<ucc_coll_req_h> reqs(2, nullptr);
    for (uint32_t r = 0; r < 2; ++r) {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BCAST;
        a.root = 0;
        a.src.info = {buf[r].data(), kCount, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        ASSERT_EQ(ucc_collective_init(&a, &reqs[r], ranks[r].team), UCC_OK);
    }
    ucc_ev_t ev = compute_done(reqs[1]);
    ASSERT_EQ(ucc_collective_triggered_post(ee, &ev), UCC_OK);
    ASSERT_EQ(ucc_collective_post(reqs[0]), UCC_OK);
    for (int i = 0; i < 2000; ++i) {
        world.progress();
    }
    EXPECT_EQ(ucc_collective_test(reqs[1]), UCC_OPERATION_INITIALIZED);
    EXPECT_EQ(buf[1][1], -1);  // nothing received before the trigger
    ucc_ev_t *out = nullptr;
    EXPECT_EQ(ucc_ee_get_event(ee, &out), UCC_ERR_NOT_FOUND);
    ASSERT_EQ(ucc_ee_set_event(ee, &ev), UCC_OK);
    ASSERT_TRUE(world.wait(reqs));
    EXPECT_EQ(buf[1], buf[0]);
    ASSERT_EQ(ucc_ee_get_event(ee, &out), UCC_OK);
    EXPECT_EQ(out->ev_type, UCC_EVENT_COLLECTIVE_POST);
    EXPECT_EQ(out->req, reqs[1]);
    EXPECT_EQ(ucc_ee_ack_event(ee, out), UCC_OK);
    for (ucc_coll_req_h r : reqs) {
        EXPECT_EQ(ucc_collective_finalize(r), UCC_OK);
    }
    EXPECT_EQ(ucc_ee_destroy(ee), UCC_OK);
}
#endif

}  // namespace
