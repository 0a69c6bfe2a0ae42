// Drain on the event loop with a crashed rank: the survivors wait in
// ucc_context_progress while the loop progresses their packets; the news of
// the crash reaches them through the same drain, their allreduces fail, and
// the run is the one the engine gives when it resumes every rank for every
// packet (UCC_SIM_FLAG_NO_DRAIN): same status, trace hash, virtual time and
// events. Here, not in integration_tests: a crashed rank's memory is lost by
// design (fault_tests run without the leak checker).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/common/sim_lifecycle.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 8;

struct Shared {
    uint32_t failed = 0;  // survivors whose allreduce failed
    uint32_t wrong = 0;   // survivors whose allreduce succeeded with a wrong sum
};

void rank_main(void *arg) {
    auto *s = static_cast<Shared *>(arg);
    ucc::testkit::SimLifecycle life;
    if (life.open() != UCC_OK) {
        life.close();
        return;
    }
    // Rank 3 crashes during the first allreduce (the fault plan): the
    // survivors' allreduces fail once they hear of it.
    for (int k = 0; k < 2; ++k) {
        std::vector<int64_t> src(4000, 1);
        std::vector<int64_t> dst(4000, 0);
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {src.data(), src.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst.data(), dst.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
        if (life.run(a) != UCC_OK) {
            s->failed++;
            break;
        }
        if (dst[3999] != kRanks) {
            s->wrong++;
        }
    }
    life.close();
}

struct Outcome {
    ucc_status_t status = UCC_ERR_LAST;
    uint64_t hash = 0;
    double time = 0;
    uint64_t events = 0;
    Shared shared;
};

Outcome simulate(bool drain) {
    Outcome o;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_FAULTS;
    p.n_ranks = kRanks;
    p.seed = 11;
    p.network = "hdr,ppn=4,jitter=300ns";
    p.flags = UCC_SIM_FLAG_QUIET | (drain ? 0 : UCC_SIM_FLAG_NO_DRAIN);
    p.faults = "crash=3@6e-6,detect=1e-6";
    o.status = ucc_sim_run(&p, rank_main, &o.shared);
    o.hash = ucc_sim_trace_hash();
    o.time = ucc_sim_last_time();
    o.events = ucc_sim_last_events();
    return o;
}

TEST(SimDrain, PeersOfACrashedRankFailThroughTheDrain) {
    const Outcome d = simulate(true);
    const Outcome r = simulate(false);
    EXPECT_EQ(d.shared.wrong, 0u);
    EXPECT_EQ(d.shared.failed, kRanks - 1);  // every survivor saw its allreduce fail
    EXPECT_EQ(d.status, r.status);
    EXPECT_EQ(d.hash, r.hash);
    EXPECT_EQ(d.time, r.time);
    EXPECT_EQ(d.events, r.events);
    EXPECT_EQ(d.shared.failed, r.shared.failed);
}

}  // namespace
