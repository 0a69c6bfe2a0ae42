// Active sets (UCC_COLL_ARGS_FIELD_ACTIVE_SET) on the simulator: only the
// members call; the root is a team rank; non-members are never touched; sets
// with negative strides and sets of one; every collective type laid out by set
// position and checked byte for byte against the model (non-members' memory
// included); concurrent operations on overlapping sets with different tags do
// not cross-match (P31, P32).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

struct World {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
};

bool setup(World &w) {
    ucc_lib_config_h lc;
    ucc_lib_config_read(nullptr, nullptr, &lc);
    ucc_lib_params_t lp{};
    if (ucc_init(&lp, lc, &w.lib) != UCC_OK) {
        return false;
    }
    ucc_lib_config_release(lc);
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc::sim::oob(&cp.oob);
    if (ucc_context_create(w.lib, &cp, nullptr, &w.ctx) != UCC_OK) {
        return false;
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_OOB;
    ucc::sim::oob(&tp.oob);
    ucc_status_t st = ucc_team_create_post(&w.ctx, 1, &tp, &w.team);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(w.team)) == UCC_INPROGRESS) {
        }
    }
    return st == UCC_OK;
}

void teardown(World &w) {
    ucc_team_destroy(w.team);
    ucc_context_destroy(w.ctx);
    ucc_finalize(w.lib);
}

