// Timelines and timing-only runs of the simulator: the Chrome trace JSON parses
// back, has one track per selected rank, the profiler keys, nested step slices
// and paired flows; recording changes nothing (trace hash, virtual time);
// timing-only runs take exactly the virtual time of payload runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "transports/sim/timeline.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::sim {
namespace {

// ---------------------------------------------------------------------------
// A small strict JSON parser (RFC 8259 values; numbers as doubles).
// ---------------------------------------------------------------------------

struct Json {
    enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
    bool b = false;
    double num = 0;
    std::string str;
    std::vector<Json> arr;
    std::vector<std::pair<std::string, Json>> obj;

    const Json *get(const std::string &key) const {
        for (const auto &[k, v] : obj) {
            if (k == key) {
                return &v;
            }
        }
        return nullptr;
    }
};

class Parser {
  public:
    explicit Parser(const std::string &s) : s_(s) {}
    // False on any syntax error, or trailing garbage.
    bool parse(Json *out) {
        if (!value(out, 0)) {
            return false;
        }
        ws();
        return i_ == s_.size();
    }

  private:
    void ws() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) {
            ++i_;
        }
    }
    bool lit(const char *w) {
        size_t n = std::string(w).size();
        if (s_.compare(i_, n, w) != 0) {
            return false;
        }
        i_ += n;
        return true;
    }
    bool string(std::string *out) {
        if (i_ >= s_.size() || s_[i_] != '"') {
            return false;
        }
        ++i_;
        while (i_ < s_.size() && s_[i_] != '"') {
            char c = s_[i_++];
            if (static_cast<unsigned char>(c) < 0x20) {
                return false;
            }
            if (c == '\\') {
                if (i_ >= s_.size()) {
                    return false;
                }
                char e = s_[i_++];
                if (e == 'u') {
                    if (i_ + 4 > s_.size()) {
                        return false;
                    }
                    i_ += 4;
                    c = '?';
                } else if (std::string("\"\\/bfnrt").find(e) == std::string::npos) {
                    return false;
                } else {
                    c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
                }
            }
            out->push_back(c);
        }
        if (i_ >= s_.size()) {
            return false;
        }
        ++i_;
        return true;
    }
    bool number(double *out) {
        size_t start = i_;
        if (i_ < s_.size() && s_[i_] == '-') {
            ++i_;
        }
        size_t digits = i_;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
            ++i_;
        }
        if (i_ == digits) {
            return false;
        }
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            size_t frac = i_;
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
                ++i_;
            }
            if (i_ == frac) {
                return false;
            }
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) {
                ++i_;
            }
            while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
                ++i_;
            }
        }
        *out = std::stod(s_.substr(start, i_ - start));
        return true;
    }
    bool value(Json *v, int depth) {
        if (depth > 64) {
            return false;
        }
        ws();
        if (i_ >= s_.size()) {
            return false;
        }
        char c = s_[i_];
        if (c == '{') {
            v->kind = Json::kObject;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == '}') {
                ++i_;
                return true;
            }
            for (;;) {
                ws();
                std::string key;
                if (!string(&key)) {
                    return false;
                }
                ws();
                if (i_ >= s_.size() || s_[i_] != ':') {
                    return false;
                }
                ++i_;
                Json member;
                if (!value(&member, depth + 1)) {
                    return false;
                }
                v->obj.emplace_back(std::move(key), std::move(member));
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == '}') {
                    ++i_;
                    return true;
                }
                return false;
            }
        }
        if (c == '[') {
            v->kind = Json::kArray;
            ++i_;
            ws();
            if (i_ < s_.size() && s_[i_] == ']') {
                ++i_;
                return true;
            }
            for (;;) {
                Json item;
                if (!value(&item, depth + 1)) {
                    return false;
                }
                v->arr.push_back(std::move(item));
                ws();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') {
                    ++i_;
                    return true;
                }
                return false;
            }
        }
        if (c == '"') {
            v->kind = Json::kString;
            return string(&v->str);
        }
        if (lit("true")) {
            v->kind = Json::kBool;
            v->b = true;
            return true;
        }
        if (lit("false")) {
            v->kind = Json::kBool;
            return true;
        }
        if (lit("null")) {
            return true;
        }
        v->kind = Json::kNumber;
        return number(&v->num);
    }

    const std::string &s_;
    size_t i_ = 0;
};

