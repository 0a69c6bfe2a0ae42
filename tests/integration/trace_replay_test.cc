// Record and replay (traces/): a training-loop-like program (allreduce
// buckets, allgather, bcast, alltoallv, a split team) recorded through the C
// API on the simulator and replayed — the same collectives, algorithms and
// virtual times, every result checked against the model; a desynchronised
// program's trace is reported with the ranks and what each ran; a rank whose
// trace was cut short replays up to its last record and the report says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tools/perf/lifecycle.h"
#include "traces/reader.h"
#include "traces/replay.h"
#include "traces/rescale.h"
#include "traces/simgrid.h"
#include "traces/verify.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using namespace ucc::traces;

struct Program {
    std::string dir;
    int steps = 3;
    int desync_rank = -1;  // this rank runs a bcast where the others run an allreduce
    int failures = 0;
};

ucc_status_t make_team(ucc_context_h ctx, ucc_team_h *team) {
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_OOB;
    ucc_sim_oob(&tp.oob);
    tp.ep = ucc_sim_rank();
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_status_t st = ucc_team_create_post(&ctx, 1, &tp, team);
    if (st != UCC_OK) {
        return st;
    }
    while ((st = ucc_team_create_test(*team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    return st;
}

void destroy_team(ucc_team_h team, ucc_context_h ctx) {
    while (ucc_team_destroy(team) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
}

// A step of "training": gradient buckets allreduced (two in flight at once),
// an allgather of parameters, a bcast of a flag from rank 0; every other step
// an alltoallv on the world and an allreduce on the team the even ranks split
// off.
void train_rank(void *arg) {
    auto *prog = static_cast<Program *>(arg);
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    auto fail = [&]() { ++prog->failures; };
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_h lib;
    if (ucc_lib_config_read(nullptr, nullptr, &lcfg) != UCC_OK) {
        return fail();
    }
    ucc_status_t st = ucc_init(&lp, lcfg, &lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        return fail();
    }
    ucc_context_config_h ccfg;
    ucc_context_config_read(lib, nullptr, &ccfg);
    ucc_context_config_modify(ccfg, nullptr, "TRACE", prog->dir.c_str());
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp.oob);
    ucc_context_h ctx;
    st = ucc_context_create(lib, &cp, ccfg, &ctx);
    ucc_context_config_release(ccfg);
    ucc_team_h world;
    if (st != UCC_OK || make_team(ctx, &world) != UCC_OK) {
        return fail();
    }
    // The even ranks split off a team of their own.
    const bool even = rank % 2 == 0;
    ucc_team_h half;
    st = ucc_team_create_from_parent(rank, even ? 1 : 0, world, &half);
    if (st == UCC_OK) {
        while ((st = ucc_team_create_test(half)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
    }
    if (st != UCC_OK) {
        return fail();
    }
    std::vector<float> g1(3000, 1.0f), g2(70000, 2.0f), r1(3000), r2(70000);
    std::vector<double> params(64), all(64 * n);
    for (int step = 0; step < prog->steps; ++step) {
        // Two buckets in flight, then wait for both.
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {g1.data(), g1.size(), UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {r1.data(), r1.size(), UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        ucc_coll_args_t b = a;
        b.src.info = {g2.data(), g2.size(), UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        b.dst.info = {r2.data(), r2.size(), UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        if (step == 1 && static_cast<int>(rank) == prog->desync_rank) {
            b = {};
            b.coll_type = UCC_COLL_TYPE_BCAST;
            b.root = 0;
            b.src.info = {g2.data(), 16, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
            b.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            b.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
            b.timeout = 0.001;
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
            a.timeout = 0.001;
        } else if (step == 1 && prog->desync_rank >= 0) {
            b.mask = a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            b.flags = a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
            b.timeout = a.timeout = 0.001;
        }
        ucc_coll_req_h ra, rb;
        if (ucc_collective_init(&a, &ra, world) != UCC_OK ||
            ucc_collective_init(&b, &rb, world) != UCC_OK) {
            return fail();
        }
        ucc_collective_post(ra);
        ucc_collective_post(rb);
        const ucc_status_t sa = ucc::perf::wait(ra, ctx);
        const ucc_status_t sb = ucc::perf::wait(rb, ctx);
        ucc_collective_finalize(ra);
        ucc_collective_finalize(rb);
        if (prog->desync_rank >= 0 && step == 1) {
            break;  // the desynchronised step ends the program
        }
        if (sa != UCC_OK || sb != UCC_OK) {
            return fail();
        }
        a = {};
        a.coll_type = UCC_COLL_TYPE_ALLGATHER;
        a.src.info = {params.data(), params.size(), UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {all.data(), all.size(), UCC_DT_FLOAT64, UCC_MEMORY_TYPE_HOST};
        if (ucc::perf::run_collective(&a, world, ctx) != UCC_OK) {
            return fail();
        }
        int flag = step;
        a = {};
        a.coll_type = UCC_COLL_TYPE_BCAST;
        a.root = 0;
        a.src.info = {&flag, 1, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        if (ucc::perf::run_collective(&a, world, ctx) != UCC_OK) {
            return fail();
        }
        if (step % 2 == 0) {
            std::vector<uint32_t> sc(n), sd(n), rc(n), rd(n);
            uint32_t s_total = 0, r_total = 0;
            for (uint32_t j = 0; j < n; ++j) {
                sc[j] = (rank + 2 * j) % 5;
                rc[j] = (j + 2 * rank) % 5;
                sd[j] = s_total;
                rd[j] = r_total;
                s_total += sc[j];
                r_total += rc[j];
            }
            std::vector<int16_t> s(s_total + 1), r(r_total + 1);
            a = {};
            a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
            a.src.info_v = {s.data(), reinterpret_cast<ucc_count_t *>(sc.data()),
                            reinterpret_cast<ucc_aint_t *>(sd.data()), UCC_DT_INT16,
                            UCC_MEMORY_TYPE_HOST};
            a.dst.info_v = {r.data(), reinterpret_cast<ucc_count_t *>(rc.data()),
                            reinterpret_cast<ucc_aint_t *>(rd.data()), UCC_DT_INT16,
                            UCC_MEMORY_TYPE_HOST};
            if (ucc::perf::run_collective(&a, world, ctx) != UCC_OK) {
                return fail();
            }
            std::vector<int64_t> v(100, rank), w(100);
            a = {};
            a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
            a.op = UCC_OP_MAX;
            a.src.info = {v.data(), v.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
            a.dst.info = {w.data(), w.size(), UCC_DT_INT64, UCC_MEMORY_TYPE_HOST};
            if (even && ucc::perf::run_collective(&a, half, ctx) != UCC_OK) {
                return fail();
            }
        }
    }
    destroy_team(half, ctx);
    destroy_team(world, ctx);
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
}

// Records the program on `ranks` simulated ranks into `dir`; returns `dir`.
std::string record(const std::string &dir, uint32_t ranks, Program prog) {
    prog.dir = dir;
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_NETWORK;
    p.n_ranks = ranks;
    p.network = "hdr";
    p.flags = UCC_SIM_FLAG_QUIET;
    EXPECT_EQ(ucc_sim_run(&p, train_rank, &prog), UCC_OK);
    if (prog.desync_rank < 0) {
        EXPECT_EQ(prog.failures, 0);
    }
    return prog.dir;
}

TEST(TraceReplay, ARecordedRunReplaysWithTheSameCollectivesTimesAndResults) {
    ucc::testkit::TempDir tmp("replay_roundtrip");
    const std::string dir = record(tmp.path(), 6, Program{});
    Trace trace;
    std::string err;
    ASSERT_TRUE(read_dir(dir, &trace, &err)) << err;
    ReplayOptions o;  // hdr, seed 1: as recorded
    ReplayResult res;
    ASSERT_TRUE(replay(trace, o, &res, &err)) << err;
    for (const std::string &p : res.problems) {
        ADD_FAILURE() << p;
    }
    EXPECT_EQ(res.sim_status, UCC_OK);
    // 3 steps x (2 buckets + allgather + bcast) + 2 alltoallv: 14 per rank, and
    // 2 allreduce on the split at the 3 even ranks.
    ASSERT_EQ(res.colls.size(), 6u * 14u + 3u * 2u);
    std::map<std::string, int> algs;
    for (const CollResult &c : res.colls) {
        EXPECT_EQ(c.status, UCC_OK);
        EXPECT_EQ(c.alg_replayed, c.alg_recorded) << "rank " << c.rank << " line " << c.line;
        ASSERT_GE(c.recorded_us, 0);
        // The same calls on the same network and seed: the same virtual times.
        EXPECT_NEAR(c.predicted_us, c.recorded_us, 1e-3) << "rank " << c.rank << " line " << c.line;
        ++algs[c.alg_replayed];
    }
    EXPECT_GE(algs.size(), 3u);
    EXPECT_EQ(res.verified, 14u + 2u);  // instances: the world's 14 and the split's 2
    // On another network the same trace predicts other times.
    o.network = "eth100";
    o.timing_only = true;
    ReplayResult slow;
    ASSERT_TRUE(replay(trace, o, &slow, &err)) << err;
    EXPECT_TRUE(slow.ok());
    EXPECT_GT(slow.simulated_s, res.simulated_s);
}

// At 8x the ranks (traces/rescale.h): every rank's program played by 8 ranks,
// the split and the alltoallv's counts grown by the rule, every result right.
TEST(TraceReplay, ATraceReplaysAtEightTimesItsRanks) {
    ucc::testkit::TempDir tmp("replay_x8");
    const std::string dir = record(tmp.path(), 4, Program{});
    Trace trace;
    std::string err;
    ASSERT_TRUE(read_dir(dir, &trace, &err)) << err;
    std::vector<std::string> notes;
    const Trace big = rescale(trace, 32, &notes);
    EXPECT_TRUE(notes.empty());
    ASSERT_EQ(big.size, 32u);
    // Rank 9 plays recorded rank 1; its world has 32 members and it is member 9.
    const RankTrace &r9 = big.ranks[9];
    EXPECT_EQ(r9.header.rank, 9u);
    const auto &world = std::get<TeamRec>(r9.records[1]);
    EXPECT_EQ(world.size, 32u);
    EXPECT_EQ(world.rank, 9u);
    // Rank 17 plays recorded rank 2 (even): it is in the split of 16.
    const auto &split = std::get<TeamRec>(big.ranks[17].records[3]);
    EXPECT_EQ(split.size, 16u);
    EXPECT_EQ(split.rank, 9u);  // after the 8 ranks playing 0
    ReplayOptions o;
    ReplayResult res;
    ASSERT_TRUE(replay(big, o, &res, &err)) << err;
    for (const std::string &p : res.problems) {
        ADD_FAILURE() << p;
    }
    EXPECT_EQ(res.colls.size(), 32u * 14u + 16u * 2u);
    EXPECT_EQ(res.verified, 14u + 2u);
    for (const CollResult &c : res.colls) {
        EXPECT_EQ(c.status, UCC_OK);
        EXPECT_GT(c.predicted_us, 0);
    }
}

TEST(TraceReplay, ADesynchronisedTraceIsReportedWithTheRanksAndWhatEachRan) {
    Program prog;
    prog.desync_rank = 2;
    ucc::testkit::TempDir tmp("replay_desync");
    const std::string dir = record(tmp.path(), 4, prog);
    Trace trace;
    std::string err;
    ASSERT_TRUE(read_dir(dir, &trace, &err)) << err;
    std::vector<std::string> problems;
    find_desync(trace, &problems);
    ASSERT_FALSE(problems.empty());
    const std::string &p = problems[0];
    EXPECT_NE(p.find("desync: team of ranks 0,1,2,3, sequence"), std::string::npos) << p;
    EXPECT_NE(p.find("ranks 0,1,3 ran allreduce of 70000 float32 sum"), std::string::npos) << p;
    EXPECT_NE(p.find("rank 2 ran bcast of 16 float32 root 0 (" + dir + "/rank2.jsonl:"),
              std::string::npos)
        << p;
}

TEST(TraceReplay, ACutShortTraceReplaysUpToItsLastRecordAndSaysSo) {
    ucc::testkit::TempDir tmp("replay_killed");
    const std::string dir = record(tmp.path(), 4, Program{});
    // Rank 1 "killed" in the middle of its second step: its file ends inside a line.
    const std::string path = dir + "/rank1.jsonl";
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    in.close();
    const std::string text = ss.str();
    size_t cut = 0;
    for (int k = 0; k < 12; ++k) {
        cut = text.find('\n', cut) + 1;
    }
    std::ofstream(path, std::ios::trunc) << text.substr(0, cut + 20) << std::string(64, '\0');
    Trace trace;
    std::string err;
    ASSERT_TRUE(read_dir(dir, &trace, &err)) << err;
    EXPECT_TRUE(trace.ranks[1].truncated);
    ReplayResult res;
    ASSERT_TRUE(replay(trace, ReplayOptions{}, &res, &err)) << err;
    EXPECT_FALSE(res.ok());
    EXPECT_EQ(res.sim_status, UCC_ERR_NO_MESSAGE);
    std::string all;
    for (const std::string &p : res.problems) {
        all += p + "\n";
    }
    EXPECT_NE(all.find("missing: team of ranks 0,1,2,3"), std::string::npos) << all;
    EXPECT_NE(all.find("rank 1 never did (" + path + " ends at line 12, cut short"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("deadlock:"), std::string::npos) << all;
    EXPECT_NE(all.find("rank 1: " + path + " ends at line 12 (cut short)"), std::string::npos)
        << all;
    EXPECT_NE(all.find("rank 0: " + dir + "/rank0.jsonl:"), std::string::npos) << all;
}

// SimGrid's time-independent traces (traces/simgrid.h): every collective
// action of 4 ranks imported and replayed, results checked; point-to-point and
// compute skipped with a note; one file for all ranks and an index work too.
std::string ti_actions(uint32_t r) {
    const uint32_t next = (r + 1) % 4;
    const uint32_t prev = (r + 3) % 4;
    const std::string R = std::to_string(r);
    std::string s;
    for (const std::string &a :
         {std::string("init"), std::string("compute 1e6"), std::string("allreduce 1000 1000 5"),
          std::string("bcast 64 2 1"), "send " + std::to_string(next) + " 0 100",
          "recv " + std::to_string(prev) + " 0 100", std::string("barrier"),
          std::string("alltoall 10 10"), std::string("gather 8 8 1 0 0"),
          "allgatherv " + std::to_string(r + 4) + " 4 5 6 7 0",
          "alltoallv 100 1 2 3 4 100 " + std::to_string(r + 1) + " " + std::to_string(r + 1) + " " +
              std::to_string(r + 1) + " " + std::to_string(r + 1),
          std::string("reducescatter 5 6 7 8 1000 1"), std::string("scatterv 3 3 3 3 3 0 0 0"),
          std::string("reduce 16 16 3 0"), std::string("finalize")}) {
        s += R + " " + a + "\n";
    }
    return s;
}

TEST(TraceReplay, ASimGridTraceIsImportedAndReplayed) {
    ucc::testkit::TempDir tmp("replay_simgrid");
    const std::string &dir = tmp.path();
    for (uint32_t r = 0; r < 4; ++r) {
        std::ofstream(dir + "/rank" + std::to_string(r) + ".txt") << ti_actions(r);
    }
    ASSERT_TRUE(looks_like_simgrid(dir));
    Trace t;
    std::vector<std::string> notes;
    std::string err;
    ASSERT_TRUE(import_simgrid(dir, &t, &notes, &err)) << err;
    ASSERT_EQ(t.size, 4u);
    EXPECT_EQ(notes.size(), 3u);  // compute, recv, send
    ReplayResult res;
    ASSERT_TRUE(replay(t, ReplayOptions{}, &res, &err)) << err;
    for (const std::string &p : res.problems) {
        ADD_FAILURE() << p;
    }
    EXPECT_EQ(res.colls.size(), 4u * 10u);
    EXPECT_EQ(res.verified, 10u);
    // The bcast's root and datatype (SMPI id 1: MPI_INT) came through.
    const auto &bcast = std::get<InitRec>(t.ranks[0].records[2 + 4]);
    EXPECT_EQ(bcast.coll, UCC_COLL_TYPE_BCAST);
    EXPECT_EQ(bcast.root, 2u);
    EXPECT_EQ(bcast.src.dt.predefined, UCC_DT_INT32);
    // Every rank's actions in one file, and an index of per-rank files.
    {
        std::ofstream all(dir + "/all.ti");
        for (uint32_t r = 0; r < 4; ++r) {
            all << ti_actions(r);
        }
        std::ofstream index(dir + "/index");
        for (uint32_t r = 0; r < 4; ++r) {
            index << "rank" << r << ".txt\n";
        }
    }
    for (const char *input : {"/all.ti", "/index"}) {
        Trace u;
        notes.clear();
        ASSERT_TRUE(import_simgrid(dir + input, &u, &notes, &err)) << input << ": " << err;
        EXPECT_EQ(u.size, 4u);
        EXPECT_EQ(u.ranks[3].records.size(), t.ranks[3].records.size()) << input;
    }
}

TEST(TraceReplay, MalformedSimGridTracesNameTheirFileAndLine) {
    ucc::testkit::TempDir tmp("replay_simgrid_bad");
    const std::string &dir = tmp.path();
    struct Case {
        std::string text;
        const char *why;
    };
    const std::vector<Case> cases = {
        {"0 init\n0 allreduce ten 10\n", "rank0.txt:2: allreduce: \"ten\" is not a count"},
        {"0 init\n0 bcast 10 0 77\n", "rank0.txt:2: bcast: unknown SMPI datatype id 77"},
        {"0 init\n0 bcast 10 5\n", "rank0.txt:2: bcast: root 5 is not below the 1 ranks"},
        {"0 init\n0 allgatherv 4 4\n0 alltoallv 10 1\n", "rank0.txt:3: alltoallv: missing"},
        {"0 init\nallreduce 1 1\n", "rank0.txt:2: not \"<rank> <action> [args]\""},
        {"0 init\n2 barrier\n", "ranks 1 have no actions"},
    };
    for (const Case &c : cases) {
        std::ofstream(dir + "/rank0.txt", std::ios::trunc) << c.text;
        Trace t;
        std::vector<std::string> notes;
        std::string err;
        EXPECT_FALSE(import_simgrid(dir, &t, &notes, &err)) << c.text;
        EXPECT_NE(err.find(c.why), std::string::npos) << err;
    }
}

// The verifier says so when a rank's result is not the model's.
TEST(TraceReplay, TheVerifierCatchesAWrongResult) {
    Verifier v;
    InitRec rec;
    rec.coll = UCC_COLL_TYPE_ALLREDUCE;
    rec.src.used = rec.dst.used = true;
    rec.src.count = rec.dst.count = 2;
    rec.src.dt.predefined = rec.dst.dt.predefined = UCC_DT_INT32;
    InstanceKey k{{0, 1}, 0, 7};
    std::vector<int32_t> in[2] = {{1, 2}, {10, 20}};
    for (uint32_t r = 0; r < 2; ++r) {
        ucc_coll_args_t a{};
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        a.op = UCC_OP_SUM;
        a.src.info = {in[r].data(), 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {nullptr, 2, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
        std::vector<uint8_t> src(8), dst(8, 0);
        std::memcpy(src.data(), in[r].data(), 8);
        v.posted(k, r, a, rec, src, dst, "rank" + std::to_string(r) + ".jsonl:5");
    }
    const int32_t good[2] = {11, 22};
    const int32_t bad[2] = {11, 23};
    std::vector<uint8_t> src0(8), src1(8), d0(8), d1(8);
    std::memcpy(src0.data(), in[0].data(), 8);
    std::memcpy(src1.data(), in[1].data(), 8);
    std::memcpy(d0.data(), good, 8);
    std::memcpy(d1.data(), bad, 8);
    v.completed(k, 0, src0, d0);
    v.completed(k, 1, src1, d1);
    ASSERT_EQ(v.problems.size(), 1u);
    EXPECT_NE(v.problems[0].find("rank1.jsonl:5: rank 1 of the team: allreduce dst differs from "
                                 "the model at byte 4"),
              std::string::npos)
        << v.problems[0];
    EXPECT_EQ(v.verified, 1u);
}

}  // namespace