ucc_coll_args_t set_bcast(int32_t *buf, uint64_t count, uint64_t root, uint64_t start,
                          int64_t stride, uint64_t size, int tag) {
    ucc_coll_args_t a{};
    a.mask = UCC_COLL_ARGS_FIELD_ACTIVE_SET | (tag >= 0 ? UCC_COLL_ARGS_FIELD_TAG : 0);
    a.coll_type = UCC_COLL_TYPE_BCAST;
    a.root = root;
    a.src.info = {buf, count, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.active_set.start = start;
    a.active_set.stride = stride;
    a.active_set.size = size;
    a.tag = static_cast<ucc_coll_id_t>(tag < 0 ? 0 : tag);
    return a;
}

bool member(uint32_t r, uint32_t n, uint64_t start, int64_t stride, uint64_t size) {
    int64_t s = stride % static_cast<int64_t>(n);
    if (s < 0) {
        s += n;
    }
    for (uint64_t i = 0; i < size; ++i) {
        if ((start + i * static_cast<uint64_t>(s)) % n == r) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST(ActiveSet, StridedBcastReachesOnlyMembers) {
    struct Case {
        uint32_t n;
        uint64_t start;
        int64_t stride;
        uint64_t size;
        uint64_t root;
    };
    const Case cases[] = {{8, 0, 2, 4, 4}, {8, 7, -1, 5, 5}, {7, 3, 3, 7, 3},
                          {5, 1, 1, 2, 2}, {9, 8, -3, 3, 2}, {4, 2, 0, 1, 2}};
    for (const Case &c : cases) {
        std::vector<std::vector<int32_t>> bufs(c.n, std::vector<int32_t>(33, -1));
        std::vector<ucc_status_t> status(c.n, UCC_OK);
        ucc::sim::ClusterParams p;
        p.n_ranks = c.n;
        auto run = ucc::sim::run(p, [&](uint32_t r) {
            World w;
            if (!setup(w)) {
                status[r] = UCC_ERR_NO_MESSAGE;
                return;
            }
            if (r == c.root) {
                for (int i = 0; i < 33; ++i) {
                    bufs[r][i] = i * 7 + 1;
                }
            }
            if (member(r, c.n, c.start, c.stride, c.size)) {
                ucc_coll_args_t a =
                    set_bcast(bufs[r].data(), 33, c.root, c.start, c.stride, c.size, -1);
                ucc_coll_req_h req;
                status[r] = ucc_collective_init(&a, &req, w.team);
                if (status[r] == UCC_OK) {
                    ucc_collective_post(req);
                    while ((status[r] = ucc_collective_test(req)) == UCC_INPROGRESS) {
                        ucc_context_progress(w.ctx);
                    }
                    ucc_collective_finalize(req);
                }
            }
            teardown(w);
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        for (uint32_t r = 0; r < c.n; ++r) {
            EXPECT_EQ(status[r], UCC_OK) << "rank " << r;
            bool in = member(r, c.n, c.start, c.stride, c.size);
            for (int i = 0; i < 33; ++i) {
                EXPECT_EQ(bufs[r][i], in ? i * 7 + 1 : -1)
                    << "n=" << c.n << " start=" << c.start << " stride=" << c.stride << " rank "
                    << r << " elem " << i;
            }
        }
    }
}

TEST(ActiveSet, OverlappingConcurrentSetsDoNotCrossMatch) {
    // {0,1} rooted at 0 and {1,2} rooted at 2, posted at once; rank 1 is in both
    // and posts them in opposite orders on different seeds.
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        std::vector<int32_t> a_buf(3, 0);
        std::vector<int32_t> b_buf(3, 0);
        std::vector<int32_t> mid_a(1, 0);
        std::vector<int32_t> mid_b(1, 0);
        bool ok = true;
        ucc::sim::ClusterParams p;
        p.n_ranks = 3;
        p.seed = seed;
        std::string err;
        ucc::net::parse_network("slow", &p.net, &err);
        auto run = ucc::sim::run(p, [&](uint32_t r) {
            World w;
            if (!setup(w)) {
                ok = false;
                return;
            }
            std::vector<ucc_coll_req_h> reqs;
            int32_t v0 = 100;
            int32_t v2 = 200;
            auto post = [&](ucc_coll_args_t a) {
                ucc_coll_req_h req;
                if (ucc_collective_init(&a, &req, w.team) != UCC_OK ||
                    ucc_collective_post(req) != UCC_OK) {
                    ok = false;
                    return;
                }
                reqs.push_back(req);
            };
            if (r == 0) {
                post(set_bcast(&v0, 1, 0, 0, 1, 2, 1));
            } else if (r == 2) {
                post(set_bcast(&v2, 1, 2, 1, 1, 2, 2));
            } else if (seed % 2 == 0) {
                post(set_bcast(mid_a.data(), 1, 0, 0, 1, 2, 1));
                post(set_bcast(mid_b.data(), 1, 2, 1, 1, 2, 2));
            } else {
                post(set_bcast(mid_b.data(), 1, 2, 1, 1, 2, 2));
                post(set_bcast(mid_a.data(), 1, 0, 0, 1, 2, 1));
            }
            for (ucc_coll_req_h req : reqs) {
                while (ucc_collective_test(req) == UCC_INPROGRESS) {
                    ucc_context_progress(w.ctx);
                }
                ok = ok && ucc_collective_test(req) == UCC_OK;
                ucc_collective_finalize(req);
            }
            teardown(w);
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        EXPECT_TRUE(ok);
        EXPECT_EQ(mid_a[0], 100) << "seed " << seed;
        EXPECT_EQ(mid_b[0], 200) << "seed " << seed;
    }
}

namespace {

using ucc::testkit::Scenario;

void expect_matches_model(const Scenario &s) {
    const ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_TRUE(o.failure.empty()) << ucc::testkit::describe(s) << "\n" << o.failure;
}

bool no_data(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_BARRIER || t == UCC_COLL_TYPE_FANIN || t == UCC_COLL_TYPE_FANOUT;
}

bool has_inplace(ucc_coll_type_t t) {
    return !no_data(t) && t != UCC_COLL_TYPE_BCAST;
}

struct SetCase {
    uint32_t n;
    uint64_t start;
    int64_t stride;
    uint64_t size;
    uint32_t root;  // a team rank, a member
};

// Sets with positive, negative and wrapping strides, the whole team backwards
// and a set of one; roots at set positions other than 0.
constexpr SetCase kSets[] = {
    {8, 1, 2, 4, 5},   // 1, 3, 5, 7
    {8, 7, -3, 5, 4},  // 7, 4, 1, 6, 3
    {7, 2, -1, 7, 0},  // the whole team, backwards: 2, 1, 0, 6, 5, 4, 3
    {9, 8, -3, 3, 2},  // 8, 5, 2
    {6, 4, 0, 1, 4},   // a set of one
    {5, 3, 11, 2, 4},  // 11 = 1 (mod 5): 3, 4
};

Scenario set_scenario(ucc_coll_type_t t, const SetCase &c) {
    Scenario s;
    s.type = t;
    s.n = c.n;
    s.active_set = true;
    s.as_start = c.start;
    s.as_stride = c.stride;
    s.as_size = c.size;
    s.root = c.root;
    s.count = no_data(t) ? 0 : 5;
    s.op = UCC_OP_SUM;
    s.dt = UCC_DT_INT32;
    s.seed = c.n * 31 + c.start;
    s.value_seed = 11 + c.size;
    return s;
}

}  // namespace

// Every type, every algorithm, on every set: the library's result equals the
// plain collective over the members renumbered by set position, and
// non-members' memory (and guards) is untouched.
TEST(ActiveSet, EveryTypeAndAlgorithmMatchesTheModel) {
    for (ucc_coll_type_t t : ucc::testkit::kAllCollTypes) {
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(t)) {
            if (alg.onesided) {
                continue;  // refused on active sets (their rounds would not agree)
            }
            for (const SetCase &c : kSets) {
                for (bool inplace : {false, true}) {
                    if (inplace && !has_inplace(t)) {
                        continue;
                    }
                    Scenario s = set_scenario(t, c);
                    s.alg = alg.name;
                    s.inplace = inplace;
                    s.wide_counts = c.n % 2 == 0;
                    s.wide_displs = c.size % 2 == 1;
                    if (!ucc::testkit::alg_can_run(s)) {
                        continue;  // refused (allgather neighbor on odd sets)
                    }
                    expect_matches_model(s);
                }
            }
        }
    }
}

// Cases spelled out: reductions with a non-zero root and AVG (which divides by
// the set's size), counts 0, 1 and multi-segment, persistent re-posts,
// init_and_post, a user tag, a team created from an ep map, skewed posts.
TEST(ActiveSet, NamedCases) {
    std::vector<Scenario> cases;
    auto add = [&](ucc_coll_type_t t, const SetCase &c, auto &&edit) {
        Scenario s = set_scenario(t, c);
        edit(s);
        cases.push_back(s);
    };
    auto none = [](Scenario &) {};
    // Reduce rooted at team rank 5, set position 2 of {1, 3, 5, 7}; non-roots
    // pass a dst that must stay unchanged, team rank 2 is not a member.
    add(UCC_COLL_TYPE_REDUCE, kSets[0], [](Scenario &s) { s.reduce_nonroot_dst = true; });
    add(UCC_COLL_TYPE_REDUCE, kSets[1], [](Scenario &s) {
        s.dt = UCC_DT_FLOAT64;
        s.op = UCC_OP_AVG;  // exact: the kit's inputs for AVG are small integers
        s.count = 64;
    });
    add(UCC_COLL_TYPE_ALLREDUCE, kSets[1], [](Scenario &s) {
        s.dt = UCC_DT_FLOAT32;
        s.op = UCC_OP_AVG;
    });
    add(UCC_COLL_TYPE_ALLREDUCE, kSets[2], [](Scenario &s) { s.count = 3000; });
    add(UCC_COLL_TYPE_ALLGATHER, kSets[3], [](Scenario &s) { s.count = 1; });
    add(UCC_COLL_TYPE_ALLTOALL, kSets[1], [](Scenario &s) { s.count = 0; });
    add(UCC_COLL_TYPE_ALLGATHERV, kSets[1], [](Scenario &s) { s.posts = 3; });
    add(UCC_COLL_TYPE_GATHERV, kSets[2], [](Scenario &s) { s.init_and_post = true; });
    add(UCC_COLL_TYPE_SCATTER, kSets[1], [](Scenario &s) { s.posts = 2; });
    add(UCC_COLL_TYPE_REDUCE_SCATTER, kSets[2], [](Scenario &s) { s.inplace = true; });
    add(UCC_COLL_TYPE_BARRIER, kSets[1], [](Scenario &s) { s.skew_ps = 50'000'000; });
    add(UCC_COLL_TYPE_FANIN, kSets[3], none);
    add(UCC_COLL_TYPE_FANOUT, kSets[0], [](Scenario &s) { s.tag = 9; });
    add(UCC_COLL_TYPE_SCATTERV, kSets[4], none);  // a set of one
    add(UCC_COLL_TYPE_ALLTOALLV, kSets[5], [](Scenario &s) { s.team_ep_map = true; });
    for (const Scenario &s : cases) {
        expect_matches_model(s);
    }
}

// P32 for a non-bcast type: two allreduces on overlapping sets {0,1,2} and
// {1,2,3} of a team of 4, distinct tags, posted at once (ranks 1 and 2 are in
// both and post them in opposite orders), then a whole-team allreduce (active
// sets do not consume the team's sequence numbers).
TEST(ActiveSet, OverlappingConcurrentAllreducesDoNotCrossMatch) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        const uint32_t n = 4;
        const int kCount = 3;
        std::vector<std::vector<int64_t>> res_a(n, std::vector<int64_t>(kCount, -1));
        std::vector<std::vector<int64_t>> res_b(n, std::vector<int64_t>(kCount, -1));
        std::vector<std::vector<int64_t>> res_all(n, std::vector<int64_t>(kCount, -1));
        std::vector<std::string> errors(n);
        ucc::sim::ClusterParams p;
        p.n_ranks = n;
        p.seed = seed;
        std::string err;
        ucc::net::parse_network("slow", &p.net, &err);
        auto run = ucc::sim::run(p, [&](uint32_t r) {
            World w;
            if (!setup(w)) {
                errors[r] = "setup failed";
                return;
            }
            // Inputs: set A sums 1s, set B sums 100s, the team sums r + 1.
            std::vector<int64_t> in_a(kCount, 1), in_b(kCount, 100);
            std::vector<int64_t> in_all(kCount, r + 1);
            auto args = [&](const std::vector<int64_t> &src, std::vector<int64_t> &dst,
                            uint64_t start, int tag) {
                ucc_coll_args_t a{};
                a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
                a.op = UCC_OP_SUM;
                a.src.info = {const_cast<int64_t *>(src.data()), kCount, UCC_DT_INT64,
                              UCC_MEMORY_TYPE_HOST};
                a.dst.info = {dst.data(), kCount, UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
                if (tag >= 0) {
                    a.mask = UCC_COLL_ARGS_FIELD_ACTIVE_SET | UCC_COLL_ARGS_FIELD_TAG;
                    a.tag = static_cast<ucc_coll_id_t>(tag);
                    a.active_set.start = start;
                    a.active_set.stride = 1;
                    a.active_set.size = 3;
                }
                return a;
            };
            std::vector<ucc_coll_req_h> reqs;
            auto post = [&](ucc_coll_args_t a) {
                ucc_coll_req_h req;
                ucc_status_t st = ucc_collective_init(&a, &req, w.team);
                if (st == UCC_OK) {
                    st = ucc_collective_post(req);
                }
                if (st != UCC_OK) {
                    errors[r] = std::string("post: ") + ucc_status_string(st);
                    return;
                }
                reqs.push_back(req);
            };
            const bool in_a_set = r <= 2;
            const bool in_b_set = r >= 1;
            if (in_a_set && in_b_set && (seed + r) % 2 == 0) {
                post(args(in_b, res_b[r], 1, 2));
                post(args(in_a, res_a[r], 0, 1));
            } else {
                if (in_a_set) {
                    post(args(in_a, res_a[r], 0, 1));
                }
                if (in_b_set) {
                    post(args(in_b, res_b[r], 1, 2));
                }
            }
            auto wait_all = [&]() {
                for (ucc_coll_req_h req : reqs) {
                    ucc_status_t st;
                    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
                        ucc_context_progress(w.ctx);
                    }
                    if (st != UCC_OK && errors[r].empty()) {
                        errors[r] = std::string("completion: ") + ucc_status_string(st);
                    }
                    ucc_collective_finalize(req);
                }
                reqs.clear();
            };
            wait_all();
            post(args(in_all, res_all[r], 0, -1));
            wait_all();
            teardown(w);
        });
        ASSERT_EQ(run.status, UCC_OK) << run.report;
        for (uint32_t r = 0; r < n; ++r) {
            SCOPED_TRACE(testing::Message() << "seed " << seed << " rank " << r);
            EXPECT_EQ(errors[r], "");
            const std::vector<int64_t> untouched(kCount, -1);
            EXPECT_EQ(res_a[r], r <= 2 ? std::vector<int64_t>(kCount, 3) : untouched);
            EXPECT_EQ(res_b[r], r >= 1 ? std::vector<int64_t>(kCount, 300) : untouched);
            EXPECT_EQ(res_all[r], std::vector<int64_t>(kCount, 1 + 2 + 3 + 4));
        }
    }
}
