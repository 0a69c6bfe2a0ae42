// CUDA-stream execution engines on simulated ranks (lib/core/sim_stream.h):
// collectives triggered on one stream run one at a time in the order of their
// triggered posts, with no input event; engines on other streams run beside
// them; a collective that ends without running (its timeout) lets the stream
// go on; the timeline shows each stream as a track.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/ee_sim.h"
#include "tests/common/sim_lifecycle.h"
#include "tests/common/temp_dir.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::testkit::allreduce;
using ucc::testkit::compute_done;
using ucc::testkit::failures;
using ucc::testkit::SimLifecycle;
using ucc::testkit::simulate;

ucc_status_t create_stream_ee(ucc_team_h team, uintptr_t stream, ucc_ee_h *ee) {
    ucc_ee_params_t p{};
    p.ee_type = UCC_EE_CUDA_STREAM;
    p.ee_context = reinterpret_cast<void *>(stream);
    return ucc_ee_create(team, &p, ee);
}

// What one rank saw; `failure` names the first call that failed.
struct Seen {
    std::string failure;
    std::vector<ucc_status_t> before;  // each request's status right after its triggered post
    std::vector<ucc_status_t> status;  // each request's final status
    std::vector<double> done_at;       // virtual time each request completed
    std::vector<int64_t> first;        // each result's first element
    uint32_t post_events = 0;          // COLLECTIVE_POST events taken before any progress
    void check(const char *what, ucc_status_t st) {
        if (st != UCC_OK && failure.empty()) {
            failure = std::string(what) + " -> " + ucc_status_string(st);
        }
    }
};

// Progresses until every request left INITIALIZED and INPROGRESS (bounded),
// noting when each completed.
void run_to_completion(ucc_context_h ctx, const std::vector<ucc_coll_req_h> &reqs, Seen &s) {
    s.status.assign(reqs.size(), UCC_INPROGRESS);
    s.done_at.assign(reqs.size(), -1);
    for (uint64_t pass = 0; pass < 10'000'000; ++pass) {
        bool all = true;
        for (size_t i = 0; i < reqs.size(); ++i) {
            if (s.done_at[i] < 0) {
                const ucc_status_t st = ucc_collective_test(reqs[i]);
                if (st == UCC_INPROGRESS || st == UCC_OPERATION_INITIALIZED) {
                    all = false;
                } else {
                    s.status[i] = st;
                    s.done_at[i] = ucc_sim_now();
                }
            }
        }
        if (all) {
            return;
        }
        ucc_context_progress(ctx);
    }
    s.check("run_to_completion: bounded", UCC_ERR_TIMED_OUT);
}

// Three allreduces queued on one stream, each reducing the previous one's
// result: correct sums only if each starts after the one before ended.
void chained_allreduces(uint32_t rank, uint32_t n, Seen &s) {
    constexpr uint64_t kCount = 4096;
    SimLifecycle life;
    s.check("open", life.open());
    ucc_ee_h ee = nullptr;
    s.check("ucc_ee_create", create_stream_ee(life.team, 0x5, &ee));
    std::vector<int64_t> x(kCount), d1(kCount, -1), d2(kCount, -1), d3(kCount, -1);
    for (uint64_t i = 0; i < kCount; ++i) {
        x[i] = static_cast<int64_t>(rank + 1 + i);
    }
    int64_t *in[3] = {x.data(), d1.data(), d2.data()};
    int64_t *out[3] = {d1.data(), d2.data(), d3.data()};
    std::vector<ucc_coll_req_h> reqs(3, nullptr);
    for (int k = 0; k < 3; ++k) {
        ucc_coll_args_t a = allreduce(in[k], out[k], kCount);
        s.check("ucc_collective_init", ucc_collective_init(&a, &reqs[k], life.team));
        ucc_ev_t ev = compute_done(reqs[k]);
        s.check("ucc_collective_triggered_post", ucc_collective_triggered_post(ee, &ev));
        s.before.push_back(ucc_collective_test(reqs[k]));
    }
    // The events are there at once, before any progress (as the reference's).
    for (ucc_ev_t *ev = nullptr; ucc_ee_get_event(ee, &ev) == UCC_OK;) {
        s.post_events += ev->ev_type == UCC_EVENT_COLLECTIVE_POST ? 1 : 0;
        s.check("ucc_ee_ack_event", ucc_ee_ack_event(ee, ev));
    }
    run_to_completion(life.ctx, reqs, s);
    s.first = {d1[0], d2[0], d3[0]};
    // Every element: d3[i] = n * n * (n(n+1)/2 + n i).
    for (uint64_t i = 0; i < kCount; ++i) {
        const int64_t want = static_cast<int64_t>(n * n) *
                             (static_cast<int64_t>(n * (n + 1) / 2) + static_cast<int64_t>(n * i));
        if (d3[i] != want) {
            s.check("d3 differs from the chained sums", UCC_ERR_NO_MESSAGE);
            break;
        }
    }
    for (ucc_coll_req_h r : reqs) {
        s.check("ucc_collective_finalize", ucc_collective_finalize(r));
    }
    s.check("ucc_ee_destroy", ucc_ee_destroy(ee));
    s.check("close", life.close());
}

