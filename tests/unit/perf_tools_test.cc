// The tools' shared modules (tools/perf): sweep geometry, the sweep itself on
// the simulator with every result checked, the result checks catching a wrong
// byte or element, and the reports built from one row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/perf/coll_call.h"
#include "tools/perf/huge_pages.h"
#include "tools/perf/lifecycle.h"
#include "tools/perf/report.h"
#include "tools/perf/sweep.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using namespace ucc::perf;

TEST(PerfSweep, GeometricCounts) {
    EXPECT_EQ(geometric_counts(0, 8, 2), (std::vector<uint64_t>{0, 1, 2, 4, 8}));
    EXPECT_EQ(geometric_counts(1, 1000, 10), (std::vector<uint64_t>{1, 10, 100, 1000}));
    EXPECT_EQ(geometric_counts(3, 2, 2), std::vector<uint64_t>{});
    EXPECT_EQ(geometric_counts(0, 0, 4), std::vector<uint64_t>{0});
    // No wrap-around at the top of the range.
    const std::vector<uint64_t> top = geometric_counts(uint64_t{1} << 62, UINT64_MAX, 4);
    EXPECT_EQ(top, std::vector<uint64_t>{uint64_t{1} << 62});
}

struct SimRun {
    SweepPlan plan;
    std::unique_ptr<Results> results;
    Failures failures;
};

const char *last_algorithm(ucc_coll_req_h) {
    return ucc_sim_last_algorithm();
}

void sweep_rank(void *arg) {
    auto *run = static_cast<SimRun *>(arg);
    RankSetup s;
    ucc_sim_oob(&s.oob);
    s.rank = ucc_sim_rank();
    s.size = ucc_sim_size();
    s.team_from_ep_map = true;
    SweepWorld w;
    w.rank = s.rank;
    w.size = s.size;
    w.now = ucc_sim_now;
    w.algorithm = last_algorithm;
    w.shared = true;
    Lifecycle lc;
    std::string err = lc.setup(s);
    if (err.empty()) {
        err = run_sweep(run->plan, w, lc.team, lc.ctx, run->results.get(), nullptr);
    }
    const std::string down = lc.teardown();
    if (!err.empty() || !down.empty()) {
        run->failures.note(w.rank, err + down);
    }
}

// Every collective, in place or not, both timings, root shift and two buffer
// sets, persistent or not: every rank's result is checked and right.
TEST(PerfSweep, EveryCollectiveOnTheSimulatorIsCheckedAndRight) {
    const uint32_t n = 5;
    for (const CollDesc &c : colls()) {
        for (const int variant : {0, 1, 2}) {
            const bool per_iteration = variant != 1;
            const bool inplace = variant == 2;
            SimRun run;
            run.plan.spec.coll = &c;
            run.plan.spec.dtype = find_dtype(c.reduction ? "int32" : "uint8");
            run.plan.spec.op = find_op("sum");
            run.plan.spec.root = 3;
            run.plan.spec.persistent = per_iteration;
            run.plan.spec.inplace = inplace;
            run.plan.counts = c.shape == Shape::kNone ? std::vector<uint64_t>{0}
                                                      : std::vector<uint64_t>{0, 1, 7, 64};
            run.plan.warmup_small = 1;
            run.plan.iters_small = 3;
            run.plan.n_bufs = 2;
            run.plan.root_shift = c.rooted ? 1 : 0;
            run.plan.per_iteration = per_iteration;
            run.plan.check = true;
            run.results = std::make_unique<Results>(run.plan, n);
            ucc_sim_params_t p{};
            p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
            p.n_ranks = n;
            p.flags = UCC_SIM_FLAG_QUIET;
            const std::string what = std::string(c.name) + (inplace ? " in place" : "");
            ASSERT_EQ(ucc_sim_run(&p, sweep_rank, &run), UCC_OK) << what;
            EXPECT_EQ(run.failures.ranks, 0u) << what << ": " << run.failures.first;
            RunInfo info;
            info.ranks = n;
            const std::vector<Row> rows = rows_of(run.plan, *run.results, info);
            ASSERT_EQ(rows.size(), run.plan.counts.size()) << what;
            for (size_t k = 0; k < rows.size(); ++k) {
                const Row &r = rows[k];
                EXPECT_EQ(r.wrong_ranks, 0u)
                    << what << " " << r.count << ": " << run.results->at(k).first_wrong;
                EXPECT_TRUE(r.checked) << what;
                EXPECT_NE(r.algorithm, "none") << what;
                if (r.count > 0 || c.shape == Shape::kNone) {  // a zero count moves nothing
                    EXPECT_GT(r.avg_us, 0) << what << " " << r.count;
                }
                EXPECT_LE(r.min_us, r.avg_us);
                EXPECT_LE(r.avg_us, r.max_us);
            }
        }
    }
}

