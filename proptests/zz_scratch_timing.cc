#include <gtest/gtest.h>
#include <chrono>
#include <cstdio>
#include "tests/common/scenario.h"
using ucc::testkit::Scenario;
TEST(Scratch, Timing) {
    struct C { ucc_coll_type_t t; const char* alg; uint32_t n; uint64_t count; ucc_datatype_t dt; };
    C cs[] = {
        {UCC_COLL_TYPE_ALLREDUCE, "auto", 1024, 300, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLREDUCE, "ring", 1024, 300, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner", 1000, 3000, UCC_DT_INT64},
        {UCC_COLL_TYPE_BCAST, "auto", 1024, 300, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_BARRIER, "auto", 1024, 0, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLGATHER, "ring", 1024, 3, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLGATHER, "bruck", 1024, 3, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLTOALL, "pairwise", 256, 1, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLTOALL, "linear", 256, 1, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLTOALL, "pairwise", 1024, 1, UCC_DT_INT8},
        {UCC_COLL_TYPE_ALLREDUCE, "auto", 64, 300, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLTOALL, "auto", 64, 30, UCC_DT_FLOAT32},
        {UCC_COLL_TYPE_ALLREDUCE, "auto", 8, 30, UCC_DT_FLOAT32},
    };
    for (auto &c : cs) {
        Scenario s; s.type = c.t; s.alg = c.alg; s.n = c.n; s.count = c.count; s.dt = c.dt;
        auto t0 = std::chrono::steady_clock::now();
        auto o = ucc::testkit::run_scenario(s);
        double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-60s %.3fs events=%lu %s\n", ucc::testkit::describe(s).substr(0,60).c_str(), dt, (unsigned long)o.run.events, o.failure.substr(0,100).c_str());
    }
}
