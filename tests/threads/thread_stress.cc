// UCC_THREAD_MULTIPLE: several threads post, test and progress on one context
// at once. Run in the normal, ASan and TSan builds (scripts/test.sh).
//
//  * Loopback: one context, a team of one, four threads each running
//    allreduces on their own buffers while a fifth only progresses.
//  * UCX: four contexts in this process form a four-member world over an
//    in-process OOB (each context its own UCP worker, as four processes
//    would); on an unordered team every context's three threads post tagged
//    allreduces, so the members see them in different orders; every result
//    is checked.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/common/inproc_oob.h"
#include "ucc/api/ucc.h"

namespace {

constexpr auto kLimit = std::chrono::seconds(120);

ucc_lib_h make_lib() {
    ucc_lib_config_h cfg;
    EXPECT_EQ(ucc_lib_config_read(nullptr, nullptr, &cfg), UCC_OK);
    ucc_lib_params_t p{};
    p.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    p.thread_mode = UCC_THREAD_MULTIPLE;
    ucc_lib_h lib = nullptr;
    EXPECT_EQ(ucc_init(&p, cfg, &lib), UCC_OK);
    ucc_lib_config_release(cfg);
    ucc_lib_attr_t attr{};
    attr.mask = UCC_LIB_ATTR_FIELD_THREAD_MODE;
    EXPECT_EQ(ucc_lib_get_attr(lib, &attr), UCC_OK);
    EXPECT_EQ(attr.thread_mode, UCC_THREAD_MULTIPLE);
    return lib;
}

// Runs one int64 SUM allreduce of `n` elements to completion; "" when the
// result is `expect` everywhere.
std::string allreduce(ucc_context_h ctx, ucc_team_h team, int64_t mine, int64_t expect, size_t n,
                      int64_t tag) {
    std::vector<int64_t> src(n, mine);
    std::vector<int64_t> dst(n, -1);
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.src.info = {src.data(), n, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), n, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.op = UCC_OP_SUM;
    if (tag >= 0) {
        a.mask = UCC_COLL_ARGS_FIELD_TAG;
        a.tag = static_cast<ucc_coll_id_t>(tag);
    }
    ucc_coll_req_h req;
    ucc_status_t st = ucc_collective_init(&a, &req, team);
    if (st != UCC_OK) {
        return std::string("init: ") + ucc_status_string(st);
    }
    st = ucc_collective_post(req);
    const auto end = std::chrono::steady_clock::now() + kLimit;
    if (st == UCC_OK) {
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
            if (std::chrono::steady_clock::now() > end) {
                return "hang";
            }
        }
    }
    ucc_collective_finalize(req);
    if (st != UCC_OK) {
        return std::string("completion: ") + ucc_status_string(st);
    }
    for (int64_t v : dst) {
        if (v != expect) {
            return "wrong result " + std::to_string(v) + " (want " + std::to_string(expect) + ")";
        }
    }
    return "";
}

bool create_team(ucc_context_h ctx, const ucc_team_params_t &tp, ucc_team_h *team) {
    if (ucc_team_create_post(&ctx, 1, &tp, team) != UCC_OK) {
        return false;
    }
    ucc_status_t st;
    const auto end = std::chrono::steady_clock::now() + kLimit;
    while ((st = ucc_team_create_test(*team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
        if (std::chrono::steady_clock::now() > end) {
            return false;
        }
    }
    return st == UCC_OK;
}

TEST(ThreadMultiple, OneContextManyThreadsLoopback) {
    ucc_lib_h lib = make_lib();
    ucc_context_params_t cp{};
    ucc_context_h ctx;
    ASSERT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
    tp.ep = 0;
    tp.team_size = 1;
    ucc_team_h team;
    ASSERT_TRUE(create_team(ctx, tp, &team));
    std::atomic<bool> stop{false};
    std::thread progresser([&] {
        while (!stop.load()) {
            ucc_context_progress(ctx);
        }
    });
    std::vector<std::string> errors(4);
    std::vector<std::thread> workers;
    for (int t = 0; t < 4; ++t) {
        workers.emplace_back([&, t] {
            for (int i = 0; i < 300 && errors[t].empty(); ++i) {
                errors[t] = allreduce(ctx, team, t * 1000 + i, t * 1000 + i, 1 + i % 17, -1);
            }
        });
    }
    for (auto &w : workers) {
        w.join();
    }
    stop = true;
    progresser.join();
    for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
    }
    EXPECT_EQ(ucc_team_destroy(team), UCC_OK);
    EXPECT_EQ(ucc_context_destroy(ctx), UCC_OK);
    EXPECT_EQ(ucc_finalize(lib), UCC_OK);
}

#ifdef UCC_WITH_UCX
using ucc::testkit::InprocOob;
using ucc::testkit::OobMember;

TEST(ThreadMultiple, FourContextsOverUcxThreeThreadsEach) {
    constexpr uint32_t kRanks = 4;
    constexpr int kThreads = 3;
    constexpr int kOps = 60;
    InprocOob oob(kRanks);
    std::vector<OobMember> members;
    for (uint32_t r = 0; r < kRanks; ++r) {
        members.push_back({&oob, r});
    }
    std::vector<std::string> errors(kRanks * kThreads);
    std::vector<std::thread> ranks;
    for (uint32_t r = 0; r < kRanks; ++r) {
        ranks.emplace_back([&, r] {
            std::string &err = errors[r * kThreads];
            ucc_lib_h lib = make_lib();
            ucc_context_config_h cfg;
            ucc_context_config_read(lib, nullptr, &cfg);
            ucc_context_config_modify(cfg, nullptr, "TLS", "ucx");
            ucc_context_params_t cp{};
            cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
            cp.oob = ucc::testkit::inproc_oob(&members[r]);
            ucc_context_h ctx;
            ucc_status_t st = ucc_context_create(lib, &cp, cfg, &ctx);
            ucc_context_config_release(cfg);
            if (st != UCC_OK) {
                err = std::string("context: ") + ucc_status_string(st);
                return;
            }
            ucc_team_params_t tp{};
            tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                      UCC_TEAM_PARAM_FIELD_ORDERING;
            tp.ep = r;
            tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
            tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
            ucc_team_h team;
            if (!create_team(ctx, tp, &team)) {
                err = "team creation";
                return;
            }
            std::vector<std::thread> threads;
            for (int t = 0; t < kThreads; ++t) {
                threads.emplace_back([&, t] {
                    std::string &e = errors[r * kThreads + t];
                    for (int i = 0; i < kOps && e.empty(); ++i) {
                        // Every rank contributes r + 1: the sum is 10.
                        e = allreduce(ctx, team, r + 1, 10, 1 + (i * 7 + t) % 300, t * 4096 + i);
                    }
                });
            }
            for (auto &th : threads) {
                th.join();
            }
            ucc_team_destroy(team);
            ucc_context_destroy(ctx);
            ucc_finalize(lib);
        });
    }
    for (auto &th : ranks) {
        th.join();
    }
    for (size_t i = 0; i < errors.size(); ++i) {
        EXPECT_EQ(errors[i], "") << "rank " << i / kThreads << " thread " << i % kThreads;
    }
}

#endif  // UCC_WITH_UCX

}  // namespace
