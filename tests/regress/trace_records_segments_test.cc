// Found by a session: a trace's header recorded the variables that shape a
// collective (<COLL>_ALG, radixes, thresholds, REDUCE_CHUNK) but not
// BCAST_SEGMENT and REDUCE_SEGMENT, so a replay ran the pipelined trees with
// its own segments (since they default to auto, chosen by cost) instead of
// the recorded run's. They are recorded now, and a replay applies them as
// the others.
#include <gtest/gtest.h>

#include <map>
#include <string>

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
    s.config.emplace_back("TRACE", run->dir);
    s.config.emplace_back("BCAST_SEGMENT", "2K");
    ucc::perf::Lifecycle lc;
    if (!lc.setup(s).empty() || ucc::perf::barrier(lc.team, lc.ctx) != UCC_OK ||
        !lc.teardown().empty()) {
        ++run->failures;
    }
}

TEST(Regress, TracesRecordTheSegmentsOfThePipelinedTrees) {
    ucc::testkit::TempDir dir("trace_segments");
    Recording run{dir.path()};
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = 3;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, &run), UCC_OK);
    ASSERT_EQ(run.failures, 0);
    ucc::traces::Trace trace;
    std::string error;
    ASSERT_TRUE(ucc::traces::read_dir(dir.path(), &trace, &error)) << error;
    ASSERT_EQ(trace.ranks.size(), 3u);
    for (const ucc::traces::RankTrace &r : trace.ranks) {
        std::map<std::string, std::string> config(r.header.config.begin(), r.header.config.end());
        EXPECT_EQ(config["BCAST_SEGMENT"], "2K") << "rank " << r.header.rank;
        EXPECT_EQ(config["REDUCE_SEGMENT"], "auto") << "rank " << r.header.rank;
    }
}

}  // namespace
