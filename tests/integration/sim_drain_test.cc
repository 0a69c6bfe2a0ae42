// Drain on the event loop (ClusterParams::drain, UCC_SIM_FLAG_NO_DRAIN): a
// rank that waits in ucc_context_progress() has its arrivals progressed on the
// event loop's stack and resumes only when a request completed. For programs
// whose wait loops only test and progress, that is the same run as resuming
// the rank for every packet: the same trace hash, virtual time and events,
// and the same results, with fewer switches to rank stacks. Checked here on a
// mix of collectives over a jittery network, on a rank that waits on two
// contexts at once, with completion callbacks (never drained) and with a
// program that computes between its progress calls (a crashed rank:
// tests/faults/drain_crash_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/common/sim_lifecycle.h"
#include "tests/common/sim_outcome.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

enum class Program { kMix, kTwoContexts, kCallbacks, kComputeBetweenPolls };

struct Outcome : ucc::testkit::SimOutcome {
    uint64_t wrong = 0;   // ranks whose results were wrong
    uint64_t failed = 0;  // ranks whose collectives failed
};

struct Shared {
    Program program = Program::kMix;
    uint32_t n = 0;
    uint64_t wrong = 0;
    uint64_t failed = 0;
};

// Waits for req, testing and progressing as a plain program does;
// `compute_s` > 0: computes that long before each progress call.
ucc_status_t wait(ucc_coll_req_h req, ucc_context_h ctx, double compute_s = 0) {
    ucc_status_t st = UCC_INPROGRESS;
    for (uint64_t i = 0; i < 10'000'000 && (st = ucc_collective_test(req)) == UCC_INPROGRESS; ++i) {
        if (compute_s > 0) {
            ucc_sim_compute(compute_s);
        }
        ucc_context_progress(ctx);
    }
    return st;
}

ucc_coll_args_t allreduce(std::vector<int64_t> &src, std::vector<int64_t> &dst) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {src.data(), src.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), dst.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    return a;
}

// One allreduce of `count` int64 (each rank gives rank + 1 + i) and its check.
bool allreduce_ok(ucc::testkit::SimLifecycle &life, size_t count, uint32_t n, double compute_s,
                  ucc_status_t *st) {
    const uint32_t me = ucc_sim_rank();
    std::vector<int64_t> src(count);
    std::vector<int64_t> dst(count, -1);
    for (size_t i = 0; i < count; ++i) {
        src[i] = static_cast<int64_t>(me + 1 + i);
    }
    ucc_coll_args_t a = allreduce(src, dst);
    ucc_coll_req_h req = nullptr;
    *st = ucc_collective_init(&a, &req, life.team);
    if (*st != UCC_OK) {
        return false;
    }
    *st = ucc_collective_post(req);
    if (*st == UCC_OK) {
        *st = wait(req, life.ctx, compute_s);
    }
    ucc_collective_finalize(req);
    const int64_t ranks_sum = static_cast<int64_t>(n) * (n + 1) / 2;
    for (size_t i = 0; i < count && *st == UCC_OK; ++i) {
        if (dst[i] != ranks_sum + static_cast<int64_t>(n * i)) {
            return false;
        }
    }
    return *st == UCC_OK;
}

