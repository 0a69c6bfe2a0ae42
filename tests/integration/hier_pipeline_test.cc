// Pipelined hierarchical levels (cl/hier's <ALG>_PIPELINE): allreduce rab and
// split_rail, bcast 2step and reduce 2step cut into fragments give the model's bytes on
// even and uneven nodes, every root, in place, AVG and re-posts, with the
// trace's properties; the fragments change the messages, and a large
// vector's levels overlap.
#include <gtest/gtest.h>

#include <string>

#include "lib/coll/patterns/pipeline.h"
#include "model/trace.h"
#include "tests/common/scenario.h"
#include "tests/common/scoped_env.h"

using ucc::testkit::Scenario;
using ucc::testkit::ScopedEnv;

namespace {

struct Piped {
    ucc_coll_type_t type;
    const char *alg;
    const char *var;
};

const Piped kPiped[] = {
    {UCC_COLL_TYPE_ALLREDUCE, "rab", "UCC_CL_HIER_ALLREDUCE_RAB_PIPELINE"},
    {UCC_COLL_TYPE_ALLREDUCE, "split_rail", "UCC_CL_HIER_ALLREDUCE_SPLIT_RAIL_PIPELINE"},
    {UCC_COLL_TYPE_BCAST, "2step", "UCC_CL_HIER_BCAST_2STEP_PIPELINE"},
    {UCC_COLL_TYPE_REDUCE, "2step", "UCC_CL_HIER_REDUCE_2STEP_PIPELINE"},
};

Scenario piped(const Piped &p, uint32_t n, uint32_t ppn, uint64_t count) {
    Scenario s;
    s.type = p.type;
    s.alg = p.alg;
    s.cls = "basic,hier";
    s.n = n;
    s.count = count;
    s.network = "hdr,ppn=" + std::to_string(ppn);
    s.seed = n * 17 + count;
    return s;
}

ucc::testkit::Outcome run_ok(const Scenario &s) {
    ucc::testkit::Outcome o = ucc::testkit::run_scenario(s);
    EXPECT_EQ(o.failure, "") << ucc::testkit::describe(s);
    return o;
}

}  // namespace

// Fragments as the reference counts them: none up to the threshold, then
// max(ceil(bytes / fragsize), nfrags), at most one per element; the depth
// at most the fragments.
TEST(HierPipeline, FragmentsAsTheReferenceCountsThem) {
    ucc::coll::PipelineSetting s;  // "n"
    uint32_t depth = 0;
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 1 << 20, 4, &depth), 1u);
    EXPECT_EQ(depth, 1u);
    s.threshold = 1024;
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 256, 4, &depth), 1u);  // 1 KiB: not above
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 257, 4, &depth), 2u);  // nfrags=2
    EXPECT_EQ(depth, 2u);
    s.frag_bytes = 1000;
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 2500, 4, &depth), 10u);
    s.depth = 0;
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 2500, 4, &depth), 10u);
    EXPECT_EQ(depth, 1u);
    s.frags = 1000;
    s.depth = 64;
    EXPECT_EQ(ucc::coll::pipeline_fragments(s, 300, 4, &depth), 300u);  // whole elements
    EXPECT_EQ(depth, 64u);
    ucc::coll::Args a;
    a.esize = 4;
    a.count = 10;
    a.src = reinterpret_cast<void *>(uintptr_t{4096});
    a.dst = nullptr;
    const ucc::coll::Args f = ucc::coll::fragment(a, 10, 3, 1);  // 4, 3, 3
    EXPECT_EQ(f.count, 3u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(f.src), 4096u + 16);
    EXPECT_EQ(f.dst, nullptr);
}

