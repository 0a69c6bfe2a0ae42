// The ucc_sim front end (tools/ucc_sim.cc), run as a separate process: a small
// sweep and its closing lines, CSV/JSON rows, timing-only rows equal to payload
// rows, a network file, a timeline, a user program built as a shared library,
// and a deadlocking program whose report comes before the closing lines.
//
// The tool is found next to this test's executable (both live in the build
// directory); the example program is compiled with `cc` from the source tree.
// Either missing makes the tests that need it skip, with the reason; a program
// that does not compile fails them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string dir_of(const std::string &path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string build_dir() {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) {
        return ".";
    }
    buf[n] = '\0';
    return dir_of(buf);
}

// The source tree: this file is tests/integration/ucc_sim_tool_test.cc.
std::string source_dir() {
    return dir_of(dir_of(dir_of(__FILE__)));
}

bool exists(const std::string &path) {
    return access(path.c_str(), F_OK) == 0;
}

std::string tool() {
    return build_dir() + "/ucc_sim";
}

std::string temp_path(const std::string &name) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/ucc_sim_tool_" +
           std::to_string(getpid()) + "_" + name;
}

std::string read_file(const std::string &path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct Result {
    int rc = -1;
    std::string out;  // stdout (and stderr too when merged)
    std::string err;  // stderr when kept apart
};

// Runs `args` through the shell; stderr merged into out unless `split`.
Result run(const std::string &args, bool split = false) {
    const std::string err_path = temp_path("stderr.txt");
    std::string cmd = args + (split ? " 2>" + err_path : " 2>&1");
    Result r;
    FILE *p = popen(cmd.c_str(), "r");
    if (p == nullptr) {
        return r;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
        r.out.append(buf, n);
    }
    int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (split) {
        r.err = read_file(err_path);
        std::remove(err_path.c_str());
    }
    return r;
}

std::vector<std::string> lines_of(const std::string &s) {
    std::vector<std::string> lines;
    std::stringstream ss(s);
    std::string line;
    while (std::getline(ss, line)) {
        lines.push_back(line);
    }
    return lines;
}

std::vector<std::string> split_csv(const std::string &line) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) {
        f.push_back(field);
    }
    return f;
}

// The three closing lines are the last lines of `text`, in order.
void expect_closing_lines(const std::string &text) {
    std::vector<std::string> lines = lines_of(text);
    ASSERT_GE(lines.size(), 3u) << text;
    const std::string &sim = lines[lines.size() - 3];
    ASSERT_EQ(sim.rfind("Simulated time: ", 0), 0u) << text;
    EXPECT_EQ(sim.substr(sim.size() - 9), " seconds.") << sim;
    double t = std::strtod(sim.c_str() + 16, nullptr);
    EXPECT_GT(t, 0.0) << sim;
    EXPECT_EQ(lines[lines.size() - 2].rfind("Wall time: ", 0), 0u) << text;
    EXPECT_EQ(lines.back().rfind("Events: ", 0), 0u) << text;
    EXPECT_NE(lines.back().find(" events/s)."), std::string::npos) << lines.back();
}

#define REQUIRE_TOOL()                                                                        \
    do {                                                                                      \
        if (!exists(tool())) {                                                                \
            GTEST_SKIP() << tool() << " is not built (cmake --build <dir> --target ucc_sim)"; \
        }                                                                                     \
    } while (0)

// Builds tools/examples/ucc_sim_hello.c (or `source`) into a shared library.
std::string build_program(const std::string &source, const std::string &name, std::string *why) {
    if (run("command -v cc").rc != 0) {
        *why = "no C compiler `cc` on PATH";
        return "";
    }
    const std::string so = temp_path(name);
    // ucc_version.h is generated into the build directory's include/.
    Result r = run("cc -std=c99 -Wall -Wextra -Werror -shared -fPIC -I'" + build_dir() +
                   "/include' -I'" + source_dir() + "/include' '" + source + "' -o '" + so + "'");
    if (r.rc != 0) {
        *why = "cc failed: " + r.out;
        return "";
    }
    return so;
}

TEST(UccSimTool, SmallSweepPrintsRowsAndClosingLines) {
    REQUIRE_TOOL();
    Result r = run(tool() + " -np 8 -c allreduce -b 8 -e 4K -i 2 --no-progress");
    ASSERT_EQ(r.rc, 0) << r.out;
    expect_closing_lines(r.out);
    // 8 B .. 4 KiB doubling: 10 rows, each naming its algorithm.
    int rows = 0;
    for (const std::string &line : lines_of(r.out)) {
        rows += line.find("recursive_doubling") != std::string::npos ||
                line.find(" ring ") != std::string::npos;
    }
    EXPECT_EQ(rows, 10) << r.out;
    EXPECT_NE(r.out.find("ucc_sim: seed=1 ranks=8"), std::string::npos) << r.out;
}