void mix(Shared *s, ucc::testkit::SimLifecycle &life) {
    ucc_status_t st = UCC_OK;
    bool ok = allreduce_ok(life, 1, s->n, 0, &st) && allreduce_ok(life, 9000, s->n, 0, &st);
    // An alltoall of 3 int32 per peer and a bcast of 1,000 bytes from rank 2.
    const uint32_t me = ucc_sim_rank();
    std::vector<int32_t> src(3 * s->n);
    std::vector<int32_t> dst(3 * s->n, -1);
    for (uint32_t p = 0; p < s->n; ++p) {
        for (uint32_t k = 0; k < 3; ++k) {
            src[3 * p + k] = static_cast<int32_t>(me * 1000 + p * 3 + k);
        }
    }
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLTOALL;
    a.src.info = {src.data(), src.size(), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), dst.size(), UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ok = ok && life.run(a) == UCC_OK;
    for (uint32_t p = 0; p < s->n && ok; ++p) {
        for (uint32_t k = 0; k < 3; ++k) {
            ok = ok && dst[3 * p + k] == static_cast<int32_t>(p * 1000 + me * 3 + k);
        }
    }
    std::vector<uint8_t> buf(1000, me == 2 ? 7 : 0);
    ucc_coll_args_t b{};
    b.coll_type = UCC_COLL_TYPE_BCAST;
    b.root = 2;
    b.src.info = {buf.data(), buf.size(), UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
    ok = ok && life.run(b) == UCC_OK;
    for (uint8_t v : buf) {
        ok = ok && v == 7;
    }
    s->wrong += ok ? 0 : 1;
}

// Two contexts, an allreduce on each, waited for by progressing both in turn.
void two_contexts(Shared *s, ucc::testkit::SimLifecycle &one) {
    ucc::testkit::SimLifecycle two;
    if (two.open() != UCC_OK) {
        s->failed++;
        return;
    }
    std::vector<int64_t> src1(5, 1);
    std::vector<int64_t> dst1(5, 0);
    std::vector<int64_t> src2(300, 2);
    std::vector<int64_t> dst2(300, 0);
    ucc_coll_args_t a1 = allreduce(src1, dst1);
    ucc_coll_args_t a2 = allreduce(src2, dst2);
    ucc_coll_req_h r1 = nullptr;
    ucc_coll_req_h r2 = nullptr;
    bool ok = ucc_collective_init(&a1, &r1, one.team) == UCC_OK &&
              ucc_collective_init(&a2, &r2, two.team) == UCC_OK;
    // Posted in an order that depends on the rank: each context's arrivals
    // reach ranks that wait in the other one's progress.
    if (ok && ucc_sim_rank() % 2 == 0) {
        ok = ucc_collective_post(r2) == UCC_OK && ucc_collective_post(r1) == UCC_OK;
    } else if (ok) {
        ok = ucc_collective_post(r1) == UCC_OK && ucc_collective_post(r2) == UCC_OK;
    }
    for (uint64_t i = 0; ok && i < 10'000'000; ++i) {
        const bool done1 = ucc_collective_test(r1) == UCC_OK;
        const bool done2 = ucc_collective_test(r2) == UCC_OK;
        if (done1 && done2) {
            break;
        }
        ucc_context_progress(done1 ? two.ctx : one.ctx);
        if (!done1 && !done2) {
            ucc_context_progress(two.ctx);
        }
    }
    ok = ok && ucc_collective_test(r1) == UCC_OK && ucc_collective_test(r2) == UCC_OK;
    ucc_collective_finalize(r1);
    ucc_collective_finalize(r2);
    for (size_t i = 0; ok && i < dst1.size(); ++i) {
        ok = dst1[i] == static_cast<int64_t>(s->n);
    }
    for (size_t i = 0; ok && i < dst2.size(); ++i) {
        ok = dst2[i] == static_cast<int64_t>(2 * s->n);
    }
    s->wrong += ok ? 0 : 1;
    two.close();
}

void count_callback(void *data, ucc_status_t status) {
    if (status == UCC_OK) {
        ++*static_cast<int *>(data);
    }
}

// Allreduces with completion callbacks: the rank resumes for every arrival.
void callbacks(Shared *s, ucc::testkit::SimLifecycle &life) {
    int called = 0;
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) {
        std::vector<int64_t> src(17, 1);
        std::vector<int64_t> dst(17, 0);
        ucc_coll_args_t a = allreduce(src, dst);
        a.mask = UCC_COLL_ARGS_FIELD_CB;
        a.cb.cb = count_callback;
        a.cb.data = &called;
        ucc_coll_req_h req = nullptr;
        ok = ucc_collective_init(&a, &req, life.team) == UCC_OK &&
             ucc_collective_post(req) == UCC_OK && wait(req, life.ctx) == UCC_OK;
        ucc_collective_finalize(req);
        ok = ok && dst[16] == static_cast<int64_t>(s->n);
    }
    s->wrong += ok && called == 3 ? 0 : 1;
}

