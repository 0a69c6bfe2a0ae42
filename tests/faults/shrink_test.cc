// Recovery after a crash, as ULFM's MPI_Comm_shrink does it, with the UCC 1.3
// API unchanged: once a collective on the old team has failed (the core
// fails the team when a member's process dies), the survivors create a new
// team over their existing contexts with an ep map that lists only the
// surviving context endpoints, and go on with it. The new team's creation
// talks only to its members (no OOB, no member of the old team that is gone),
// so the dead rank cannot block it. Which ranks died, the application learns
// from outside UCC (its launcher or resource manager, here the fault plan):
// UCC 1.3 has no call that reports failed endpoints (see docs/conformance.md, Recovery).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace {

ucc_status_t allreduce(ucc_team_h team, ucc_context_h ctx, std::vector<int64_t> &src,
                       std::vector<int64_t> &dst) {
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {src.data(), src.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {dst.data(), dst.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req = nullptr;
    ucc_status_t st = ucc_collective_init(&a, &req, team);
    if (st != UCC_OK) {
        return st;
    }
    st = ucc_collective_post(req);
    while (st == UCC_OK && (st = ucc_collective_test(req)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
        st = UCC_OK;
    }
    ucc_collective_finalize(req);
    return st;
}

}  // namespace

TEST(Recovery, SurvivorsShrinkToANewTeamAndGoOn) {
    constexpr uint32_t n = 6;
    for (uint32_t victim : {0u, 2u, 5u}) {
        ucc::sim::ClusterParams cp;
        cp.n_ranks = n;
        cp.faults.crashes.push_back({victim, 2e-5});
        std::vector<std::string> errors(n);
        std::vector<int> shrunk(n, 0);
        const ucc::sim::RunResult run = ucc::sim::run(cp, [&](uint32_t rank) {
            ucc::testkit::RankEnv env;
            std::string &error = errors[rank];
            error = ucc::testkit::setup({}, rank, n, &env);
            if (!error.empty()) {
                return;
            }
            std::vector<int64_t> src(32, rank + 1);
            std::vector<int64_t> dst(32, 0);
            ucc_status_t st = UCC_OK;
            for (int i = 0; i < 1000 && st == UCC_OK; ++i) {
                st = allreduce(env.team, env.ctx, src, dst);
            }
            if (st == UCC_OK) {
                error = "no collective failed after the crash";
                return;
            }
            // Shrink: the survivors' context endpoints, in rank order.
            std::vector<uint64_t> eps;
            for (uint32_t r = 0; r < n; ++r) {
                if (r != victim) {
                    eps.push_back(r);
                }
            }
            const auto me = static_cast<uint64_t>(
                std::find(eps.begin(), eps.end(), uint64_t{rank}) - eps.begin());
            ucc_team_params_t tp{};
            tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE |
                      UCC_TEAM_PARAM_FIELD_TEAM_SIZE | UCC_TEAM_PARAM_FIELD_EP_MAP;
            tp.ep = me;
            tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
            tp.team_size = eps.size();
            tp.ep_map.type = UCC_EP_MAP_ARRAY;
            tp.ep_map.ep_num = eps.size();
            tp.ep_map.array.map = eps.data();
            tp.ep_map.array.elem_size = sizeof(uint64_t);
            ucc_team_h small = nullptr;
            st = ucc_team_create_post(&env.ctx, 1, &tp, &small);
            for (int i = 0; i < 1000000 && st == UCC_OK; ++i) {
                st = ucc_team_create_test(small);
                if (st != UCC_INPROGRESS) {
                    break;
                }
                ucc_context_progress(env.ctx);
                st = UCC_OK;
            }
            if (st != UCC_OK) {
                error = std::string("shrink: team creation: ") + ucc_status_string(st);
            } else {
                // The new team works: the sum over the survivors.
                int64_t want = 0;
                for (uint64_t r : eps) {
                    want += static_cast<int64_t>(r) + 1;
                }
                for (int i = 0; i < 3 && error.empty(); ++i) {
                    std::fill(dst.begin(), dst.end(), 0);
                    st = allreduce(small, env.ctx, src, dst);
                    if (st != UCC_OK || dst[0] != want || dst[31] != want) {
                        error = std::string("allreduce on the shrunk team: ") +
                                ucc_status_string(st) + ", " + std::to_string(dst[0]) +
                                " != " + std::to_string(want);
                    }
                }
                shrunk[rank] = 1;
                while ((st = ucc_team_destroy(small)) == UCC_INPROGRESS) {
                    ucc_context_progress(env.ctx);
                }
                if (st != UCC_OK && error.empty()) {
                    error = std::string("destroying the shrunk team: ") + ucc_status_string(st);
                }
            }
            const std::string down = ucc::testkit::teardown(&env);
            if (!down.empty() && error.empty()) {
                error = "teardown: " + down;
            }
        });
        EXPECT_EQ(run.status, UCC_OK) << "victim " << victim << "\n" << run.report;
        for (uint32_t r = 0; r < n; ++r) {
            if (r == victim) {
                continue;
            }
            EXPECT_EQ(errors[r], "") << "victim " << victim << ", rank " << r;
            EXPECT_EQ(shrunk[r], 1) << "victim " << victim << ", rank " << r;
        }
    }
}