TEST(UccSimTool, CsvAndJsonRows) {
    REQUIRE_TOOL();
    Result csv = run(tool() + " -np 8 -c allgather -b 64 -e 1K -i 3 --csv", true);
    ASSERT_EQ(csv.rc, 0) << csv.out << csv.err;
    std::vector<std::string> lines = lines_of(csv.out);
    ASSERT_EQ(lines.size(), 6u) << csv.out;  // header + 64, 128, 256, 512, 1024
    EXPECT_EQ(lines[0],
              "ranks,collective,algorithm,bytes,count,dtype,iterations,avg_us,min_us,max_us,"
              "algbw_gbps,busbw_gbps,mode");
    for (size_t i = 1; i < lines.size(); ++i) {
        std::vector<std::string> f = split_csv(lines[i]);
        ASSERT_EQ(f.size(), 13u) << lines[i];
        EXPECT_EQ(f[0], "8");
        EXPECT_EQ(f[1], "allgather");
        EXPECT_EQ(std::stoull(f[3]), 64ull << (i - 1));
        EXPECT_EQ(f[5], "float32");
        EXPECT_EQ(f[6], "3");
        const double avg = std::stod(f[7]);
        const double lo = std::stod(f[8]);
        const double hi = std::stod(f[9]);
        EXPECT_LE(lo, avg);
        EXPECT_LE(avg, hi);
        // nccl-tests: allgather busbw = algbw * (n-1)/n.
        EXPECT_NEAR(std::stod(f[11]), std::stod(f[10]) * 7.0 / 8.0, 1e-5);
        EXPECT_EQ(f[12], "payload");
    }
    expect_closing_lines(csv.err);  // stdout stays machine-readable

    Result json = run(tool() + " -np 4 -c bcast -b 1K -e 2K --json", true);
    ASSERT_EQ(json.rc, 0) << json.err;
    lines = lines_of(json.out);
    ASSERT_EQ(lines.size(), 2u) << json.out;
    for (const std::string &line : lines) {
        EXPECT_EQ(line.front(), '{');
        EXPECT_EQ(line.back(), '}');
        for (const char *key : {"\"ranks\":4", "\"collective\":\"bcast\"", "\"algorithm\":",
                                "\"avg_us\":", "\"busbw_gbps\":", "\"iterations\":10"}) {
            EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
        }
    }
}

// A network whose pulls depend on the working set and on whether the
// payload is the sender's input (NetworkModel::cma_written).
const std::string kPullsBase =
    "ideal,ppn=4,lat_intra=1us,zcopy_intra=4K,cma=8GB/s,o_cma=1us,cache=256K,cma_mem=2GB/s,"
    "copy=8GB/s,copy_mem=2GB/s,reduce=4GB/s";
const std::string kPullsNet = kPullsBase + ",cma_written=4GB/s,o_cma_written=2us";

TEST(UccSimTool, TimingOnlyRowsEqualPayloadRows) {
    REQUIRE_TOOL();
    for (const char *coll : {"allreduce", "alltoall", "reduce_scatter", "gatherv", "allgather"}) {
        const bool pulls = std::string(coll) == "allgather";
        const std::string args = std::string(" -np 6 -c ") + coll + " -b 4 -e " +
                                 (pulls ? "64K --network " + kPullsNet : "16K --network slow") +
                                 " -i 2 --seed 5 --csv";
        Result payload = run(tool() + args, true);
        Result timing = run(tool() + args + " --timing-only", true);
        ASSERT_EQ(payload.rc, 0) << payload.err;
        ASSERT_EQ(timing.rc, 0) << timing.err;
        std::vector<std::string> a = lines_of(payload.out);
        std::vector<std::string> b = lines_of(timing.out);
        ASSERT_EQ(a.size(), b.size()) << coll;
        for (size_t i = 1; i < a.size(); ++i) {
            const std::string pa = a[i].substr(0, a[i].rfind(','));
            const std::string pb = b[i].substr(0, b[i].rfind(','));
            EXPECT_EQ(pa, pb) << coll;
            EXPECT_EQ(b[i].substr(b[i].rfind(',') + 1), "timing-only");
        }
        // The same virtual time for the whole run, too.
        EXPECT_EQ(lines_of(payload.err).at(lines_of(payload.err).size() - 3),
                  lines_of(timing.err).at(lines_of(timing.err).size() - 3))
            << coll;
    }
}

