// The trace format (traces/FORMAT.md): the JSON reader, every record through
// the writer and back, run-length encoded arrays, what a killed writer leaves,
// malformed input rejected with file:line, and a simulated run recorded through
// the C API (UCC_TRACE's context variable) and read back.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tests/common/temp_dir.h"
#include "tools/perf/lifecycle.h"
#include "traces/emit.h"
#include "traces/json.h"
#include "traces/names.h"
#include "traces/reader.h"
#include "traces/recorder.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using namespace ucc::traces;

TEST(TraceJson, NumbersStringsAndNesting) {
    json::Value v;
    std::string err;
    ASSERT_TRUE(json::parse(
        R"( {"a":18446744073709551615,"b":-9223372036854775808,"c":1.5e3,"d":"x\"\\\u00e9\ud83d\ude00","e":[true,false,null,[]],"f":{}} )",
        &v, &err))
        << err;
    EXPECT_EQ(v.get("a")->u, UINT64_MAX);
    EXPECT_TRUE(v.get("a")->integer);
    EXPECT_EQ(v.get("b")->i, INT64_MIN);
    EXPECT_TRUE(v.get("b")->negative);
    EXPECT_FALSE(v.get("c")->integer);
    EXPECT_DOUBLE_EQ(v.get("c")->d, 1500.0);
    EXPECT_EQ(v.get("d")->str, "x\"\\\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_EQ(v.get("e")->items.size(), 4u);
    EXPECT_EQ(v.get("zz"), nullptr);
    // Beyond 64 bits: a double, not an integer.
    ASSERT_TRUE(json::parse("18446744073709551616", &v, &err));
    EXPECT_FALSE(v.integer);
}

TEST(TraceJson, MalformedTextIsRefusedWithItsColumn) {
    const char *bad[] = {"",         "{",     "[1,]",       "{\"a\" 1}",   "01",   "1.",
                         "-",        "1e",    "\"\\x\"",    "\"\\ud800\"", "tru",  "{} {}",
                         "\"a\nb\"", "[1 2]", "{\"a\":1,}", "nan",         "1e999"};
    for (const char *t : bad) {
        json::Value v;
        std::string err;
        EXPECT_FALSE(json::parse(t, &v, &err)) << t;
        EXPECT_EQ(err.rfind("column ", 0), 0u) << t << ": " << err;
    }
    std::string deep(40, '[');
    deep += std::string(40, ']');
    json::Value v;
    std::string err;
    EXPECT_FALSE(json::parse(deep, &v, &err));
    EXPECT_NE(err.find("nested deeper"), std::string::npos) << err;
}

Header sample_header() {
    Header h;
    h.library = "1.3.0";
    h.revision = "abc";
    h.rank = 3;
    h.size = 8;
    h.host = "node \"7\"";
    h.pid = 4242;
    h.transport = "ucx";
    h.clock = "monotonic";
    h.clock_resolution_ns = 1;
    h.config = {{"ALLREDUCE_ALG", "ring"}, {"KNOMIAL_RADIX", "4"}};
    h.tune = {"UCC_TL_UCP_TUNE=allreduce:0-4k:@0"};
    return h;
}

