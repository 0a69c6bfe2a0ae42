// Active-set bcast (UCC_COLL_ARGS_FIELD_ACTIVE_SET) on the simulator: only the
// members call; the root is a team rank; non-members are never touched; sets
// with negative strides; two concurrent operations on overlapping sets with
// different tags do not cross-match (P31, P32).
#include <gtest/gtest.h>

#include <vector>

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
        ucc::sim::parse_network("slow", &p.net, &err);
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