// A pull of a rank's unchanged input costs cma, every other cma_written:
// two ranks' allgather (each sends its src) is as fast as with cma alone,
// unless the program wrote its input (--inputs written); the ring
// allreduce's second step forwards a sum the rank has just written (its
// blocks whole, UCC_REDUCE_CHUNK=0: chunks below zcopy_intra are copied,
// not pulled).
TEST(UccSimTool, PullsOfInputsAreCleanUnlessWritten) {
    REQUIRE_TOOL();
    const std::string &one_rate = kPullsBase;
    auto avg_us = [](const std::string &out) {
        std::vector<std::string> rows = lines_of(out);
        EXPECT_EQ(rows.size(), 2u) << out;
        return rows.size() < 2 ? 0.0 : std::strtod(split_csv(rows[1]).at(7).c_str(), nullptr);
    };
    for (const char *coll : {"allgather", "allreduce"}) {
        auto time = [&](const std::string &net, const char *inputs) {
            Result r = run("UCC_REDUCE_CHUNK=0 " + tool() + " -np 2 -c " + coll +
                               " -b 32K -e 32K -i 2 --timing-only " + "--csv --network " + net +
                               " --inputs " + inputs,
                           true);
            EXPECT_EQ(r.rc, 0) << r.err;
            return avg_us(r.out);
        };
        const double alone = time(one_rate, "clean");
        const double clean = time(kPullsNet, "clean");
        const double written = time(kPullsNet, "written");
        EXPECT_GT(written, clean * 1.1) << coll;
        EXPECT_EQ(alone, time(one_rate, "written")) << coll;  // nothing to tell apart
        if (std::string(coll) == "allgather") {
            EXPECT_EQ(clean, alone);
        } else {
            EXPECT_GT(clean, alone * 1.05);
        }
    }
    Result bad = run(tool() + " -np 2 --inputs dirty", true);
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("--inputs dirty"), std::string::npos) << bad.err;
}

// The two runs of `args` with `a_opt` and with `b_opt` succeed and are the
// same run: the same rows (at least the header and one) and trace hash.
void expect_same_run(const std::string &args, const std::string &a_opt, const std::string &b_opt,
                     const char *coll) {
    Result ra = run(tool() + args + " " + a_opt, true);
    Result rb = run(tool() + args + " " + b_opt, true);
    ASSERT_EQ(ra.rc, 0) << ra.err;
    ASSERT_EQ(rb.rc, 0) << rb.err;
    std::vector<std::string> a = lines_of(ra.out);
    std::vector<std::string> b = lines_of(rb.out);
    ASSERT_EQ(a.size(), b.size()) << coll;
    ASSERT_GE(a.size(), 2u) << coll;
    for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i], b[i]) << coll;
    }
    const size_t at = ra.err.find("trace hash");
    ASSERT_NE(at, std::string::npos) << ra.err;
    EXPECT_NE(rb.err.find(ra.err.substr(at, 30)), std::string::npos) << coll << "\n"
                                                                     << ra.err << rb.err;
}

// --no-drain resumes every waiting rank for every packet: the same rows and
// the same run (virtual time, events, trace hash) as the default engine.
TEST(UccSimTool, NoDrainIsTheSameRun) {
    REQUIRE_TOOL();
    for (const char *coll : {"allreduce", "barrier", "alltoall"}) {
        expect_same_run(std::string(" -np 13 -c ") + coll +
                            " -b 4 -e 4K -i 3 --network hdr,jitter=200ns --seed 3 --csv",
                        "", "--no-drain", coll);
    }
}

// --fiberless runs the sweep in callback style, no fiber per rank: the same
// rows and the same run (trace hash) as the same setup with fibers, checked
// results included, both for the default setup (the context over the OOB:
// without a fiber it learns its peers in later passes, and the team waits
// for it) and for --team-oob; and it refuses what needs a fiber.
TEST(UccSimTool, FiberlessIsTheSameRunAsWithFibers) {
    REQUIRE_TOOL();
    for (const char *coll : {"allreduce", "barrier", "alltoallv", "bcast"}) {
        const std::string args = std::string(" -np 13 -c ") + coll +
                                 " -b 4 -e 4K -i 3 -w 1 --network hdr,jitter=200ns --seed 3 "
                                 "--csv --check";
        expect_same_run(args, "--fiberless", "", coll);
        expect_same_run(args, "--fiberless --team-oob", "--team-oob", coll);
    }
    EXPECT_EQ(run(tool() + " -np 4 --fiberless --stack-size 64K", true).rc, 2);
}

