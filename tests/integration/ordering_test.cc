// Ordering on the simulator: unordered teams matched by tag with ranks posting
// in different orders (P19), many collectives outstanding at once on an ordered
// team (P18), and concurrent collectives on overlapping teams (P20), under
// jittered networks.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/common/ee_sim.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

struct Ctx {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
};

bool make_ctx(Ctx &c) {
    ucc_lib_config_h lc;
    ucc_lib_config_read(nullptr, nullptr, &lc);
    ucc_lib_params_t lp{};
    ucc_status_t st = ucc_init(&lp, lc, &c.lib);
    ucc_lib_config_release(lc);
    if (st != UCC_OK) {
        return false;
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc::sim::oob(&cp.oob);
    return ucc_context_create(c.lib, &cp, nullptr, &c.ctx) == UCC_OK;
}

ucc_team_h make_team(Ctx &c, const ucc_team_params_t &tp) {
    ucc_team_h t = nullptr;
    ucc_status_t st = ucc_team_create_post(&c.ctx, 1, &tp, &t);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(t)) == UCC_INPROGRESS) {
        }
    }
    return st == UCC_OK ? t : nullptr;
}

using ucc::testkit::allreduce;

void wait_all(Ctx &c, std::vector<ucc_coll_req_h> &reqs, bool *ok) {
    for (ucc_coll_req_h r : reqs) {
        while (ucc_collective_test(r) == UCC_INPROGRESS) {
            ucc_context_progress(c.ctx);
        }
        *ok = *ok && ucc_collective_test(r) == UCC_OK;
        ucc_collective_finalize(r);
    }
    reqs.clear();
}

ucc::sim::ClusterParams params(uint32_t n, uint64_t seed) {
    ucc::sim::ClusterParams p;
    p.n_ranks = n;
    p.seed = seed;
    std::string err;
    ucc::net::parse_network("slow", &p.net, &err);
    return p;
}

}  // namespace