std::vector<Record> sample_records() {
    std::vector<Record> rs;
    TeamCreateRec tc;
    tc.t = 10;
    tc.team = 1;
    tc.how = "oob";
    tc.ep = 3;
    tc.has_id = true;
    tc.id = 77;
    rs.push_back(tc);
    TeamRec t;
    t.t = 20;
    t.team = 1;
    t.rank = 3;
    t.size = 8;
    t.has_members = true;
    for (int i = 0; i < 8; ++i) {
        t.members.push_back(i);
    }
    rs.push_back(t);
    TeamCreateRec split;
    split.t = 25;
    split.team = 2;
    split.how = "split";
    split.parent = 1;
    split.included = false;
    split.ep = 3;
    split.ordering = UCC_COLLECTIVE_POST_UNORDERED;
    split.sync = true;
    rs.push_back(split);
    InitRec i;
    i.t = 30;
    i.req = 1;
    i.team = 1;
    i.has_coll = true;
    i.coll = UCC_COLL_TYPE_ALLTOALLV;
    i.alg = "pairwise";
    i.has_flags = true;
    i.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_TIMEOUT;
    i.src.used = i.src.v = i.src.has_displs = true;
    i.src.counts = {5, 5, 5, 5, 0, 7, 7, 1};
    i.src.displs = {0, 5, 10, 15, 20, 20, 27, 34};
    i.src.dt.predefined = UCC_DT_FLOAT64;
    i.dst.used = i.dst.v = i.dst.has_displs = true;
    i.dst.counts = {1, 2, 3, 4, 5, 6, 7, 8};
    i.dst.displs = {-8, -4, 0, 4, 100, 100, 100, 100};
    i.dst.dt.generic = true;
    i.dst.dt.size = 12;
    i.dst.dt.contig = false;
    i.dst.dt.reduce = true;
    i.dst.mem = UCC_MEMORY_TYPE_CUDA;
    i.has_tag = true;
    i.tag = 9;
    i.has_active_set = true;
    i.as_start = 1;
    i.as_stride = -2;
    i.as_size = 4;
    i.timeout = 2.5;
    i.cb = true;
    rs.push_back(i);
    InitRec r;
    r.t = 31;
    r.req = 2;
    r.team = 1;
    r.has_coll = true;
    r.coll = UCC_COLL_TYPE_REDUCE;
    r.alg = "knomial";
    r.src.used = true;
    r.src.count = 1ull << 40;
    r.src.dt.predefined = UCC_DT_BFLOAT16;
    r.has_op = true;
    r.op = UCC_OP_AVG;
    r.has_root = true;
    r.root = 7;
    rs.push_back(r);
    InitRec failed;
    failed.t = 32;
    failed.team = 1;
    failed.status = UCC_ERR_INVALID_PARAM;
    failed.has_coll = true;
    failed.coll = UCC_COLL_TYPE_BCAST;
    rs.push_back(failed);
    rs.push_back(PostRec{40, 0, 1, UCC_OK, 65535});
    rs.push_back(DoneRec{50, 0, 1, UCC_ERR_TIMED_OUT});
    rs.push_back(FinRec{60, 0, 1});
    rs.push_back(TeamDestroyRec{70, 0, 1});
    rs.push_back(EndRec{80, 0});
    return rs;
}

std::string sample_text() {
    std::string text;
    emit(sample_header(), &text);
    for (const Record &r : sample_records()) {
        emit(r, &text);
    }
    return text;
}

TEST(TraceFormat, EveryRecordSurvivesTheRoundTrip) {
    RankTrace t;
    std::string err;
    ASSERT_TRUE(read_text(sample_text(), "sample", &t, &err)) << err;
    EXPECT_EQ(t.header, sample_header());
    const std::vector<Record> want = sample_records();
    ASSERT_EQ(t.records.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
        EXPECT_TRUE(t.records[k] == want[k]) << "record " << k << " (line " << t.line_of[k] << ")";
    }
    EXPECT_TRUE(t.ended);
    EXPECT_FALSE(t.truncated);
}

TEST(TraceFormat, ArraysAreRunLengthEncoded) {
    TeamRec t;
    t.team = 1;
    t.size = 1024;
    t.has_members = true;
    for (int i = 0; i < 1024; ++i) {
        t.members.push_back(i);
    }
    std::string line;
    emit(Record(t), &line);
    EXPECT_NE(line.find("\"members\":[{\"v\":0,\"d\":1,\"n\":1024}]"), std::string::npos) << line;
    InitRec i;
    i.req = 1;
    i.team = 1;
    i.has_coll = true;
    i.coll = UCC_COLL_TYPE_ALLGATHERV;
    i.dst.used = i.dst.v = i.dst.has_displs = true;
    i.dst.counts.assign(64, 4096);
    i.dst.counts.push_back(7);
    i.dst.displs = {5, 9};
    line.clear();
    emit(Record(i), &line);
    EXPECT_NE(line.find("\"counts\":[{\"v\":4096,\"n\":64},7]"), std::string::npos) << line;
    EXPECT_NE(line.find("\"displs\":[5,9]"), std::string::npos) << line;
}