// --aligned starts every rank's timed iterations at one virtual instant (an
// OOB exchange after the barrier): the root of a linear gather, the slowest
// rank, no longer waits for the ranks the barrier let go last; and the run
// is the same with and without fibers. The barrier is the classic
// dissemination (radix 2), whose last round lets its ranks go furthest apart
// (the radix chosen by cost, 4 here, lets them go within 0.5 us).
TEST(UccSimTool, AlignedStartsBeginTogether) {
    REQUIRE_TOOL();
    struct Classic {
        Classic() { setenv("UCC_BARRIER_DISSEMINATION_RADIX", "2", 1); }
        ~Classic() { unsetenv("UCC_BARRIER_DISSEMINATION_RADIX"); }
    } classic;
    const std::string args =
        " -np 16 --network hdr,ppn=1 -c gather --alg linear -b 8 -e 8 -w 1 -i 1 --timing-only";
    // Per rank, the start of its last gather (the timed one) in the timeline.
    auto starts = [&](const std::string &opt) {
        const std::string path = temp_path("aligned.json");
        Result r = run(tool() + args + " " + opt + " --timeline " + path, true);
        EXPECT_EQ(r.rc, 0) << r.err;
        const std::string t = read_file(path);
        std::remove(path.c_str());
        std::vector<double> ts(16, -1);
        const std::regex ev(
            R"re("name":"gather","cat":"collective","ph":"X","pid":(\d+),"tid":0,"ts":([0-9.]+))re");
        for (auto it = std::sregex_iterator(t.begin(), t.end(), ev); it != std::sregex_iterator();
             ++it) {
            const size_t rank = std::stoul((*it)[1]);
            const double at = std::stod((*it)[2]);
            if (rank < ts.size()) {
                ts[rank] = std::max(ts[rank], at);
            }
        }
        return ts;
    };
    auto spread = [](const std::vector<double> &ts) {
        EXPECT_GE(*std::min_element(ts.begin(), ts.end()), 0.0) << "a rank without a gather";
        return *std::max_element(ts.begin(), ts.end()) - *std::min_element(ts.begin(), ts.end());
    };
    EXPECT_GT(spread(starts("")), 1.0);  // microseconds: the barrier's skew
    EXPECT_LT(spread(starts("--aligned")), 1e-6);
    auto max_us = [&](const std::string &opt) {
        Result r = run(tool() + args + " --csv " + opt, true);
        EXPECT_EQ(r.rc, 0) << r.err;
        std::vector<std::string> rows = lines_of(r.out);
        return rows.size() < 2 ? 0.0 : std::strtod(split_csv(rows[1]).at(9).c_str(), nullptr);
    };
    const double aligned = max_us("--aligned");
    EXPECT_GT(aligned, 0.0);
    EXPECT_GT(max_us(""), aligned * 1.2);
    expect_same_run(args + " --aligned --csv", "--fiberless", "", "gather");
}

TEST(UccSimTool, NetworkFile) {
    REQUIRE_TOOL();
    const std::string path = temp_path("net.conf");
    {
        std::ofstream f(path);
        f << "# two nodes of four ranks\n"
             "preset = eth100\n"
             "nodes = 2x4\n"
             "lat_intra = 250ns   # shared memory\n"
             "lat_inter = 2us\n"
             "bw_intra = 50GB/s\n"
             "bw_inter = 12.5GB/s\n"
             "o = 150ns\n"
             "g = 40ns\n";
    }
    Result r = run(tool() + " --network " + path + " -c barrier -i 1");
    ASSERT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("ranks=8"), std::string::npos) << r.out;  // -np from nodes x ppn
    EXPECT_NE(r.out.find("eth100,ppn=4,lat_intra=250ns,lat_inter=2us,bw_intra=50GB/s,"
                         "bw_inter=12.5GB/s,o_send=150ns,o_recv=150ns,g=40ns"),
              std::string::npos)
        << r.out;
    expect_closing_lines(r.out);
    // More ranks than the file's slots, and a bad line, are refused with exit code 2.
    EXPECT_EQ(run(tool() + " --network " + path + " -np 9").rc, 2);
    {
        std::ofstream f(path);
        f << "lat_inter = 2us\nbw_inter = fast\n";
    }
    Result bad = run(tool() + " --network " + path + " -np 4");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.out.find(path + ":2:"), std::string::npos) << bad.out;
    std::remove(path.c_str());
}