// The checks fail on a wrong result (ucc_perftest exits 1 on them).
TEST(PerfCheck, WrongBytesAndElementsAreCaught) {
    for (const char *coll : {"allgather", "allreduce", "alltoall", "reduce_scatter"}) {
        CollSpec s;
        s.coll = find_coll(coll);
        s.dtype = find_dtype("float32");
        s.op = find_op("sum");
        const uint32_t n = 3;
        const uint64_t cnt = 5;
        std::vector<CollCall> calls(n);
        VArrays va;
        va.build(cnt, n);
        for (uint32_t r = 0; r < n; ++r) {
            build_call(s, cnt, n, r, &va, &calls[r]);
            fill_pattern(s, cnt, n, r, &calls[r]);
        }
        // Compute the collective by hand.
        const size_t es = 4, bb = cnt * es;
        for (uint32_t me = 0; me < n; ++me) {
            std::vector<uint8_t> &out = calls[me].dst;
            if (s.coll->type == UCC_COLL_TYPE_ALLGATHER) {
                for (uint32_t r = 0; r < n; ++r) {
                    std::copy_n(calls[r].src.begin(), bb, out.begin() + r * bb);
                }
            } else if (s.coll->type == UCC_COLL_TYPE_ALLTOALL) {
                for (uint32_t r = 0; r < n; ++r) {
                    std::copy_n(calls[r].src.begin() + me * bb, bb, out.begin() + r * bb);
                }
            } else {
                const uint64_t base = s.coll->type == UCC_COLL_TYPE_REDUCE_SCATTER ? me * cnt : 0;
                for (uint64_t i = 0; i < cnt; ++i) {
                    float sum = 0;
                    for (uint32_t r = 0; r < n; ++r) {
                        float v;
                        std::memcpy(&v, calls[r].src.data() + (base + i) * es, es);
                        sum += v;
                    }
                    std::memcpy(out.data() + i * es, &sum, es);
                }
            }
            std::string why;
            EXPECT_TRUE(check_result(s, cnt, n, me, calls[me], &why)) << coll << ": " << why;
            out[3] ^= 0x40;
            EXPECT_FALSE(check_result(s, cnt, n, me, calls[me], &why)) << coll;
            EXPECT_FALSE(why.empty());
        }
    }
}

std::string printed(void (*print)(FILE *, const RunInfo &, const SweepPlan &,
                                  const std::vector<Row> &),
                    const RunInfo &info, const SweepPlan &plan, const std::vector<Row> &rows) {
    char *buf = nullptr;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    print(f, info, plan, rows);
    std::fclose(f);
    std::string s(buf, size);
    std::free(buf);
    return s;
}

