// One-sided alltoall and alltoallv on the simulator, as the reference
// defines them (lib/coll/patterns/onesided.h): blocks put into the peers'
// mapped memory at the displacements the writer gives, completion counted in
// the global work buffer, the counters back to zero after each collective.
// The same rank body runs over UCX in mp_ucx_onesided.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/onesided_body.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct OnesidedRun {
    uint64_t seed = 0;
    std::vector<std::string> errors;
};

void rank_main(void *arg) {
    auto *run = static_cast<OnesidedRun *>(arg);
    ucc::testkit::OnesidedParams p;
    ucc_sim_oob(&p.oob);
    p.seed = run->seed;
    run->errors[ucc_sim_rank()] = ucc::testkit::onesided_rank(p);
}

}  // namespace

TEST(Onesided, AlltoallAndAlltoallvOnTheSimulator) {
    for (uint32_t n : {1u, 2u, 3u, 5u, 8u}) {
        for (uint64_t seed : {1u, 2u, 3u}) {
            OnesidedRun run;
            run.seed = seed * 100 + n;
            run.errors.assign(n, "did not run");
            ucc_sim_params_t sp{};
            sp.mask =
                UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_SEED;
            sp.n_ranks = n;
            sp.seed = run.seed;
            sp.flags = UCC_SIM_FLAG_QUIET;
            ASSERT_EQ(ucc_sim_run(&sp, rank_main, &run), UCC_OK) << "n " << n << " seed " << seed;
            for (uint32_t r = 0; r < n; ++r) {
                EXPECT_EQ(run.errors[r], "") << "n " << n << " seed " << run.seed << " rank " << r;
            }
        }
    }
}