TEST(UccSimTool, Timeline) {
    REQUIRE_TOOL();
    const std::string path = temp_path("timeline.json");
    Result r = run(tool() + " -np 8 -c allreduce -b 1K -e 2K -i 1 --timeline " + path +
                   " --timeline-ranks 0-1,6");
    ASSERT_EQ(r.rc, 0) << r.out;
    const std::string t = read_file(path);
    EXPECT_EQ(t.rfind("{\"displayTimeUnit\"", 0), 0u);
    EXPECT_NE(t.find("\"traceEvents\":["), std::string::npos);
    EXPECT_NE(t.find("\"Collective name\":\"allreduce\""), std::string::npos);
    EXPECT_NE(t.find("\"args\":{\"name\":\"rank 6\"}"), std::string::npos);
    EXPECT_EQ(t.find("\"args\":{\"name\":\"rank 5\"}"), std::string::npos);
    EXPECT_EQ(t.substr(t.size() - 3), "]}\n");
    std::remove(path.c_str());
    // A rank list beyond -np is refused.
    EXPECT_EQ(run(tool() + " -np 4 -c barrier --timeline " + path + " --timeline-ranks 9").rc, 2);
}

TEST(UccSimTool, UsageErrors) {
    REQUIRE_TOOL();
    EXPECT_EQ(run(tool() + " --bogus").rc, 2);
    EXPECT_EQ(run(tool() + " -np 4 -c nosuchcoll").rc, 2);
    EXPECT_EQ(run(tool() + " -np 4 -b 1K -e 8").rc, 2);
    Result alg = run(tool() + " -np 4 -c allreduce --alg nosuchalg");
    EXPECT_EQ(alg.rc, 2);
    EXPECT_NE(alg.out.find("cannot run"), std::string::npos) << alg.out;
    Result help = run(tool() + " --help");
    EXPECT_EQ(help.rc, 0);
    EXPECT_NE(help.out.find("--program"), std::string::npos);
}

TEST(UccSimTool, SharedLibraryProgram) {
    REQUIRE_TOOL();
    std::string why;
    const std::string so =
        build_program(source_dir() + "/tools/examples/ucc_sim_hello.c", "hello.so", &why);
    if (so.empty() && why.rfind("no C compiler", 0) == 0) {
        GTEST_SKIP() << why;
    }
    ASSERT_FALSE(so.empty()) << why;
    Result r = run(tool() + " -np 16 --program " + so + " -- 100");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_NE(r.out.find("hello from rank 0 of 16: allreduce of 100 int32 verified"),
              std::string::npos)
        << r.out;
    expect_closing_lines(r.out);
    // No entry point: refused before any rank runs.
    EXPECT_EQ(run(tool() + " -np 2 --program /nonexistent/lib.so").rc, 2);
    std::remove(so.c_str());
}