TEST(TraceFormat, AKilledWritersTailIsIgnored) {
    std::string text = sample_text();
    // Cut inside the last line and pad with NULs, as a killed writer leaves it.
    const size_t last = text.rfind('\n', text.size() - 2);
    std::string cut = text.substr(0, last + 8) + std::string(4096, '\0');
    RankTrace t;
    std::string err;
    ASSERT_TRUE(read_text(cut, "cut", &t, &err)) << err;
    EXPECT_TRUE(t.truncated);
    EXPECT_FALSE(t.ended);
    EXPECT_EQ(t.records.size(), sample_records().size() - 1);
    // Padding alone after complete lines: nothing lost, nothing truncated.
    ASSERT_TRUE(read_text(text + std::string(100, '\0'), "padded", &t, &err)) << err;
    EXPECT_FALSE(t.truncated);
    EXPECT_TRUE(t.ended);
}

TEST(TraceFormat, MalformedTracesNameTheirFileAndLine) {
    const std::string h = sample_text().substr(0, sample_text().find('\n') + 1);
    struct Case {
        std::string text;
        const char *where;
        const char *why;
    };
    const std::vector<Case> cases = {
        {"", "x", "no header"},
        {"{\"ev\":\"team\"}\n", "x:1:", "first line must be the header"},
        {h + "not json\n", "x:2:", "not JSON"},
        {h + "[1]\n", "x:2:", "JSON object"},
        {h + "{\"t\":1}\n", "x:2:", "\"ev\""},
        {h + "{\"ev\":\"fin\",\"t\":1,\"req\":3}\n", "x:2:", "no init before"},
        {h + "{\"ev\":\"bogus\",\"t\":1}\n", "x:2:", "unknown record"},
        {h + "{\"ev\":\"team_create\",\"t\":1,\"team\":1,\"status\":\"UCC_OK\",\"how\":\"oob\"}\n",
         "x:2:", "missing field \"ep\""},
        {h + "{\"ev\":\"team_create\",\"t\":1,\"team\":1,\"status\":\"UCC_OK\",\"how\":\"oob\","
             "\"ep\":0}\n{\"ev\":\"team\",\"t\":2,\"team\":1,\"status\":\"UCC_OK\",\"rank\":0,"
             "\"size\":4,\"members\":[{\"v\":0,\"n\":99999999999}]}\n",
         "x:3:", "members"},
        {h + "{\"ev\":\"team_create\",\"t\":1,\"team\":1,\"status\":\"UCC_OK\",\"how\":\"oob\","
             "\"ep\":0}\n{\"ev\":\"init\",\"t\":2,\"req\":1,\"team\":1,\"status\":\"UCC_OK\","
             "\"coll\":\"allreduce\",\"src\":{\"count\":-1,\"dt\":\"float32\",\"mem\":\"host\"}}\n",
         "x:3:", "count"},
        {h + "{\"ev\":\"team_create\",\"t\":1,\"team\":1,\"status\":\"UCC_OK\",\"how\":\"oob\","
             "\"ep\":0}\n{\"ev\":\"init\",\"t\":2,\"req\":1,\"team\":1,\"status\":\"UCC_OK\","
             "\"coll\":\"allreduce\",\"src\":{\"count\":4,\"dt\":\"float33\",\"mem\":\"host\"}}\n",
         "x:3:", "float33"},
        {h + "{\"ev\":\"end\",\"t\":1}\n{\"ev\":\"end\",\"t\":2}\n", "x:3:", "after \"end\""},
        {"{\"ev\":\"header\",\"t\":0,\"format\":\"ucc-trace\",\"version\":2,\"rank\":0,"
         "\"size\":1,\"clock\":\"virtual\"}\n",
         "x:1:", "version 2"},
        {"{\"ev\":\"header\",\"t\":0,\"format\":\"ucc-trace\",\"version\":1,\"rank\":5,"
         "\"size\":4,\"clock\":\"virtual\"}\n",
         "x:1:", "not below size"},
        {"{\"ev\":\"header\",\"t\":0,\"format\":\"ucc-trace\",\"version\":1,\"rank\":0,"
         "\"size\":99999999999,\"clock\":\"virtual\"}\n",
         "x:1:", "size"},
    };
    for (const Case &c : cases) {
        RankTrace t;
        std::string err;
        EXPECT_FALSE(read_text(c.text, "x", &t, &err)) << c.text;
        EXPECT_EQ(err.rfind(c.where, 0), 0u) << err;
        EXPECT_NE(err.find(c.why), std::string::npos) << err;
    }
}