// One rank's wrong result shows in every report; bandwidths follow nccl-tests.
TEST(PerfReport, WrongRanksAndBusBandwidth) {
    SweepPlan plan;
    plan.spec.coll = find_coll("allreduce");
    plan.spec.dtype = find_dtype("float32");
    plan.spec.op = find_op("sum");
    plan.counts = {256};
    plan.iters_small = 10;
    plan.check = true;
    const uint32_t n = 4;
    Results results(plan, n);
    for (uint32_t r = 0; r < n; ++r) {
        results.add(0, r, 2e-6 * (r + 1), "ring", r == 2, r == 2 ? "element 3 is 0" : "");
    }
    RunInfo info;
    info.tool = "ucc_sim";
    info.ranks = n;
    info.simulated = true;
    info.seed = 9;
    info.network = "hdr";
    const std::vector<Row> rows = rows_of(plan, results, info);
    ASSERT_EQ(rows.size(), 1u);
    const Row &r = rows[0];
    EXPECT_EQ(r.bytes, 1024u);
    EXPECT_DOUBLE_EQ(r.avg_us, 5.0);
    EXPECT_DOUBLE_EQ(r.min_us, 2.0);
    EXPECT_DOUBLE_EQ(r.max_us, 8.0);
    EXPECT_NEAR(r.algbw_gbps, 1024 / 5e-6 / 1e9, 1e-9);
    EXPECT_NEAR(r.busbw_gbps, r.algbw_gbps * 2 * 3 / 4, 1e-9);  // 2(n-1)/n
    EXPECT_EQ(r.wrong_ranks, 1u);
    EXPECT_EQ(results.at(0).first_wrong, "rank 2: element 3 is 0");

    const std::string json = printed(print_json, info, plan, rows);
    for (const char *key : {"\"collective\":\"allreduce\"", "\"algorithm\":\"ring\"",
                            "\"wrong_ranks\":1", "\"checked\":true", "\"simulated\":true",
                            "\"seed\":9", "\"tool\":\"ucc_sim\"", "\"iterations\":10"}) {
        EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
    }
    const std::string table = printed(print_sim_table, info, plan, rows);
    EXPECT_NE(table.find("ring (WRONG on 1 rank)"), std::string::npos) << table;
    const std::string csv = printed(print_csv, info, plan, rows);
    EXPECT_NE(csv.find("4,allreduce,ring,1024,256,float32,10,5.000000,2.000000,8.000000"),
              std::string::npos)
        << csv;
    auto full = [](FILE *f, const RunInfo &i, const SweepPlan &p, const std::vector<Row> &rs) {
        print_reference_table(f, i, p, rs, true);
    };
    const std::string ref = printed(full, info, plan, rows);
    EXPECT_NE(ref.find("Collective:             Allreduce"), std::string::npos) << ref;
    EXPECT_NE(ref.find("Ranks:                  4 (simulated)"), std::string::npos) << ref;
    EXPECT_NE(ref.find("Bus Bandwidth, GB/s"), std::string::npos) << ref;
}

// The simulator's programs restart once with glibc's huge-page tunables
// only where the kernel gives huge pages on request, keeping the user's own.
TEST(HugePages, TunablesAreAddedOnlyWhereTheyHelp) {
    const std::string madvise = "always [madvise] never";
    EXPECT_EQ(huge_page_tunables(nullptr, madvise, false),
              "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1");
    EXPECT_EQ(huge_page_tunables("glibc.malloc.tcache_count=0", madvise, false),
              "glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1");
    EXPECT_EQ(huge_page_tunables("glibc.malloc.arena_max=4", madvise, false),
              "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1");
    EXPECT_EQ(huge_page_tunables("glibc.malloc.hugetlb=0", madvise, false), "");  // the user's
    EXPECT_EQ(huge_page_tunables(nullptr, madvise, true), "");                    // opted out
    EXPECT_EQ(huge_page_tunables(nullptr, "[always] madvise never", false), "");  // already
    EXPECT_EQ(huge_page_tunables(nullptr, "always madvise [never]", false), "");
    EXPECT_EQ(huge_page_tunables(nullptr, "", false), "");  // no such file
}

}  // namespace