TEST(UccSimTool, DeadlockReportComesBeforeTheClosingLines) {
    REQUIRE_TOOL();
    // Rank 1 skips the allreduce that the others wait in.
    const std::string src = temp_path("stuck.c");
    {
        std::ofstream f(src);
        f << "#include <ucc/sim/ucc_sim.h>\n"
             "#include <string.h>\n"
             "int ucc_sim_main(int argc, char **argv) {\n"
             "    ucc_lib_config_h cfg; ucc_lib_params_t lp; ucc_lib_h lib;\n"
             "    ucc_context_params_t cp; ucc_context_h ctx; ucc_team_params_t tp;\n"
             "    ucc_team_h team; ucc_coll_args_t a; ucc_coll_req_h req; ucc_status_t st;\n"
             "    (void)argc; (void)argv;\n"
             "    memset(&lp, 0, sizeof(lp)); memset(&cp, 0, sizeof(cp));\n"
             "    memset(&tp, 0, sizeof(tp)); memset(&a, 0, sizeof(a));\n"
             "    ucc_lib_config_read(NULL, NULL, &cfg);\n"
             "    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE; lp.thread_mode = UCC_THREAD_SINGLE;\n"
             "    if (ucc_init(&lp, cfg, &lib) != UCC_OK) return 1;\n"
             "    ucc_lib_config_release(cfg);\n"
             "    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB; ucc_sim_oob(&cp.oob);\n"
             "    if (ucc_context_create(lib, &cp, NULL, &ctx) != UCC_OK) return 1;\n"
             "    tp.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP |\n"
             "              UCC_TEAM_PARAM_FIELD_EP_RANGE;\n"
             "    tp.ep_map.type = UCC_EP_MAP_FULL; tp.ep_map.ep_num = ucc_sim_size();\n"
             "    tp.ep = ucc_sim_rank(); tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;\n"
             "    if (ucc_team_create_post(&ctx, 1, &tp, &team) != UCC_OK) return 1;\n"
             "    while ((st = ucc_team_create_test(team)) == UCC_INPROGRESS) {}\n"
             "    if (ucc_sim_rank() == 1) return 0;\n"
             "    a.coll_type = UCC_COLL_TYPE_BARRIER;\n"
             "    if (ucc_collective_init(&a, &req, team) != UCC_OK) return 1;\n"
             "    ucc_collective_post(req);\n"
             "    while ((st = ucc_collective_test(req)) == UCC_INPROGRESS)\n"
             "        ucc_context_progress(ctx);\n"
             "    ucc_collective_finalize(req);\n"
             "    return st == UCC_OK ? 0 : 1;\n"
             "}\n";
    }
    std::string why;
    const std::string so = build_program(src, "stuck.so", &why);
    std::remove(src.c_str());
    if (so.empty() && why.rfind("no C compiler", 0) == 0) {
        GTEST_SKIP() << why;
    }
    ASSERT_FALSE(so.empty()) << why;
    // The ranks return without releasing what they created, as a process that
    // gives up would: no leak check for this run (in sanitizer builds).
    Result r = run("ASAN_OPTIONS=detect_leaks=0 " + tool() + " -np 4 --program " + so);
    EXPECT_EQ(r.rc, 1) << r.out;
    const size_t report = r.out.find("DEADLOCK");
    const size_t closing = r.out.find("Simulated time: ");
    ASSERT_NE(report, std::string::npos) << r.out;
    ASSERT_NE(closing, std::string::npos) << r.out;
    EXPECT_LT(report, closing) << r.out;
    expect_closing_lines(r.out);
    std::remove(so.c_str());
}

}  // namespace

// --faults: the plan is printed, each injected fault is named, the rank that
// failed exits and its peers get an error (no deadlock); the same seed and
// plan replay the same run; a bad plan is a usage error naming the item.
TEST(UccSimTool, FaultsArePrintedInjectedAndReplayed) {
    REQUIRE_TOOL();
    const std::string cmd = tool() + " -np 8 -c allreduce -b 8 -e 1K -i 2 --no-progress --faults ";
    Result nomem = run(cmd + "nomem=3#12");
    EXPECT_EQ(nomem.rc, 1) << nomem.out;
    EXPECT_NE(nomem.out.find("ucc_sim: faults=nomem=3#12"), std::string::npos) << nomem.out;
    EXPECT_NE(nomem.out.find("rank 3: allocation 12 (collective.request) fails"), std::string::npos)
        << nomem.out;
    const size_t first = nomem.out.find("failed; first: rank 3: ");
    EXPECT_NE(first, std::string::npos) << nomem.out;
    EXPECT_NE(nomem.out.find("Out of memory", first), std::string::npos) << nomem.out;
    EXPECT_EQ(nomem.out.find("DEADLOCK"), std::string::npos) << nomem.out;
    Result a = run(cmd + "swarm --seed 5");
    Result b = run(cmd + "swarm --seed 5");
    EXPECT_NE(a.out.find("ucc_sim: faults="), std::string::npos) << a.out;
    EXPECT_EQ(a.out.find("DEADLOCK"), std::string::npos) << a.out;
    auto hash_line = [](const std::string &out) {
        const size_t at = out.find("trace hash");
        return at == std::string::npos ? std::string() : out.substr(at, 30);
    };
    EXPECT_FALSE(hash_line(a.out).empty()) << a.out;
    EXPECT_EQ(hash_line(a.out), hash_line(b.out));
    // Stalls and late OOB exchanges only delay: the sweep succeeds.
    Result late = run(cmd + "stall=2@1e-6:5e-5,oob=1#0:2e-5");
    EXPECT_EQ(late.rc, 0) << late.out;
    Result bad = run(cmd + "nomem=9#1");
    EXPECT_EQ(bad.rc, 2) << bad.out;
    EXPECT_NE(bad.out.find("nomem=<rank below 8>#<visit>"), std::string::npos) << bad.out;
}