// A writer killed between records leaves every record it finished.
TEST(TraceRecorder, AKilledProcessLeavesItsFinishedRecords) {
    ucc::testkit::TempDir tmp("trace_killed");
    const std::string &dir = tmp.path();
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::string error;
        std::unique_ptr<Recorder> r = Recorder::open(dir, sample_header(), &error);
        if (!r) {
            _exit(3);
        }
        const std::vector<Record> rs = sample_records();
        for (size_t k = 0; k + 1 < rs.size(); ++k) {  // no `end`
            r->write(rs[k]);
        }
        raise(SIGKILL);
        _exit(4);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    RankTrace t;
    std::string err;
    ASSERT_TRUE(read_file(dir + "/rank3.jsonl", &t, &err)) << err;
    EXPECT_FALSE(t.ended);
    EXPECT_EQ(t.records.size(), sample_records().size() - 1);
    struct stat st {};
    ASSERT_EQ(stat((dir + "/rank3.jsonl").c_str(), &st), 0);
    EXPECT_GT(static_cast<size_t>(st.st_size), sample_text().size());  // untrimmed: NUL padding
    // A second recorder of the same rank gets the next name.
    std::unique_ptr<Recorder> r2 = Recorder::open(dir, sample_header(), &err);
    ASSERT_TRUE(r2) << err;
    EXPECT_EQ(r2->path(), dir + "/rank3.1.jsonl");
    r2->end(1);
}

// An unnamed recorder (a context without an OOB) keeps its records until it
// is named, then writes them after a header with the rank and size it was
// given; one never named takes its header's rank when it closes.
TEST(TraceRecorder, AnUnnamedRecorderWritesItsRecordsOnceNamed) {
    ucc::testkit::TempDir tmp("trace_unnamed");
    const std::string &dir = tmp.path();
    Header h = sample_header();
    h.rank = 0;
    h.size = 1;
    std::unique_ptr<Recorder> r = Recorder::open_unnamed(dir, h);
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->named());
    const std::vector<Record> rs = sample_records();
    r->write(rs[0]);
    EXPECT_NE(access((dir + "/rank0.jsonl").c_str(), F_OK), 0);  // no file yet
    std::string err;
    ASSERT_TRUE(r->name(5, 8, &err)) << err;
    EXPECT_TRUE(r->named());
    EXPECT_EQ(r->path(), dir + "/rank5.jsonl");
    for (size_t k = 1; k + 1 < rs.size(); ++k) {
        r->write(rs[k]);
    }
    r->end(1);
    RankTrace t;
    ASSERT_TRUE(read_file(dir + "/rank5.jsonl", &t, &err)) << err;
    EXPECT_EQ(t.header.rank, 5u);
    EXPECT_EQ(t.header.size, 8u);
    EXPECT_TRUE(t.ended);
    ASSERT_EQ(t.records.size(), rs.size());
    EXPECT_EQ(t.records[0], rs[0]);
    std::unique_ptr<Recorder> never = Recorder::open_unnamed(dir, h);
    never->write(rs[0]);
    never->end(2);
    ASSERT_TRUE(read_file(dir + "/rank0.jsonl", &t, &err)) << err;
    EXPECT_EQ(t.header.rank, 0u);
    EXPECT_EQ(t.header.size, 1u);
    EXPECT_EQ(t.records.size(), 2u);
}

// ---- recording through the C API on the simulator

struct Program {
    std::string dir;
    int failures = 0;
};

#define CHECK_OK(x)           \
    do {                      \
        if ((x) != UCC_OK) {  \
            ++prog->failures; \
            return;           \
        }                     \
    } while (0)

