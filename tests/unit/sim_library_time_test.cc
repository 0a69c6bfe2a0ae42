// The library's own time on a simulated rank's clock: o_init at each
// ucc_collective_init (its init and finalize), o_call at each post; a
// network without them charges nothing there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/perf/lifecycle.h"
#include "ucc/sim/ucc_sim.h"

namespace {

struct Clocks {
    std::vector<double> init;  // per rank: the clock's advance across init
    std::vector<double> post;  // ... and across the post of an allreduce of one rank's team
};

void rank_body(void *arg) {
    auto *c = static_cast<Clocks *>(arg);
    ucc::perf::RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    ucc::perf::Lifecycle lc;
    ASSERT_EQ(lc.setup(s), "");
    float src = 1;
    float dst = 0;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.src.info = {&src, 1, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {&dst, 1, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    a.op = UCC_OP_SUM;
    ucc_coll_req_h req = nullptr;
    const double t0 = ucc_sim_now();
    ASSERT_EQ(ucc_collective_init(&a, &req, lc.team), UCC_OK);
    const double t1 = ucc_sim_now();
    ASSERT_EQ(ucc_collective_post(req), UCC_OK);
    const double t2 = ucc_sim_now();
    EXPECT_EQ(ucc::perf::wait(req, lc.ctx), UCC_OK);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    c->init[s.rank] = t1 - t0;
    c->post[s.rank] = t2 - t1;
    EXPECT_EQ(lc.teardown(), "");
}

Clocks run(const char *network) {
    Clocks c;
    c.init.assign(1, -1);
    c.post.assign(1, -1);
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_NETWORK;
    p.n_ranks = 1;
    p.flags = UCC_SIM_FLAG_QUIET;
    p.network = network;
    EXPECT_EQ(ucc_sim_run(&p, rank_body, &c), UCC_OK);
    return c;
}

TEST(SimLibraryTime, InitAndPostAdvanceTheRanksClock) {
    // The post also copies the one rank's 4 bytes (0.2 ns at hdr's copy rate).
    const Clocks with = run("hdr,o_init=3us,o_call=1us");
    EXPECT_NEAR(with.init[0], 3e-6, 1e-12);
    EXPECT_GE(with.post[0], 1e-6);
    EXPECT_LT(with.post[0], 1e-6 + 1e-9);
    const Clocks without = run("hdr,o_call=0");
    EXPECT_EQ(without.init[0], 0);
    EXPECT_LT(without.post[0], 1e-9);
}

}  // namespace
