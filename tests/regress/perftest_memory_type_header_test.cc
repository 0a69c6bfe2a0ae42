// ucc_perftest's table header names the buffers' memory type (-m), with the
// reference's names; it used to print "host" whatever -m said. And the
// tool's wait goes on while a request is INITIALIZED (a triggered post
// waiting for its trigger, -T), where it used to stop and report the status
// as a failure.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/common/inproc_world.h"
#include "tools/perf/lifecycle.h"
#include "tools/perf/report.h"
#include "tools/perf/sweep.h"

namespace {

using namespace ucc::perf;

std::string header(ucc_memory_type_t mem) {
    SweepPlan plan;
    plan.spec.coll = find_coll("allreduce");
    plan.spec.dtype = find_dtype("float32");
    plan.spec.op = find_op("sum");
    plan.spec.mem = mem;
    plan.counts = {1};
    RunInfo info;
    info.ranks = 2;
    char *buf = nullptr;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    print_reference_table(f, info, plan, {}, false);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
}

TEST(Regress, PerftestHeaderNamesTheMemoryType) {
    EXPECT_NE(header(UCC_MEMORY_TYPE_HOST).find("Memory type:            host\n"),
              std::string::npos);
    EXPECT_NE(header(UCC_MEMORY_TYPE_CUDA).find("Memory type:            cuda\n"),
              std::string::npos);
    EXPECT_NE(header(UCC_MEMORY_TYPE_CUDA_MANAGED).find("Memory type:            cuda-managed\n"),
              std::string::npos);
}

#if UCC_WITH_UCX
// An event set before the triggered post fires it at the first progress:
// wait must progress an INITIALIZED request to completion.
TEST(Regress, PerftestWaitProgressesATriggeredPost) {
    ucc::testkit::InprocWorld world(1);
    ASSERT_EQ(world.open(), "");
    ucc_team_h team = world.ranks()[0].team;
    ucc_ee_params_t p{};
    p.ee_type = UCC_EE_CPU_THREAD;
    ucc_ee_h ee = nullptr;
    ASSERT_EQ(ucc_ee_create(team, &p, &ee), UCC_OK);
    int32_t src = 7, dst = 0;
    ucc_coll_args_t a{};
    a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    a.op = UCC_OP_SUM;
    a.src.info = {&src, 1, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    a.dst.info = {&dst, 1, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req = nullptr;
    ASSERT_EQ(ucc_collective_init(&a, &req, team), UCC_OK);
    ucc_ev_t ev{};
    ev.ev_type = UCC_EVENT_COMPUTE_COMPLETE;
    ev.req = req;
    ASSERT_EQ(ucc_ee_set_event(ee, &ev), UCC_OK);
    ASSERT_EQ(ucc_collective_triggered_post(ee, &ev), UCC_OK);
    ASSERT_EQ(ucc_collective_test(req), UCC_OPERATION_INITIALIZED);
    EXPECT_EQ(wait(req, world.ranks()[0].ctx), UCC_OK);
    EXPECT_EQ(dst, 7);
    EXPECT_EQ(ucc_collective_finalize(req), UCC_OK);
    EXPECT_EQ(ucc_ee_destroy(ee), UCC_OK);
}
#endif

}  // namespace