TEST(SimStreamEngine, CollectivesOnOneStreamRunInTheirOrder) {
    constexpr uint32_t n = 4;
    std::vector<Seen> seen(n);
    ASSERT_EQ(simulate(n, [&](uint32_t r) { chained_allreduces(r, n, seen[r]); }), UCC_OK);
    ASSERT_EQ(failures(seen), "");
    const int64_t d1 = n * (n + 1) / 2;
    for (uint32_t r = 0; r < n; ++r) {
        const Seen &s = seen[r];
        EXPECT_EQ(s.before, std::vector<ucc_status_t>(3, UCC_OPERATION_INITIALIZED)) << r;
        EXPECT_EQ(s.post_events, 3u) << r;
        EXPECT_EQ(s.status, std::vector<ucc_status_t>(3, UCC_OK)) << r;
        EXPECT_EQ(s.first, (std::vector<int64_t>{d1, n * d1, n * n * d1})) << r;
        EXPECT_LT(s.done_at[0], s.done_at[1]) << r;
        EXPECT_LT(s.done_at[1], s.done_at[2]) << r;
    }
}

// A 4 MiB allreduce triggered on stream A, then an 8-byte one on `second`:
// on another stream the small one finishes first, on the same stream (a
// second engine of the context naming it) after the large one.
std::vector<double> large_then_small(uintptr_t second) {
    constexpr uint32_t n = 2;
    std::vector<Seen> seen(n);
    EXPECT_EQ(simulate(n,
                       [&](uint32_t rank) {
                           Seen &s = seen[rank];
                           SimLifecycle life;
                           s.check("open", life.open());
                           ucc_ee_h ea = nullptr, eb = nullptr;
                           s.check("ee A", create_stream_ee(life.team, 0xa, &ea));
                           s.check("ee B", create_stream_ee(life.team, second, &eb));
                           std::vector<int64_t> big(1 << 19, 1), big_out(1 << 19), one{1}, sum{0};
                           ucc_coll_args_t la = allreduce(big.data(), big_out.data(), big.size());
                           ucc_coll_args_t sa = allreduce(one.data(), sum.data(), 1);
                           std::vector<ucc_coll_req_h> reqs(2, nullptr);
                           s.check("init L", ucc_collective_init(&la, &reqs[0], life.team));
                           s.check("init S", ucc_collective_init(&sa, &reqs[1], life.team));
                           ucc_ev_t ev = compute_done(reqs[0]);
                           s.check("trigger L", ucc_collective_triggered_post(ea, &ev));
                           ev = compute_done(reqs[1]);
                           s.check("trigger S", ucc_collective_triggered_post(eb, &ev));
                           run_to_completion(life.ctx, reqs, s);
                           s.first = {big_out[0], sum[0]};
                           for (ucc_coll_req_h r : reqs) {
                               s.check("finalize", ucc_collective_finalize(r));
                           }
                           s.check("destroy A", ucc_ee_destroy(ea));
                           s.check("destroy B", ucc_ee_destroy(eb));
                           s.check("close", life.close());
                       }),
              UCC_OK);
    EXPECT_EQ(failures(seen), "");
    EXPECT_EQ(seen[0].first, (std::vector<int64_t>{2, 2}));
    return seen[0].done_at;
}