void rank_main(void *arg) {
    auto *s = static_cast<Shared *>(arg);
    ucc::testkit::SimLifecycle life;
    if (life.open() != UCC_OK) {
        s->failed++;
        life.close();
        return;
    }
    ucc_status_t st = UCC_OK;
    switch (s->program) {
        case Program::kMix:
            mix(s, life);
            break;
        case Program::kTwoContexts:
            two_contexts(s, life);
            break;
        case Program::kCallbacks:
            callbacks(s, life);
            break;
        case Program::kComputeBetweenPolls:
            s->wrong += allreduce_ok(life, 64, s->n, 3e-7, &st) ? 0 : 1;
            break;
    }
    life.close();
}

Outcome simulate(Program program, uint32_t n, bool drain) {
    Shared s;
    s.program = program;
    s.n = n;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = n;
    p.seed = 11;
    p.network = "hdr,ppn=4,jitter=300ns";
    p.flags = UCC_SIM_FLAG_QUIET | (drain ? 0 : UCC_SIM_FLAG_NO_DRAIN);
    Outcome r;
    static_cast<ucc::testkit::SimOutcome &>(r) =
        ucc::testkit::sim_outcome(ucc_sim_run(&p, rank_main, &s));
    r.wrong = s.wrong;
    r.failed = s.failed;
    return r;
}

// A run that completed with every rank's results right.
void expect_clean(const Outcome &o) {
    EXPECT_EQ(o.status, UCC_OK);
    EXPECT_EQ(o.wrong, 0u);
    EXPECT_EQ(o.failed, 0u);
}

// The same run either way, with fewer resumes when drained.
void expect_same_run(const Outcome &drained, const Outcome &resumed) {
    EXPECT_EQ(drained.status, resumed.status);
    EXPECT_EQ(drained.hash, resumed.hash);
    EXPECT_EQ(drained.time, resumed.time);
    EXPECT_EQ(drained.events, resumed.events);
    EXPECT_EQ(drained.wrong, resumed.wrong);
    EXPECT_EQ(drained.failed, resumed.failed);
}

TEST(SimDrain, AMixOfCollectivesIsTheSameRunWithFewerResumes) {
    const Outcome d = simulate(Program::kMix, 13, true);
    const Outcome r = simulate(Program::kMix, 13, false);
    expect_clean(d);
    expect_same_run(d, r);
    // Each allreduce round, alltoall step and bcast hop that completes no
    // request is progressed without a resume.
    EXPECT_LT(d.resumes * 4, r.resumes * 3) << d.resumes << " vs " << r.resumes;
}

// Not the same run: without the drain, a rank that wakes in one context's
// progress() for an arrival of that context may first call the other's
// progress() and wait there, the arrival unread until something else comes;
// with it the arrival is read when it comes, so the run ends no later.
TEST(SimDrain, ARankWaitingOnTwoContextsResumesForTheOtherOne) {
    const Outcome d = simulate(Program::kTwoContexts, 6, true);
    const Outcome r = simulate(Program::kTwoContexts, 6, false);
    expect_clean(d);
    expect_clean(r);
    EXPECT_LE(d.time, r.time);
    EXPECT_LT(d.resumes, r.resumes);
}

TEST(SimDrain, RequestsWithCallbacksAreNeverDrained) {
    const Outcome d = simulate(Program::kCallbacks, 7, true);
    const Outcome r = simulate(Program::kCallbacks, 7, false);
    expect_clean(d);
    expect_same_run(d, r);
    EXPECT_EQ(d.resumes, r.resumes);
}

// A program that computes between progress calls does not wait in progress
// alone: with the drain its progress call returns only when a request
// completed, so it computes less often and the run may end sooner; the
// results are the same.
TEST(SimDrain, AProgramComputingBetweenPollsGetsItsResults) {
    const Outcome d = simulate(Program::kComputeBetweenPolls, 9, true);
    const Outcome r = simulate(Program::kComputeBetweenPolls, 9, false);
    expect_clean(d);
    expect_clean(r);
    EXPECT_LE(d.time, r.time);
}

}  // namespace
