// Found by a session: contexts created without an OOB (their teams made over
// one, as callback-style programs and `ucc_sim --team-oob` do) all wrote
// their traces as rank0.jsonl, rank0.1.jsonl, ... with size 1, so no such
// run could be replayed ("rank 0 has two traces"), and past 1,000 contexts in
// one directory nothing was recorded; nor did its teams record their members
// ("team 1 has no recorded membership": the replay ran none of its
// collectives). Such a context now names its file when its first team over
// an OOB is posted, with that team's rank and size, and its teams' members
// are ranks of that team.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <variant>

#include "tests/common/temp_dir.h"
#include "tools/perf/lifecycle.h"
#include "traces/reader.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Recording {
    std::string dir;
    int failures = 0;
};

void rank_main(void *arg) {
    auto *run = static_cast<Recording *>(arg);
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.context_without_oob = true;
    s.config.emplace_back("TRACE", run->dir);
    ucc::perf::Lifecycle lc;
    if (!lc.setup(s).empty() || ucc::perf::barrier(lc.team, lc.ctx) != UCC_OK ||
        !lc.teardown().empty()) {
        ++run->failures;
    }
}

TEST(Regress, TracesOfContextsWithoutAnOobAreNamedByTheirTeamsRank) {
    ucc::testkit::TempDir dir("trace_no_oob");
    Recording run{dir.path()};
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = 6;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, &run), UCC_OK);
    ASSERT_EQ(run.failures, 0);
    for (uint32_t r = 0; r < 6; ++r) {
        EXPECT_EQ(access((dir.path() + "/rank" + std::to_string(r) + ".jsonl").c_str(), F_OK), 0)
            << "rank " << r;
    }
    ucc::traces::Trace trace;
    std::string error;
    ASSERT_TRUE(ucc::traces::read_dir(dir.path(), &trace, &error)) << error;
    ASSERT_EQ(trace.size, 6u);
    ASSERT_EQ(trace.ranks.size(), 6u);
    for (uint32_t r = 0; r < 6; ++r) {
        EXPECT_EQ(trace.ranks[r].header.rank, r);
        EXPECT_FALSE(trace.ranks[r].header.context_oob);
        int teams = 0;
        for (const ucc::traces::Record &rec : trace.ranks[r].records) {
            if (const auto *t = std::get_if<ucc::traces::TeamRec>(&rec)) {
                ++teams;
                ASSERT_TRUE(t->has_members) << "rank " << r;
                ASSERT_EQ(t->members.size(), 6u);
                for (uint32_t i = 0; i < 6; ++i) {
                    EXPECT_EQ(t->members[i], int64_t(i));
                }
            }
        }
        EXPECT_EQ(teams, 1) << "rank " << r;
    }
}

}  // namespace
