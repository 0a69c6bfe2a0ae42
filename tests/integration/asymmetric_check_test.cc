// UCC_CHECK_ASYMMETRIC_DT (P42): with the check on, a collective whose members
// chose different algorithms (a TUNE string that names a memory type, one rank
// with CUDA-typed buffers), whose member's selection failed (a TUNE score of 0
// for that memory type), or whose rooted members disagree on the datatype
// completes with UCC_ERR_NOT_SUPPORTED on every member instead of hanging or
// returning wrong data; consistent collectives still return the right data.
// Without the check the divergent case cannot finish correctly (a timeout
// bounds it here).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/common/sim_lifecycle.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

constexpr uint32_t kRanks = 5;  // not a power of two: the check's rounds overlap

enum class Kind { kAllreduce, kGather };

struct Case {
    bool check = false;
    const char *tune = "";  // the context's UCC_TUNE
    Kind kind = Kind::kAllreduce;
    bool rank0_cuda = false;   // rank 0 declares its buffers CUDA memory
    bool rank1_float = false;  // gather: rank 1 sends FLOAT32 (others INT32)
    double timeout = 0;        // 0: none
};

struct Outcome {
    ucc_status_t setup = UCC_ERR_LAST;
    ucc_status_t init = UCC_ERR_LAST;
    ucc_status_t done = UCC_ERR_LAST;
    bool data_ok = false;
};

Case g_case;
std::vector<Outcome> g_out(kRanks);

ucc_status_t run_rank(uint32_t rank, Outcome *o) {
    ucc::testkit::SimLifecycle life;
    life.lib_config = {{"CHECK_ASYMMETRIC_DT", g_case.check ? "y" : "n"}};
    if (*g_case.tune != '\0') {
        life.context_config = {{"TUNE", g_case.tune}};
    }
    ucc_status_t st = life.open();
    if (st != UCC_OK) {
        return st;
    }
    const ucc_memory_type_t mem =
        g_case.rank0_cuda && rank == 0 ? UCC_MEMORY_TYPE_CUDA : UCC_MEMORY_TYPE_HOST;
    std::vector<int32_t> src(64, static_cast<int32_t>(rank + 1));
    std::vector<int32_t> dst(64 * kRanks, -1);
    ucc_coll_args_t a{};
    if (g_case.kind == Kind::kAllreduce) {
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.src.info = {src.data(), src.size(), UCC_DT_INT32, mem};
        a.dst.info = {dst.data(), src.size(), UCC_DT_INT32, mem};
        a.op = UCC_OP_SUM;
    } else {
        a.coll_type = UCC_COLL_TYPE_GATHER;
        a.root = 0;
        const ucc_datatype_t dt = g_case.rank1_float && rank == 1 ? UCC_DT_FLOAT32 : UCC_DT_INT32;
        a.src.info = {src.data(), src.size(), dt, mem};
        a.dst.info = {dst.data(), src.size() * kRanks, UCC_DT_INT32, mem};
    }
    if (g_case.timeout > 0) {
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
        a.timeout = g_case.timeout;
    }
    o->done = life.run(a, &o->init);
    bool ok = true;
    if (g_case.kind == Kind::kAllreduce) {
        for (size_t i = 0; i < src.size(); ++i) {
            ok = ok && dst[i] == static_cast<int32_t>(kRanks * (kRanks + 1) / 2);
        }
    } else if (rank == 0) {
        for (size_t i = 0; i < dst.size(); ++i) {
            ok = ok && dst[i] == static_cast<int32_t>(i / src.size() + 1);
        }
    }
    o->data_ok = ok;
    o->setup = UCC_OK;
    return life.close();
}

void rank_main(void *) {
    const uint32_t rank = ucc_sim_rank();
    const ucc_status_t st = run_rank(rank, &g_out[rank]);
    if (st != UCC_OK) {
        g_out[rank].setup = st;
    }
}

void run(const Case &c) {
    g_case = c;
    g_out.assign(kRanks, Outcome{});
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = kRanks;
    p.seed = 11;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, rank_main, nullptr), UCC_OK);
    for (uint32_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(g_out[r].setup, UCC_OK)
            << "rank " << r << ": " << ucc_status_string(g_out[r].setup);
    }
}

// Every member: init UCC_OK, completion UCC_ERR_NOT_SUPPORTED.
void expect_all_refused() {
    for (uint32_t r = 0; r < kRanks; ++r) {
        EXPECT_EQ(g_out[r].init, UCC_OK) << "rank " << r;
        EXPECT_EQ(g_out[r].done, UCC_ERR_NOT_SUPPORTED)
            << "rank " << r << ": " << ucc_status_string(g_out[r].done);
    }
}

TEST(AsymmetricCheck, DivergentAlgorithmsFailOnEveryMember) {
    Case c;
    c.check = true;
    c.tune = "allreduce:cuda:@ring";
    c.rank0_cuda = true;
    run(c);
    expect_all_refused();
}

TEST(AsymmetricCheck, WithoutTheCheckDivergentAlgorithmsCannotSucceed) {
    Case c;
    c.tune = "allreduce:cuda:@ring";
    c.rank0_cuda = true;
    c.timeout = 0.01;
    run(c);
    bool all_right = true;
    for (uint32_t r = 0; r < kRanks; ++r) {
        all_right = all_right && g_out[r].done == UCC_OK && g_out[r].data_ok;
    }
    EXPECT_FALSE(all_right) << "the ranks ran different algorithms and still agreed";
}

TEST(AsymmetricCheck, AMemberWhoseSelectionFailsMakesEveryMemberFail) {
    Case c;
    c.check = true;
    c.tune = "allreduce:cuda:0";
    c.rank0_cuda = true;
    run(c);
    expect_all_refused();
    // Without the check, only that member refuses, at init (and the others
    // wait for it until their timeout).
    c.check = false;
    c.timeout = 0.01;
    run(c);
    EXPECT_EQ(g_out[0].init, UCC_ERR_NOT_SUPPORTED);
    EXPECT_EQ(g_out[1].init, UCC_OK);
}

TEST(AsymmetricCheck, RootedDatatypeMismatchFailsOnEveryMember) {
    Case c;
    c.check = true;
    c.kind = Kind::kGather;
    c.rank1_float = true;
    run(c);
    expect_all_refused();
    c.rank1_float = false;
    c.rank0_cuda = true;  // the root's memory type differs: also refused
    run(c);
    expect_all_refused();
}

TEST(AsymmetricCheck, ConsistentCollectivesRunAndReturnTheRightData) {
    for (Kind kind : {Kind::kAllreduce, Kind::kGather}) {
        Case c;
        c.check = true;
        c.kind = kind;
        c.tune = "allreduce:cuda:@ring";  // no member's buffers are CUDA: no effect
        run(c);
        for (uint32_t r = 0; r < kRanks; ++r) {
            EXPECT_EQ(g_out[r].init, UCC_OK) << "rank " << r;
            EXPECT_EQ(g_out[r].done, UCC_OK) << "rank " << r;
            EXPECT_TRUE(g_out[r].data_ok) << "rank " << r;
        }
    }
}

}  // namespace