// Every algorithm, even and uneven nodes, fragments of one element to a few
// hundred, depth 1 to more than the fragments, in place, AVG, roots, posts.
TEST(HierPipeline, EveryShapeMatchesModelAndTrace) {
    for (const Piped &p : kPiped) {
        for (const char *setting : {"thresh=0:fragsize=256:pdepth=3", "thresh=0:nfrags=5:pdepth=1",
                                    "sequential:thresh=16:fragsize=1k:pdepth=9"}) {
            ScopedEnv v(p.var, setting);
            for (uint32_t ppn : {3u, 4u}) {
                for (uint32_t n : {7u, 12u}) {
                    for (uint64_t count : {0ull, 1ull, 13ull, 700ull}) {
                        for (bool inplace : {false, true}) {
                            if (inplace && p.type == UCC_COLL_TYPE_BCAST) {
                                continue;
                            }
                            Scenario s = piped(p, n, ppn, count);
                            s.inplace = inplace;
                            s.root = count % 3 == 0 ? 0 : count == 1 ? ppn - 1 : n - 1;
                            s.dt = count == 13 ? UCC_DT_FLOAT64 : UCC_DT_INT32;
                            s.op = count == 13 && p.type != UCC_COLL_TYPE_BCAST ? UCC_OP_AVG
                                                                                : UCC_OP_SUM;
                            s.posts = inplace ? 1 : 2;
                            s.poison_inplace_src = inplace;
                            s.skew_ps = n == 7 ? 2'000'000 : 0;
                            s.record_events = true;
                            const ucc::testkit::Outcome o = run_ok(s);
                            const ucc::model::Findings f = ucc::model::check_all(o.run.trace);
                            EXPECT_TRUE(f.empty())
                                << ucc::testkit::describe(s) << " " << setting << "\n"
                                << ucc::model::format(f);
                        }
                    }
                }
            }
        }
    }
}

// The setting changes the messages (and so the run), "n" and "auto" do not;
// a bad value is refused at context creation.
TEST(HierPipeline, TheVariablesCutOrNot) {
    for (const Piped &p : kPiped) {
        const Scenario s = piped(p, 12, 4, 4096);
        const uint64_t whole = run_ok(s).run.trace_hash;
        for (const char *same : {"n", "auto", "nfrags=8:pdepth=4", "thresh=1m:fragsize=1k"}) {
            ScopedEnv v(p.var, same);
            EXPECT_EQ(run_ok(s).run.trace_hash, whole) << p.alg << " " << same;
        }
        ScopedEnv v(p.var, "thresh=0:fragsize=4k:ordered:pdepth=2:unknown=1");
        EXPECT_NE(run_ok(s).run.trace_hash, whole) << p.alg;
    }
    ScopedEnv bad("UCC_CL_HIER_ALLREDUCE_RAB_PIPELINE", "thresh=0:fragsize");
    Scenario s = piped(kPiped[0], 12, 4, 64);
    EXPECT_NE(ucc::testkit::run_scenario(s).failure, "");
}

// A 1 MiB bcast over 4 nodes of 8 in 4 fragments: the leaders send one
// across while their nodes copy the one before, and the whole takes less
// time. (Where both levels reduce on the leader's CPU, allreduce rab and
// reduce 2step, the fragments gain little or lose: docs/algorithms.md.)
// Without segments (UCC_BCAST_SEGMENT=0) the levels take a bcast that is no
// pipeline by itself (sag_knomial); with them, dbt makes each level one,
// and a 1 MiB dbt per level (102 us) beats four fragments of 256 KiB (106).
TEST(HierPipeline, LargeVectorsOverlapTheirLevels) {
    ScopedEnv levels("UCC_BCAST_SEGMENT", "0");
    Scenario s = piped(kPiped[2], 32, 8, 256 * 1024);
    const double whole = run_ok(s).run.virtual_time_s;
    ScopedEnv v(kPiped[2].var, "thresh=64k:fragsize=256k:pdepth=2");
    const double piped4 = run_ok(s).run.virtual_time_s;
    EXPECT_LT(piped4, whole);
    std::printf("bcast 2step 1 MiB on 4 x 8: whole %.1f us, 4 fragments %.1f us\n", whole * 1e6,
                piped4 * 1e6);
}