TEST(Ordering, UnorderedTeamMatchesByTag) {
    const uint32_t n = 6;
    const int kOps = 5;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
        std::vector<std::vector<int64_t>> results(n, std::vector<int64_t>(kOps, -1));
        std::vector<char> ok(n, 1);
        auto run = ucc::sim::run(params(n, seed), [&](uint32_t r) {
            Ctx c;
            bool good = make_ctx(c);
            ucc_team_params_t tp{};
            tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_ORDERING;
            tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
            ucc::sim::oob(&tp.oob);
            ucc_team_h team = good ? make_team(c, tp) : nullptr;
            if (team == nullptr) {
                ok[r] = 0;
                return;
            }
            // Each rank posts the operations in its own order (a rotation).
            std::vector<int64_t> src(kOps);
            std::vector<ucc_coll_req_h> reqs;
            for (int k = 0; k < kOps; ++k) {
                int op = (k + static_cast<int>(r + seed)) % kOps;
                src[op] = (op + 1) * 100 + r;
                ucc_coll_args_t a = allreduce(&src[op], &results[r][op], 1);
                a.mask |= UCC_COLL_ARGS_FIELD_TAG;
                a.tag = static_cast<ucc_coll_id_t>(op + 10);
                ucc_coll_req_h req;
                good = good && ucc_collective_init(&a, &req, team) == UCC_OK &&
                       ucc_collective_post(req) == UCC_OK;
                reqs.push_back(req);
            }
            wait_all(c, reqs, &good);
            ok[r] = good;
            ucc_team_destroy(team);
            ucc_context_destroy(c.ctx);
            ucc_finalize(c.lib);
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        for (uint32_t r = 0; r < n; ++r) {
            EXPECT_TRUE(ok[r]);
            for (int op = 0; op < kOps; ++op) {
                EXPECT_EQ(results[r][op], (op + 1) * 100 * static_cast<int64_t>(n) + 15)
                    << "seed " << seed << " rank " << r << " op " << op;
            }
        }
    }
}

TEST(Ordering, UnorderedTeamNeedsTag) {
    std::vector<ucc_status_t> st(2, UCC_OK);
    auto run = ucc::sim::run(params(2, 1), [&](uint32_t r) {
        Ctx c;
        make_ctx(c);
        ucc_team_params_t tp{};
        tp.mask = UCC_TEAM_PARAM_FIELD_OOB | UCC_TEAM_PARAM_FIELD_ORDERING;
        tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
        ucc::sim::oob(&tp.oob);
        ucc_team_h team = make_team(c, tp);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_BARRIER;
        ucc_coll_req_h req;
        st[r] = ucc_collective_init(&a, &req, team);
        ucc_team_destroy(team);
        ucc_context_destroy(c.ctx);
        ucc_finalize(c.lib);
    });
    ASSERT_EQ(run.status, UCC_OK);
    EXPECT_EQ(st[0], UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(st[1], UCC_ERR_INVALID_PARAM);
}

TEST(Ordering, ManyOutstandingOnOrderedTeam) {
    const uint32_t n = 7;
    const int kOps = 16;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        std::vector<std::vector<int64_t>> results(n, std::vector<int64_t>(kOps, -1));
        std::vector<char> ok(n, 1);
        auto run = ucc::sim::run(params(n, seed), [&](uint32_t r) {
            Ctx c;
            bool good = make_ctx(c);
            ucc_team_params_t tp{};
            tp.mask = UCC_TEAM_PARAM_FIELD_OOB;
            ucc::sim::oob(&tp.oob);
            ucc_team_h team = make_team(c, tp);
            std::vector<int64_t> src(kOps);
            std::vector<ucc_coll_req_h> reqs;
            for (int k = 0; k < kOps; ++k) {
                src[k] = k * 1000 + r;
                ucc_coll_args_t a = allreduce(&src[k], &results[r][k], 1);
                ucc_coll_req_h req;
                good = good && ucc_collective_init(&a, &req, team) == UCC_OK &&
                       ucc_collective_post(req) == UCC_OK;
                reqs.push_back(req);
            }
            // Complete them in reverse order of posting.
            std::reverse(reqs.begin(), reqs.end());
            wait_all(c, reqs, &good);
            ok[r] = good;
            ucc_team_destroy(team);
            ucc_context_destroy(c.ctx);
            ucc_finalize(c.lib);
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        for (uint32_t r = 0; r < n; ++r) {
            EXPECT_TRUE(ok[r]);
            for (int k = 0; k < kOps; ++k) {
                EXPECT_EQ(results[r][k], k * 1000 * static_cast<int64_t>(n) + 21);
            }
        }
    }
}

TEST(Ordering, OverlappingTeamsConcurrently) {
    // Five ranks; teams: all five (OOB), even ranks (strided ep map), {1,2,3}
    // (array ep map), and {4} alone; each member posts on all its teams at once.
    const uint32_t n = 5;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        std::vector<std::vector<int64_t>> got(n);
        std::vector<char> ok(n, 1);
        auto run = ucc::sim::run(params(n, seed), [&](uint32_t r) {
            Ctx c;
            bool good = make_ctx(c);
            std::vector<ucc_team_h> teams;
            ucc_team_params_t all{};
            all.mask = UCC_TEAM_PARAM_FIELD_OOB;
            ucc::sim::oob(&all.oob);
            teams.push_back(make_team(c, all));
            if (r % 2 == 0) {
                ucc_team_params_t ev{};
                ev.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
                ev.ep_map.type = UCC_EP_MAP_STRIDED;
                ev.ep_map.ep_num = 3;
                ev.ep_map.strided.start = 0;
                ev.ep_map.strided.stride = 2;
                teams.push_back(make_team(c, ev));
            }
            static const uint64_t kMid[] = {1, 2, 3};
            if (r >= 1 && r <= 3) {
                ucc_team_params_t mid{};
                mid.mask = UCC_TEAM_PARAM_FIELD_EP_MAP;
                mid.ep_map.type = UCC_EP_MAP_ARRAY;
                mid.ep_map.ep_num = 3;
                mid.ep_map.array.map = const_cast<uint64_t *>(kMid);
                mid.ep_map.array.elem_size = 8;
                teams.push_back(make_team(c, mid));
            }
            if (r == 4) {
                ucc_team_params_t one{};
                one.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_TEAM_SIZE;
                one.ep = 0;
                one.team_size = 1;
                teams.push_back(make_team(c, one));
            }
            std::vector<int64_t> src(teams.size(), r + 1);
            got[r].assign(teams.size(), -1);
            std::vector<ucc_coll_req_h> reqs;
            for (size_t i = 0; i < teams.size(); ++i) {
                good = good && teams[i] != nullptr;
                if (!good) {
                    break;
                }
                ucc_coll_args_t a = allreduce(&src[i], &got[r][i], 1);
                ucc_coll_req_h req;
                good = ucc_collective_init(&a, &req, teams[i]) == UCC_OK &&
                       ucc_collective_post(req) == UCC_OK;
                reqs.push_back(req);
            }
            wait_all(c, reqs, &good);
            ok[r] = good;
            // Destroy in a rank-dependent order.
            if (r % 2 == 1) {
                std::reverse(teams.begin(), teams.end());
            }
            for (ucc_team_h t : teams) {
                good = good && ucc_team_destroy(t) == UCC_OK;
            }
            ok[r] = good && ucc_context_destroy(c.ctx) == UCC_OK && ucc_finalize(c.lib) == UCC_OK;
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        for (uint32_t r = 0; r < n; ++r) {
            ASSERT_TRUE(ok[r]) << "rank " << r;
            EXPECT_EQ(got[r][0], 15);  // 1+2+3+4+5
        }
        EXPECT_EQ(got[0][1], 1 + 3 + 5);
        EXPECT_EQ(got[2][1], 1 + 3 + 5);
        EXPECT_EQ(got[4][1], 1 + 3 + 5);
        EXPECT_EQ(got[1][1], 2 + 3 + 4);
        EXPECT_EQ(got[3][1], 2 + 3 + 4);
        EXPECT_EQ(got[2][2], 2 + 3 + 4);
        EXPECT_EQ(got[4][2], 5);
    }
}