TEST(SimStreamEngine, OtherStreamsRunBesideIt) {
    const std::vector<double> apart = large_then_small(0xb);
    ASSERT_EQ(apart.size(), 2u);
    EXPECT_LT(apart[1], apart[0]) << "on another stream the small allreduce waited";
    const std::vector<double> shared = large_then_small(0xa);
    ASSERT_EQ(shared.size(), 2u);
    EXPECT_GT(shared[1], shared[0]) << "on the same stream the small allreduce ran first";
}

// Another team of every rank on `ctx`.
ucc_status_t second_team(ucc_context_h ctx, ucc_team_h *team) {
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_OOB;
    tp.ep = ucc_sim_rank();
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_status_t st = ucc_sim_oob(&tp.oob);
    if (st != UCC_OK || (st = ucc_team_create_post(&ctx, 1, &tp, team)) != UCC_OK) {
        return st;
    }
    while ((st = ucc_team_create_test(*team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

// Two ways a queued collective ends without the stream finishing it, each
// letting the stream go on: (a) W, X, Y queued and X finalized before it
// fired: W then Y run (X's sequence number is skipped on every rank);
// (b) on engines of two teams naming one stream, rank 1 comes 1 ms late:
// rank 0's X (timeout 100 us) on the first team times out, and its stream
// goes on to Y on the second team, which completes once rank 1 gets there.
TEST(SimStreamEngine, EndedCollectivesReleaseTheStream) {
    constexpr uint32_t n = 2;
    std::vector<Seen> seen(n), timed(n);
    ASSERT_EQ(simulate(n,
                       [&](uint32_t rank) {
                           Seen &s = seen[rank];
                           SimLifecycle life;
                           s.check("open", life.open());
                           ucc_ee_h ee = nullptr;
                           s.check("ee", create_stream_ee(life.team, 0x7, &ee));
                           int64_t in[3] = {1, 2, 3}, out[3] = {0, 0, 0};
                           std::vector<ucc_coll_req_h> reqs(3, nullptr);
                           for (int k = 0; k < 3; ++k) {
                               ucc_coll_args_t a = allreduce(&in[k], &out[k], 1);
                               s.check("init", ucc_collective_init(&a, &reqs[k], life.team));
                               ucc_ev_t ev = compute_done(reqs[k]);
                               s.check("trigger", ucc_collective_triggered_post(ee, &ev));
                           }
                           s.check("finalize X", ucc_collective_finalize(reqs[1]));
                           reqs.erase(reqs.begin() + 1);
                           run_to_completion(life.ctx, reqs, s);
                           s.first = {out[0], out[1], out[2]};
                           for (ucc_coll_req_h r : reqs) {
                               s.check("finalize", ucc_collective_finalize(r));
                           }
                           s.check("destroy", ucc_ee_destroy(ee));

                           Seen &t = timed[rank];
                           ucc_team_h other = nullptr;
                           t.check("second team", second_team(life.ctx, &other));
                           ucc_ee_h e1 = nullptr, e2 = nullptr;
                           t.check("ee 1", create_stream_ee(life.team, 0x9, &e1));
                           t.check("ee 2", create_stream_ee(other, 0x9, &e2));
                           if (rank == 1) {
                               ucc_sim_compute(1e-3);
                           }
                           int64_t x_in = 1, x_out = 0, y_in = rank + 10, y_out = 0;
                           ucc_coll_args_t x = allreduce(&x_in, &x_out, 1);
                           x.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                           x.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
                           x.timeout = 100e-6;
                           ucc_coll_args_t y = allreduce(&y_in, &y_out, 1);
                           std::vector<ucc_coll_req_h> two(2, nullptr);
                           t.check("init X", ucc_collective_init(&x, &two[0], life.team));
                           t.check("init Y", ucc_collective_init(&y, &two[1], other));
                           ucc_ev_t ev = compute_done(two[0]);
                           t.check("trigger X", ucc_collective_triggered_post(e1, &ev));
                           ev = compute_done(two[1]);
                           t.check("trigger Y", ucc_collective_triggered_post(e2, &ev));
                           run_to_completion(life.ctx, two, t);
                           t.first = {y_out};
                           for (ucc_coll_req_h r : two) {
                               t.check("finalize", ucc_collective_finalize(r));
                           }
                           t.check("destroy 1", ucc_ee_destroy(e1));
                           t.check("destroy 2", ucc_ee_destroy(e2));
                           while (ucc_team_destroy(other) == UCC_INPROGRESS) {
                               ucc_context_progress(life.ctx);
                           }
                           s.check("close", life.close());
                       }),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    ASSERT_EQ(failures(timed), "");
    for (uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(seen[r].status, std::vector<ucc_status_t>(2, UCC_OK)) << r;
        EXPECT_EQ(seen[r].first, (std::vector<int64_t>{2, 0, 6})) << r;
        EXPECT_LT(seen[r].done_at[0], seen[r].done_at[1]) << r;
        EXPECT_EQ(timed[r].status[1], UCC_OK) << r;
        EXPECT_EQ(timed[r].first, std::vector<int64_t>{21}) << r;
    }
    // (Rank 1's X may complete: rank 0's part of it was sent before it gave up.)
    EXPECT_EQ(timed[0].status[0], UCC_ERR_TIMED_OUT);
    EXPECT_GE(timed[0].done_at[1], 1e-3) << "Y ran before rank 1 posted it";
}

// The timeline has a "CUDA stream 1" track on every rank: the three
// allreduces queued on it, then three slices one after another.
TEST(SimStreamEngine, TheTimelineShowsTheStream) {
    constexpr uint32_t n = 2;
    ucc::testkit::TempDir dir("sim_stream_timeline");
    const std::string path = dir.path() + "/stream.json";
    std::vector<Seen> seen(n);
    ASSERT_EQ(simulate(
                  n, [&](uint32_t r) { chained_allreduces(r, n, seen[r]); }, path.c_str()),
              UCC_OK);
    ASSERT_EQ(failures(seen), "");
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << path;
    uint32_t named = 0, queued = 0;
    std::vector<std::pair<double, double>> slices;  // rank 0's stream slices: (ts, end)
    for (std::string line; std::getline(in, line);) {
        if (line.find("\"name\":\"CUDA stream 1\"") != std::string::npos) {
            ++named;
        }
        if (line.find("\"name\":\"queued allreduce\"") != std::string::npos &&
            line.find("\"tid\":1001") != std::string::npos) {
            ++queued;
        }
        if (line.find("\"cat\":\"stream\",\"ph\":\"X\",\"pid\":0,\"tid\":1001") !=
            std::string::npos) {
            double ts = 0, dur = 0;
            const size_t t = line.find("\"ts\":"), d = line.find("\"dur\":");
            ASSERT_NE(t, std::string::npos);
            ASSERT_NE(d, std::string::npos);
            ts = std::stod(line.substr(t + 5));
            dur = std::stod(line.substr(d + 6));
            slices.emplace_back(ts, ts + dur);
        }
    }
    EXPECT_EQ(named, n);
    EXPECT_EQ(queued, 3 * n);
    ASSERT_EQ(slices.size(), 3u);
    for (size_t i = 1; i < slices.size(); ++i) {
        EXPECT_GE(slices[i].first, slices[i - 1].second) << i;
    }
    EXPECT_GT(slices[0].second, slices[0].first);
}

}  // namespace