void recorded_rank(void *arg) {
    auto *prog = static_cast<Program *>(arg);
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    ucc_lib_config_h lcfg;
    CHECK_OK(ucc_lib_config_read(nullptr, nullptr, &lcfg));
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_h lib;
    ucc_status_t st = ucc_init(&lp, lcfg, &lib);
    ucc_lib_config_release(lcfg);
    CHECK_OK(st);
    ucc_context_config_h ccfg;
    CHECK_OK(ucc_context_config_read(lib, nullptr, &ccfg));
    CHECK_OK(ucc_context_config_modify(ccfg, nullptr, "TRACE", prog->dir.c_str()));
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ucc_sim_oob(&cp.oob);
    ucc_context_h ctx;
    st = ucc_context_create(lib, &cp, ccfg, &ctx);
    ucc_context_config_release(ccfg);
    CHECK_OK(st);
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_OOB;
    ucc_sim_oob(&tp.oob);
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_team_h team;
    CHECK_OK(ucc_team_create_post(&ctx, 1, &tp, &team));
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    CHECK_OK(st);
    // allreduce of 100 floats, bcast from rank 2, an alltoallv of rank-dependent blocks.
    std::vector<float> a(100, 1.0f), b(100);
    ucc_coll_args_t args{};
    args.coll_type = UCC_COLL_TYPE_ALLREDUCE;
    args.op = UCC_OP_SUM;
    args.src.info = {a.data(), 100, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    args.dst.info = {b.data(), 100, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    CHECK_OK(ucc::perf::run_collective(&args, team, ctx));
    args = {};
    args.coll_type = UCC_COLL_TYPE_BCAST;
    args.root = 2;
    args.src.info = {a.data(), 10, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    CHECK_OK(ucc::perf::run_collective(&args, team, ctx));
    std::vector<uint64_t> sc(n), sd(n), rc(n), rd(n);
    uint64_t stot = 0, rtot = 0;
    for (uint32_t j = 0; j < n; ++j) {
        sc[j] = rank + j + 1;
        rc[j] = j + rank + 1;
        sd[j] = stot;
        rd[j] = rtot;
        stot += sc[j];
        rtot += rc[j];
    }
    std::vector<uint8_t> s(stot), r(rtot);
    args = {};
    args.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    args.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    args.coll_type = UCC_COLL_TYPE_ALLTOALLV;
    args.src.info_v = {s.data(), reinterpret_cast<ucc_count_t *>(sc.data()),
                       reinterpret_cast<ucc_aint_t *>(sd.data()), UCC_DT_UINT8,
                       UCC_MEMORY_TYPE_HOST};
    args.dst.info_v = {r.data(), reinterpret_cast<ucc_count_t *>(rc.data()),
                       reinterpret_cast<ucc_aint_t *>(rd.data()), UCC_DT_UINT8,
                       UCC_MEMORY_TYPE_HOST};
    CHECK_OK(ucc::perf::run_collective(&args, team, ctx));
    // An init that fails (root out of range) is recorded with its status only.
    args = {};
    args.coll_type = UCC_COLL_TYPE_BCAST;
    args.root = n + 5;
    args.src.info = {a.data(), 10, UCC_DT_INT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_req_h req;
    if (ucc_collective_init(&args, &req, team) == UCC_OK) {
        ++prog->failures;
    }
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    CHECK_OK(st);
    CHECK_OK(ucc_context_destroy(ctx));
    CHECK_OK(ucc_finalize(lib));
}

TEST(TraceRecorder, ASimulatedRunIsRecordedThroughTheCApi) {
    Program prog;
    ucc::testkit::TempDir tmp("trace_sim");
    prog.dir = tmp.path();
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = 4;
    p.flags = UCC_SIM_FLAG_QUIET;
    ASSERT_EQ(ucc_sim_run(&p, recorded_rank, &prog), UCC_OK);
    ASSERT_EQ(prog.failures, 0);
    Trace trace;
    std::string err;
    ASSERT_TRUE(read_dir(prog.dir, &trace, &err)) << err;
    ASSERT_EQ(trace.size, 4u);
    ASSERT_EQ(trace.ranks.size(), 4u);
    for (uint32_t rank = 0; rank < 4; ++rank) {
        const RankTrace &t = trace.ranks[rank];
        EXPECT_EQ(t.header.rank, rank);
        EXPECT_EQ(t.header.transport, "sim");
        EXPECT_EQ(t.header.clock, "virtual");
        EXPECT_TRUE(t.ended);
        std::vector<std::string> kinds;
        for (const Record &r : t.records) {
            kinds.push_back(std::visit(
                [](const auto &x) -> std::string {
                    using T = std::decay_t<decltype(x)>;
                    if constexpr (std::is_same_v<T, TeamCreateRec>)
                        return "team_create";
                    else if constexpr (std::is_same_v<T, TeamRec>)
                        return "team";
                    else if constexpr (std::is_same_v<T, InitRec>)
                        return "init";
                    else if constexpr (std::is_same_v<T, PostRec>)
                        return "post";
                    else if constexpr (std::is_same_v<T, DoneRec>)
                        return "done";
                    else if constexpr (std::is_same_v<T, FinRec>)
                        return "fin";
                    else if constexpr (std::is_same_v<T, TeamDestroyRec>)
                        return "team_destroy";
                    else
                        return "end";
                },
                r));
        }
        const std::vector<std::string> want = {
            "team_create", "team", "init", "post", "done", "fin",  "init",         "post", "done",
            "fin",         "init", "post", "done", "fin",  "init", "team_destroy", "end"};
        EXPECT_EQ(kinds, want) << "rank " << rank;
        const auto &team = std::get<TeamRec>(t.records[1]);
        EXPECT_EQ(team.size, 4u);
        EXPECT_EQ(team.rank, rank);
        EXPECT_EQ(team.members, (Values{0, 1, 2, 3}));
        const auto &ar = std::get<InitRec>(t.records[2]);
        EXPECT_EQ(ar.coll, UCC_COLL_TYPE_ALLREDUCE);
        EXPECT_EQ(ar.src.count, 100u);
        EXPECT_EQ(ar.src.dt.predefined, UCC_DT_FLOAT32);
        EXPECT_FALSE(ar.alg.empty());
        const auto &bc = std::get<InitRec>(t.records[6]);
        EXPECT_EQ(bc.root, 2u);
        EXPECT_FALSE(bc.dst.used);
        const auto &av = std::get<InitRec>(t.records[10]);
        ASSERT_TRUE(av.src.v);
        EXPECT_EQ(av.src.counts, (Values{rank + 1, rank + 2, rank + 3, rank + 4}));
        EXPECT_EQ(av.dst.displs.size(), 4u);
        const auto &bad = std::get<InitRec>(t.records[14]);
        EXPECT_EQ(bad.status, UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(bad.req, 0u);
        EXPECT_EQ(std::get<PostRec>(t.records[3]).key, 0u);
        EXPECT_EQ(std::get<PostRec>(t.records[7]).key, 1u);
        EXPECT_GT(std::get<DoneRec>(t.records[4]).t, std::get<PostRec>(t.records[3]).t);
    }
}

TEST(TraceNames, EveryEnumeratorHasOneName) {
    for (unsigned b = 0; b < 16; ++b) {
        const auto t = static_cast<ucc_coll_type_t>(1u << b);
        ASSERT_NE(coll_name(t), nullptr);
        EXPECT_EQ(coll_of(coll_name(t)), t);
    }
    for (uint64_t id = 0; id < UCC_DT_PREDEFINED_LAST; ++id) {
        ASSERT_NE(dt_name(UCC_PREDEFINED_DT(id)), nullptr);
        EXPECT_EQ(dt_of(dt_name(UCC_PREDEFINED_DT(id))), UCC_PREDEFINED_DT(id));
    }
    EXPECT_STREQ(coll_name(UCC_COLL_TYPE_REDUCE_SCATTERV), "reduce_scatterv");
    EXPECT_STREQ(dt_name(UCC_DT_BFLOAT16), "bfloat16");
    EXPECT_EQ(coll_name(3), nullptr);
    EXPECT_EQ(status_of("UCC_ERR_TIMED_OUT"), UCC_ERR_TIMED_OUT);
    EXPECT_EQ(flag_of("in_place"), uint64_t{UCC_COLL_ARGS_FLAG_IN_PLACE});
    EXPECT_EQ(flag_of("nope"), 0u);
}

}  // namespace