std::string read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string temp_path(const std::string &name) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/ucc_sim_timeline_" +
           std::to_string(::getpid()) + "_" + name;
}

// ---------------------------------------------------------------------------
// A UCC program: lifecycle, several collectives (two of them concurrent)
// ---------------------------------------------------------------------------

struct Program {
    bool timing_only = false;         // pass NULL buffers
    uint32_t skip_rank = UINT32_MAX;  // this rank posts no collective (deadlock)
    ucc_reduction_op_t op = UCC_OP_SUM;
    uint64_t failures = 0;
};

constexpr int kCollectives = 6;  // non-trivial collectives per rank below

bool wait_all(ucc_coll_req_h *reqs, int n, ucc_context_h ctx) {
    bool ok = true;
    for (;;) {
        int pending = 0;
        for (int i = 0; i < n; ++i) {
            ucc_status_t st = ucc_collective_test(reqs[i]);
            pending += st == UCC_INPROGRESS;
            ok &= st == UCC_OK || st == UCC_INPROGRESS;
        }
        if (pending == 0) {
            return ok;
        }
        ucc_context_progress(ctx);
    }
}

// The collectives of one rank; false at the first failure (after a deadlock
// the team has failed and every later call fails too).
bool collectives(Program *prog, ucc_team_h team, ucc_context_h ctx, uint32_t n) {
    // Buffers: 64 KiB vectors; NULL in timing-only runs.
    const size_t big = 16384;
    std::vector<float> a(prog->timing_only ? 0 : big, 1.0f);
    std::vector<float> b(prog->timing_only ? 0 : big, 0.0f);
    std::vector<float> c(prog->timing_only ? 0 : big, 2.0f);
    std::vector<float> d(prog->timing_only ? 0 : big, 0.0f);
    auto buf = [](std::vector<float> &v) { return v.empty() ? nullptr : v.data(); };
    auto allreduce = [&](float *src, float *dst, size_t count) {
        ucc_coll_args_t x{};
        x.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        x.op = prog->op;
        x.src.info = {src, count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        x.dst.info = {dst, count, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        return x;
    };
    // Posts the collectives `xs` together and waits for all of them.
    auto run = [&](std::vector<ucc_coll_args_t> xs) {
        std::vector<ucc_coll_req_h> reqs;
        bool ok = true;
        for (ucc_coll_args_t &x : xs) {
            ucc_coll_req_h req;
            if (ucc_collective_init(&x, &req, team) != UCC_OK) {
                ok = false;
                break;
            }
            reqs.push_back(req);
            if (ucc_collective_post(req) != UCC_OK) {
                ok = false;
                break;
            }
        }
        ok = wait_all(reqs.data(), static_cast<int>(reqs.size()), ctx) && ok;
        for (ucc_coll_req_h req : reqs) {
            ucc_collective_finalize(req);
        }
        return ok;
    };
    ucc_coll_args_t bc{};
    bc.coll_type = UCC_COLL_TYPE_BCAST;
    bc.root = 3 % n;
    bc.src.info = {buf(c), 1000, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
    ucc_coll_args_t bar{};
    bar.coll_type = UCC_COLL_TYPE_BARRIER;
    if (!run({allreduce(buf(a), buf(b), 2)}) ||    // recursive doubling
        !run({allreduce(buf(a), buf(b), big)}) ||  // ring (8 ranks) or rabenseifner
        !run({bc}) ||
        // Two collectives in flight at once.
        !run({allreduce(buf(a), buf(b), 1024), allreduce(buf(c), buf(d), 8)}) || !run({bar})) {
        return false;
    }
    // Payload runs compute for real.
    return prog->timing_only || prog->op != UCC_OP_SUM || b[0] == static_cast<float>(n);
}

void rank_program(void *arg) {
    auto *prog = static_cast<Program *>(arg);
    const uint32_t rank = ucc_sim_rank();
    const uint32_t n = ucc_sim_size();
    ucc_lib_config_h lcfg;
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    ucc_lib_h lib;
    ASSERT_EQ(ucc_lib_config_read(nullptr, nullptr, &lcfg), UCC_OK);
    ASSERT_EQ(ucc_init(&lp, lcfg, &lib), UCC_OK);
    ucc_lib_config_release(lcfg);
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ASSERT_EQ(ucc_sim_oob(&cp.oob), UCC_OK);
    ucc_context_h ctx;
    ASSERT_EQ(ucc_context_create(lib, &cp, nullptr, &ctx), UCC_OK);
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep_map.type = UCC_EP_MAP_FULL;
    tp.ep_map.ep_num = n;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    ucc_team_h team;
    ASSERT_EQ(ucc_team_create_post(&ctx, 1, &tp, &team), UCC_OK);
    ucc_status_t st;
    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ASSERT_EQ(st, UCC_OK);
    if (rank == prog->skip_rank) {
        // Leaves the others waiting (a deadlock); it frees what it made, so
        // that the leak checker sees only the library's own leaks.
        while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
            ucc_context_progress(ctx);
        }
        ucc_context_destroy(ctx);
        ucc_finalize(lib);
        return;
    }
    if (!collectives(prog, team, ctx, n)) {
        prog->failures++;
    }
    while ((st = ucc_team_destroy(team)) == UCC_INPROGRESS) {
        ucc_context_progress(ctx);
    }
    ucc_context_destroy(ctx);
    ucc_finalize(lib);
}

struct Outcome {
    ucc_status_t status;
    uint64_t hash;
    double time_s;
    uint64_t events;
};

Outcome run_program(Program *prog, uint32_t n, const char *network, uint64_t seed,
                    const std::string &timeline = "", const char *ranks = nullptr) {
    ucc_sim_params_t p{};
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_SEED | UCC_SIM_PARAM_FIELD_NETWORK |
             UCC_SIM_PARAM_FIELD_FLAGS | UCC_SIM_PARAM_FIELD_TIMING_ONLY;
    p.n_ranks = n;
    p.seed = seed;
    p.network = network;
    p.flags = UCC_SIM_FLAG_QUIET;
    p.timing_only = prog->timing_only ? 1 : 0;
    if (!timeline.empty()) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE;
        p.timeline = timeline.c_str();
    }
    if (ranks != nullptr) {
        p.mask |= UCC_SIM_PARAM_FIELD_TIMELINE_RANKS;
        p.timeline_ranks = ranks;
    }
    Outcome o;
    o.status = ucc_sim_run(&p, rank_program, prog);
    o.hash = ucc_sim_trace_hash();
    o.time_s = ucc_sim_last_time();
    o.events = ucc_sim_last_events();
    return o;
}

// ---------------------------------------------------------------------------
// Checks of a parsed timeline
// ---------------------------------------------------------------------------

struct Slice {
    double ts;
    double end;
    std::string cat;
};

struct TimelineFacts {
    std::set<int64_t> track_pids;                                      // from process_name metadata
    std::set<int64_t> event_pids;                                      // of X, s and f events
    std::map<int64_t, int> collectives_per_pid;                        // collective slices
    std::map<std::pair<int64_t, int64_t>, std::vector<Slice>> slices;  // by (pid, tid)
    std::map<int64_t, int> flow_starts;                                // id -> count
    std::map<int64_t, int> flow_ends;
    std::set<std::string> statuses;
    int max_tid = 0;
    int steps = 0;
};

// Parses the file, checks every event's required keys, and gathers facts.
void check_timeline(const std::string &path, TimelineFacts *f) {
    const std::string text = read_file(path);
    ASSERT_FALSE(text.empty()) << path;
    Json root;
    ASSERT_TRUE(Parser(text).parse(&root)) << "timeline is not valid JSON: " << path;
    ASSERT_EQ(root.kind, Json::kObject);
    const Json *events = root.get("traceEvents");
    ASSERT_NE(events, nullptr);
    ASSERT_EQ(events->kind, Json::kArray);
    ASSERT_NE(root.get("otherData"), nullptr);
    for (const Json &e : events->arr) {
        ASSERT_EQ(e.kind, Json::kObject);
        const Json *ph = e.get("ph");
        const Json *pid = e.get("pid");
        ASSERT_NE(ph, nullptr);
        ASSERT_NE(pid, nullptr);
        ASSERT_NE(e.get("name"), nullptr);
        const std::string kind = ph->str;
        const auto p = static_cast<int64_t>(pid->num);
        if (kind == "M") {
            if (e.get("name")->str == "process_name") {
                f->track_pids.insert(p);
                EXPECT_EQ(e.get("args")->get("name")->str, "rank " + std::to_string(p));
            }
            continue;
        }
        ASSERT_TRUE(kind == "X" || kind == "s" || kind == "f") << "unexpected ph " << kind;
        f->event_pids.insert(p);
        ASSERT_NE(e.get("ts"), nullptr);
        ASSERT_NE(e.get("tid"), nullptr);
        const auto tid = static_cast<int64_t>(e.get("tid")->num);
        f->max_tid = std::max<int>(f->max_tid, static_cast<int>(tid));
        if (kind == "X") {
            ASSERT_NE(e.get("dur"), nullptr);
            ASSERT_NE(e.get("cat"), nullptr);
            EXPECT_GE(e.get("dur")->num, 0);
            const Json *args = e.get("args");
            ASSERT_NE(args, nullptr);
            const std::string cat = e.get("cat")->str;
            if (cat == "collective") {
                for (const char *key : {"Collective name", "In msg nelems", "Out msg nelems",
                                        "Group size", "dtype", "algorithm", "seq"}) {
                    EXPECT_NE(args->get(key), nullptr) << "collective slice without " << key;
                }
                EXPECT_EQ(args->get("Collective name")->str, e.get("name")->str);
                if (const Json *st = args->get("status")) {
                    f->statuses.insert(st->str);
                }
                f->collectives_per_pid[p]++;
            } else {
                EXPECT_EQ(cat, "step");
                EXPECT_NE(args->get("step"), nullptr);
                f->steps++;
            }
            const double ts = e.get("ts")->num;
            f->slices[{p, tid}].push_back({ts, ts + e.get("dur")->num, cat});
        } else {
            ASSERT_NE(e.get("id"), nullptr);
            ASSERT_EQ(e.get("cat")->str, "message");
            const auto id = static_cast<int64_t>(e.get("id")->num);
            (kind == "s" ? f->flow_starts : f->flow_ends)[id]++;
        }
    }
}

// Steps lie inside a collective slice on their track; collectives on one
// track do not overlap (they nest nowhere: each lane holds one at a time).
void check_nesting(const TimelineFacts &f) {
    constexpr double kEps = 1e-6;  // one picosecond in microseconds
    for (const auto &[track, list] : f.slices) {
        std::vector<Slice> colls;
        for (const Slice &s : list) {
            if (s.cat == "collective") {
                colls.push_back(s);
            }
        }
        std::sort(colls.begin(), colls.end(),
                  [](const Slice &a, const Slice &b) { return a.ts < b.ts; });
        for (size_t i = 1; i < colls.size(); ++i) {
            EXPECT_LE(colls[i - 1].end, colls[i].ts + kEps)
                << "collectives overlap on pid " << track.first << " tid " << track.second;
        }
        for (const Slice &s : list) {
            if (s.cat != "step") {
                continue;
            }
            bool inside = false;
            for (const Slice &c : colls) {
                inside |= c.ts <= s.ts + kEps && s.end <= c.end + kEps;
            }
            EXPECT_TRUE(inside) << "step slice at " << s.ts << " outside its collective on pid "
                                << track.first;
        }
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

TEST(RankSet, ParsesListsAndRanges) {
    RankSet s;
    std::string err;
    ASSERT_TRUE(RankSet::parse("0-7,512", 1024, &s, &err)) << err;
    EXPECT_EQ(s.count(), 9u);
    EXPECT_TRUE(s.contains(0));
    EXPECT_TRUE(s.contains(7));
    EXPECT_FALSE(s.contains(8));
    EXPECT_TRUE(s.contains(512));
    EXPECT_FALSE(s.contains(1023));
    ASSERT_TRUE(RankSet::parse(" 5, 3-4 ,0-1,2 ", 16, &s, &err)) << err;
    ASSERT_EQ(s.ranges().size(), 1u);  // merged into 0-5
    EXPECT_EQ(s.count(), 6u);
    ASSERT_TRUE(RankSet::parse("", 3, &s, &err));
    EXPECT_EQ(s.count(), 3u);
    ASSERT_TRUE(RankSet::parse("all", 3, &s, &err));
    EXPECT_EQ(s.count(), 3u);
    for (const char *bad : {"7-5", "x", "1,,2", "1-", "-3", "4096", "0-4096", "1;2"}) {
        EXPECT_FALSE(RankSet::parse(bad, 4096, &s, &err)) << bad;
        EXPECT_FALSE(err.empty());
    }
}

TEST(Timeline, FormatsMicroseconds) {
    EXPECT_EQ(format_us(0), "0.000000");
    EXPECT_EQ(format_us(1), "0.000001");
    EXPECT_EQ(format_us(1'234'567), "1.234567");
    EXPECT_EQ(format_us(3'000'000'000'000), "3000000.000000");
    EXPECT_EQ(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}

TEST(Timeline, WellFormedTracksSlicesAndFlows) {
    const std::string path = temp_path("wellformed.json");
    Program prog;
    Outcome o = run_program(&prog, 8, "hdr,ppn=4", 7, path, "0-2,5");
    ASSERT_EQ(o.status, UCC_OK);
    EXPECT_EQ(prog.failures, 0u);
    TimelineFacts f;
    ASSERT_NO_FATAL_FAILURE(check_timeline(path, &f));
    // One track per selected rank, and events on those tracks only.
    EXPECT_EQ(f.track_pids, (std::set<int64_t>{0, 1, 2, 5}));
    EXPECT_EQ(f.event_pids, f.track_pids);
    for (int64_t pid : f.track_pids) {
        EXPECT_EQ(f.collectives_per_pid[pid], kCollectives) << "rank " << pid;
    }
    EXPECT_GT(f.steps, 0);
    EXPECT_EQ(f.max_tid, 1);  // the two concurrent allreduces need a second lane
    EXPECT_TRUE(f.statuses.empty());
    // Flows: every id starts once and ends once.
    EXPECT_FALSE(f.flow_starts.empty());
    EXPECT_EQ(f.flow_starts.size(), f.flow_ends.size());
    for (const auto &[id, count] : f.flow_starts) {
        EXPECT_EQ(count, 1) << "flow " << id;
        ASSERT_EQ(f.flow_ends.count(id), 1u) << "flow " << id << " never ends";
        EXPECT_EQ(f.flow_ends.at(id), 1) << "flow " << id;
    }
    check_nesting(f);
    std::remove(path.c_str());
}

TEST(Timeline, RecordingDoesNotChangeTheRun) {
    for (const char *net : {"hdr", "slow"}) {
        Program plain;
        Outcome without = run_program(&plain, 12, net, 3);
        Program traced;
        const std::string path = temp_path("same.json");
        Outcome with = run_program(&traced, 12, net, 3, path, "1-3,11");
        ASSERT_EQ(without.status, UCC_OK);
        ASSERT_EQ(with.status, UCC_OK);
        EXPECT_EQ(with.hash, without.hash) << net;
        EXPECT_EQ(with.time_s, without.time_s) << net;
        EXPECT_EQ(with.events, without.events) << net;
        // The file itself is deterministic too.
        const std::string first = read_file(path);
        Program again;
        run_program(&again, 12, net, 3, path, "1-3,11");
        EXPECT_EQ(read_file(path), first) << net;
        std::remove(path.c_str());
    }
}

TEST(Timeline, AllRanksByDefault) {
    const std::string path = temp_path("all.json");
    Program prog;
    ASSERT_EQ(run_program(&prog, 5, "eth100", 1, path).status, UCC_OK);
    TimelineFacts f;
    ASSERT_NO_FATAL_FAILURE(check_timeline(path, &f));
    EXPECT_EQ(f.track_pids, (std::set<int64_t>{0, 1, 2, 3, 4}));
    check_nesting(f);
    std::remove(path.c_str());
}

TEST(Timeline, DeadlockedCollectivesAreClosedWithTheirStatus) {
    const std::string path = temp_path("deadlock.json");
    Program prog;
    prog.skip_rank = 3;
    Outcome o = run_program(&prog, 4, "hdr", 1, path);
    EXPECT_EQ(o.status, UCC_ERR_NO_MESSAGE);
    TimelineFacts f;
    ASSERT_NO_FATAL_FAILURE(check_timeline(path, &f));
    EXPECT_FALSE(f.statuses.empty());  // the stuck allreduce ends with an error status
    for (const auto &[id, count] : f.flow_starts) {
        EXPECT_EQ(f.flow_ends.count(id), 1u) << "flow " << id;
    }
    std::remove(path.c_str());
}

TEST(Timeline, BadParametersAreRefused) {
    Program prog;
    EXPECT_EQ(run_program(&prog, 4, "hdr", 1, temp_path("bad.json"), "2-9").status,
              UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(run_program(&prog, 4, "hdr", 1, "/nonexistent-dir/x/timeline.json").status,
              UCC_ERR_INVALID_PARAM);
}

TEST(TimingOnly, SameVirtualTimeAndTraceAsPayload) {
    for (const char *net : {"hdr", "slow", "eth100,ppn=3,jitter=2us"}) {
        for (uint32_t n : {1u, 5u, 8u, 13u}) {
            Program payload;
            Program timing;
            timing.timing_only = true;
            Outcome a = run_program(&payload, n, net, 11);
            Outcome b = run_program(&timing, n, net, 11);
            ASSERT_EQ(a.status, UCC_OK) << net << " n=" << n;
            ASSERT_EQ(b.status, UCC_OK) << net << " n=" << n;
            EXPECT_EQ(payload.failures, 0u);
            EXPECT_EQ(timing.failures, 0u);
            EXPECT_EQ(a.time_s, b.time_s) << net << " n=" << n;
            EXPECT_EQ(a.hash, b.hash) << net << " n=" << n;
            EXPECT_EQ(a.events, b.events) << net << " n=" << n;
        }
    }
}

// AVG's final division is charged in both modes (regression: it once was
// charged in payload runs only, so timing-only AVG runs were shorter).
TEST(TimingOnly, SameVirtualTimeWithAvg) {
    Program payload;
    payload.op = UCC_OP_AVG;
    Program timing = payload;
    timing.timing_only = true;
    Outcome a = run_program(&payload, 8, "hdr", 2);
    Outcome b = run_program(&timing, 8, "hdr", 2);
    EXPECT_EQ(a.time_s, b.time_s);
    EXPECT_EQ(a.hash, b.hash);
}

}  // namespace
}  // namespace ucc::sim
