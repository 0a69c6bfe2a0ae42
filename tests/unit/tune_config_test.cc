// TUNE strings (the reference's grammar) and their selection, configuration
// files and component names of variables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/core/core.h"
#include "lib/core/transport_select.h"
#include "lib/select/select.h"
#include "ucc/sim/ucc_sim.h"

namespace {

using ucc::select::Query;
using ucc::select::TuneRule;

std::vector<TuneRule> parse(const std::string &s, ucc_status_t want = UCC_OK) {
    std::vector<TuneRule> rules;
    std::string error;
    EXPECT_EQ(ucc::select::parse_tune("UCC_TL_UCP_TUNE", s, &rules, &error), want) << s << error;
    return rules;
}

const char *chosen(const std::vector<TuneRule> &rules, ucc_coll_type_t t, uint64_t bytes,
                   uint32_t n) {
    Query q{t, bytes, 1, n, UCC_MEMORY_TYPE_HOST};
    ucc::select::Choice c = ucc::select::choose(q, {}, nullptr, rules, nullptr, false);
    return c.alg != nullptr ? c.alg->name : "none";
}

TEST(Tune, ReferenceDefaultStringMapsOntoOurAlgorithms) {
    auto rules = parse("allreduce:0-4k:@0#allreduce:4k-inf:@1");
    ASSERT_EQ(rules.size(), 2u);
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 4095, 16), "knomial");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 4096, 2), "sra_knomial");
    // Other collectives keep the built-in choice.
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_BARRIER, 0, 16), "dissemination");
}

// UCC_CL_HIER_TUNE: ids and names of the hierarchical algorithms (CL/HIER's
// own), and scores that rank CL/HIER against the flat algorithms, on a team
// over 4 nodes of 4 ranks.
TEST(Tune, ClHierStringSpeaksOfTheHierarchicalAlgorithms) {
    auto hier = [](const std::string &s) {
        std::vector<TuneRule> rules;
        std::string error;
        EXPECT_EQ(ucc::select::parse_tune("UCC_CL_HIER_TUNE", s, &rules, &error), UCC_OK) << error;
        return rules;
    };
    const ucc::coll::Topology topo = ucc::coll::Topology::regular(16, 0, 4);
    auto pick = [&](const std::vector<TuneRule> &rules, uint64_t bytes) {
        Query q{UCC_COLL_TYPE_ALLREDUCE, bytes, 1, 16, UCC_MEMORY_TYPE_HOST, &topo};
        ucc::select::Choice c = ucc::select::choose(q, {}, nullptr, rules, nullptr, false);
        return std::string(c.alg != nullptr ? c.alg->name : "none");
    };
    EXPECT_EQ(pick({}, 64), "rab");  // the built-in rule: below 4 KiB
    EXPECT_EQ(pick({}, 65536), "rabenseifner");
    EXPECT_EQ(pick(hier("allreduce:@1"), 64), "split_rail");
    EXPECT_EQ(pick(hier("allreduce:@SPLIT_RAIL"), 64), "split_rail");
    EXPECT_EQ(pick(hier("allreduce:0-inf:inf"), 65536), "rab");            // CL/HIER above basic
    EXPECT_EQ(pick(hier("allreduce:0-inf:5"), 64), "recursive_doubling");  // below it
    EXPECT_EQ(pick(hier("allreduce:0"), 64), "recursive_doubling");  // 0: CL/HIER off, not the coll
    // The tl/ucp string's ids are tl/ucp's: @1 is not split_rail there. At
    // tl/ucp's score it ranks below CL/HIER's choice (the reference's score
    // map: 10 against 50); with a higher score it wins.
    EXPECT_EQ(pick(parse("allreduce:@1"), 64), "rab");
    EXPECT_EQ(pick(parse("allreduce:@1:inf"), 64), "sra_knomial");
    EXPECT_EQ(pick(parse("allreduce:@1:51"), 64), "sra_knomial");
    EXPECT_EQ(pick(parse("allreduce:@1:50"), 64), "rab");
    std::vector<TuneRule> rules;
    std::string error;
    EXPECT_EQ(ucc::select::parse_tune("UCC_CL_HIER_TUNE", "allreduce:@ring", &rules, &error),
              UCC_ERR_INVALID_PARAM);  // not one of CL/HIER's
}

// The reference's tl/ucp names and ids of bcast, reduce and allgather run
// algorithms of the same shape here; neighbor runs on an odd team too (as
// the ring).
TEST(Tune, ReferenceTreeAndExchangeAlgorithmsRunThemselves) {
    auto rules = parse(
        "bcast:0-64k:@sag_knomial#bcast:64k-inf:@2#reduce:0-64k:@1#"
        "reduce:64k-inf:@srg#allgather:@neighbor");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_BCAST, 100, 8), "sag_knomial");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_BCAST, 1 << 20, 8), "dbt");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_REDUCE, 100, 8), "dbt");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_REDUCE, 1 << 20, 8), "srg");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLGATHER, 1 << 20, 8), "neighbor");
    EXPECT_STREQ(ucc::select::resolve_alg(UCC_COLL_TYPE_BCAST, "1")->name, "sag_knomial");
    EXPECT_STREQ(ucc::select::resolve_alg(UCC_COLL_TYPE_REDUCE, "2")->name, "srg");
    EXPECT_STREQ(ucc::select::resolve_alg(UCC_COLL_TYPE_ALLGATHER, "2")->name, "neighbor");
    ucc::coll::Args odd;
    odd.type = UCC_COLL_TYPE_ALLGATHER;
    odd.count = 1 << 20;
    Query q{UCC_COLL_TYPE_ALLGATHER, odd.count, 1, 7, UCC_MEMORY_TYPE_HOST};
    ucc::select::Choice c = ucc::select::choose(q, {}, nullptr, rules, &odd, false);
    ASSERT_NE(c.alg, nullptr);
    EXPECT_STREQ(c.alg->name, "neighbor");
}

TEST(Tune, FieldsInAnyOrderAndEveryKind) {
    auto rules = parse("[2-4,8]:@ring:host:allgather,allreduce:64-inf:20");
    ASSERT_EQ(rules.size(), 1u);
    const TuneRule &r = rules[0];
    EXPECT_TRUE(r.has_score);
    EXPECT_EQ(r.score, 20u);
    ASSERT_EQ(r.teams.size(), 2u);
    EXPECT_EQ(r.teams[1].lo, 8u);
    EXPECT_STREQ(r.alg[__builtin_ctz(UCC_COLL_TYPE_ALLREDUCE)]->name, "ring");
    EXPECT_EQ(r.alg[__builtin_ctz(UCC_COLL_TYPE_BCAST)], nullptr);
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 64, 8), "ring");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 64, 5), "recursive_doubling");
    // alltoall has no "ring": naming it with that algorithm is an error.
    parse("alltoall:@ring", UCC_ERR_INVALID_PARAM);
}

TEST(Tune, ScoresDisableAndTokensWithoutEffectAreSkipped) {
    auto rules = parse("bcast:0#allreduce:0-4k#barrier:inf");
    ASSERT_EQ(rules.size(), 2u);  // "allreduce:0-4k" has neither score nor algorithm
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_BCAST, 8, 4), "none");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_BARRIER, 0, 4), "dissemination");
}

TEST(Tune, RangesAreHalfOpenAndTeamRangesInclusive) {
    auto rules = parse("allreduce:100-200:[4]:@ring");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 99, 4), "recursive_doubling");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 100, 4), "ring");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 199, 4), "ring");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 200, 4), "recursive_doubling");
    EXPECT_STREQ(chosen(rules, UCC_COLL_TYPE_ALLREDUCE, 150, 5), "recursive_doubling");
}

TEST(Tune, MalformedStringsAreRejectedWhole) {
    for (const char *bad : {"allreduce:4k-0:@ring", "allreduce:@nosuch", "allreduce:bcast:1",
                            "allreduce:1:2", "[4-2]:1", "allreduce:0-1-2:1", "cuda,hostx:1",
                            "allreduce:[x]:1", "allreduce:@", "xyz"}) {
        std::vector<TuneRule> rules;
        std::string error;
        EXPECT_EQ(ucc::select::parse_tune("UCC_TUNE", bad, &rules, &error), UCC_ERR_INVALID_PARAM)
            << bad;
        EXPECT_TRUE(rules.empty()) << bad;
        EXPECT_NE(error.find("failed to parse token"), std::string::npos) << error;
    }
    // Empty pieces are skipped, as the reference's tokenizer skips them.
    EXPECT_EQ(parse("#allreduce::@1#").size(), 1u);
}

TEST(Tune, MessageSizeIsTheTotalForBlockCollectives) {
    Query q{UCC_COLL_TYPE_ALLGATHER, 10, 4, 8, UCC_MEMORY_TYPE_HOST};
    EXPECT_EQ(q.msgsize(), 320u);
    q.type = UCC_COLL_TYPE_BCAST;
    EXPECT_EQ(q.msgsize(), 40u);
}

struct EnvVar {
    EnvVar(const char *n, const char *v) : name(n) { setenv(n, v, 1); }
    ~EnvVar() { unsetenv(name); }
    const char *name;
};

TEST(ConfigFile, ReadsTheReferenceSyntaxAndRejectsMalformedLines) {
    const std::string path = testing::TempDir() + "ucc_cfg_test.conf";
    FILE *f = std::fopen(path.c_str(), "w");
    std::fputs(
        "# comment\n; comment\nUCC_KNOMIAL_RADIX = 8\nUCC_TL_UCP_TUNE: bcast:0 ; x\n"
        "[team_size=4 ppn=2]\nUCC_KNOMIAL_RADIX=2\n",
        f);
    std::fclose(f);
    EnvVar file("UCC_CONFIG_FILE", path.c_str());
    ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(c.load(nullptr), UCC_OK);
    EXPECT_EQ(c.get("KNOMIAL_RADIX"), "8");  // the section's value is not applied
    ASSERT_EQ(c.settings("TUNE").size(), 1u);
    EXPECT_EQ(c.settings("TUNE")[0].source, "UCC_TL_UCP_TUNE");
    EXPECT_EQ(c.settings("TUNE")[0].value, "bcast:0");
    {
        EnvVar env("UCC_KNOMIAL_RADIX", "16");  // the environment wins
        ucc::core::Config e(ucc::core::context_config_table(), "UCC_");
        ASSERT_EQ(e.load(nullptr), UCC_OK);
        EXPECT_EQ(e.get("KNOMIAL_RADIX"), "16");
    }
    for (const char *bad : {"UCC_KNOMIAL_RADIX\n", "UCC_A=1\nUCC_A=2\n", "[colour=red]\n",
                            "KNOMIAL_RADIX=4\n", "UCC_KNOMIAL_RADIX=99\n"}) {
        f = std::fopen(path.c_str(), "w");
        std::fputs(bad, f);
        std::fclose(f);
        ucc::core::Config b(ucc::core::context_config_table(), "UCC_");
        EXPECT_EQ(b.load(nullptr), UCC_ERR_INVALID_PARAM) << bad;
    }
    std::remove(path.c_str());
}

// A context's configuration takes the file its library read (looked for and
// read once per library, as the reference reads it once per process): a
// million simulated ranks make no file-system calls for their contexts.
TEST(ConfigFile, AContextTakesTheFileItsLibraryRead) {
    const std::string path = testing::TempDir() + "ucc_cfg_lib_test.conf";
    FILE *f = std::fopen(path.c_str(), "w");
    std::fputs("UCC_KNOMIAL_RADIX = 6\nUCC_LOG_LEVEL = info\n", f);
    std::fclose(f);
    ucc::core::Config lib(ucc::core::lib_config_table(), "UCC_");
    {
        EnvVar file("UCC_CONFIG_FILE", path.c_str());
        ASSERT_EQ(lib.load(nullptr), UCC_OK);
    }
    std::remove(path.c_str());  // gone, and no longer named: the library's lines still count
    ucc::core::Config ctx(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(ctx.load(nullptr, &lib), UCC_OK);
    EXPECT_EQ(ctx.get("KNOMIAL_RADIX"), "6");
    EXPECT_EQ(ctx.file(), path);
    ucc::core::Config fresh(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(fresh.load(nullptr), UCC_OK);
    EXPECT_NE(fresh.get("KNOMIAL_RADIX"), "6");
}

// The ranks of one simulation look for and read the configuration file once
// (a million ranks each calling ucc_lib_config_read made three stat calls
// and a dladdr apiece), as one process of the reference reads it once: a
// rank that reads after the file changed still gets what the run read. A
// rank that names another file (UCC_CONFIG_FILE changed) gets that one.
struct ShareRun {
    std::string path;
    std::string other;  // set UCC_CONFIG_FILE to it from rank `switch_at`
    uint32_t switch_at = UINT32_MAX;
    std::vector<std::string> radix;  // per rank
};

void read_radix(void *arg) {
    auto *run = static_cast<ShareRun *>(arg);
    const uint32_t r = ucc_sim_rank();
    if (r == run->switch_at) {
        setenv("UCC_CONFIG_FILE", run->other.c_str(), 1);
    }
    ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
    if (c.load(nullptr, nullptr, ucc::core::run_share_slot()) !=
        UCC_OK) {  // as ucc_lib_config_read
        return;
    }
    run->radix[r] = c.get("KNOMIAL_RADIX");
    if (r == 0) {  // the file changes under the run
        FILE *f = std::fopen(run->path.c_str(), "w");
        std::fputs("UCC_KNOMIAL_RADIX = 7\n", f);
        std::fclose(f);
    }
}

TEST(ConfigFile, TheRanksOfOneSimulationReadItOnce) {
    ShareRun run;
    run.path = testing::TempDir() + "ucc_cfg_share_test.conf";
    run.other = testing::TempDir() + "ucc_cfg_share_other.conf";
    auto write = [](const std::string &path, const char *text) {
        FILE *f = std::fopen(path.c_str(), "w");
        std::fputs(text, f);
        std::fclose(f);
    };
    write(run.other, "UCC_KNOMIAL_RADIX = 9\n");
    ucc_sim_params_t p;
    std::memset(&p, 0, sizeof(p));
    p.mask = UCC_SIM_PARAM_FIELD_N_RANKS | UCC_SIM_PARAM_FIELD_FLAGS;
    p.n_ranks = 4;
    p.flags = UCC_SIM_FLAG_QUIET;
    {
        write(run.path, "UCC_KNOMIAL_RADIX = 6\n");
        EnvVar file("UCC_CONFIG_FILE", run.path.c_str());
        run.radix.assign(4, "");
        ASSERT_EQ(ucc_sim_run(&p, read_radix, &run), UCC_OK);
        EXPECT_EQ(run.radix, std::vector<std::string>(4, "6"));
        // Outside a simulation every read looks again.
        ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
        ASSERT_EQ(c.load(nullptr), UCC_OK);
        EXPECT_EQ(c.get("KNOMIAL_RADIX"), "7");
    }
    {
        write(run.path, "UCC_KNOMIAL_RADIX = 6\n");
        EnvVar file("UCC_CONFIG_FILE", run.path.c_str());
        run.radix.assign(4, "");
        run.switch_at = 2;
        ASSERT_EQ(ucc_sim_run(&p, read_radix, &run), UCC_OK);
        EXPECT_EQ(run.radix, (std::vector<std::string>{"6", "6", "9", "9"}));
    }
    std::remove(run.path.c_str());
    std::remove(run.other.c_str());
}

TEST(ConfigFile, MissingFileNamedByTheVariableIsNotFatal) {
    EnvVar file("UCC_CONFIG_FILE", "/nonexistent/ucc.conf");
    ucc::core::Config c(ucc::core::lib_config_table(), "UCC_");
    EXPECT_EQ(c.load(nullptr), UCC_OK);
    EXPECT_TRUE(c.file().empty());
}

TEST(ConfigEnv, ComponentNamesSetTheVariableAndEveryTuneCounts) {
    EnvVar a("UCC_TL_UCP_NPOLLS", "7");
    EnvVar b("UCC_TUNE", "allreduce:@ring");
    EnvVar t("UCC_CL_BASIC_TUNE", "bcast:0");
    ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
    ASSERT_EQ(c.load(nullptr), UCC_OK);
    EXPECT_EQ(c.get("NPOLLS"), "7");
    EXPECT_EQ(c.settings("TUNE").size(), 2u);
    ucc::core::Tuning tuning;
    ucc::core::load_tuning(c, ucc::core::Logger(), &tuning);
    EXPECT_EQ(tuning.rules.size(), 2u);
}

// One pass over the environment: per variable the generic name first, then
// the components in their order (the last wins), whatever order the
// environment holds them in; variables nobody set read their defaults.
TEST(ConfigEnv, ComponentFormsWinOverTheGenericNameInAnyEnvironmentOrder) {
    for (bool generic_first : {true, false}) {
        std::unique_ptr<EnvVar> first, second;
        if (generic_first) {
            first = std::make_unique<EnvVar>("UCC_KNOMIAL_RADIX", "3");
            second = std::make_unique<EnvVar>("UCC_TL_UCP_KNOMIAL_RADIX", "8");
        } else {
            first = std::make_unique<EnvVar>("UCC_TL_UCP_KNOMIAL_RADIX", "8");
            second = std::make_unique<EnvVar>("UCC_KNOMIAL_RADIX", "3");
        }
        EnvVar later("UCC_TL_SELF_KNOMIAL_RADIX", "5");  // TL_SELF comes after TL_UCP
        EnvVar other("UCC_NOT_A_VARIABLE_AT_ALL", "1");
        ucc::core::Config c(ucc::core::context_config_table(), "UCC_");
        ASSERT_EQ(c.load(nullptr), UCC_OK);
        EXPECT_EQ(c.get("KNOMIAL_RADIX"), "5") << generic_first;
        EXPECT_TRUE(c.is_set("KNOMIAL_RADIX"));
        EXPECT_FALSE(c.is_set("NPOLLS"));
        EXPECT_EQ(c.get("NPOLLS"), "10");  // the table's default
    }
    // Defaults come from the table, and a released configuration holds nothing.
    ucc::core::Config d(ucc::core::lib_config_table(), "UCC_");
    for (const ucc::core::ConfigVar &v : d.table()) {
        EXPECT_EQ(d.get(v.name), v.default_value) << v.name;
    }
    EXPECT_EQ(d.modify("LOG_LEVEL", "info"), UCC_OK);
    EXPECT_EQ(d.get("LOG_LEVEL"), "info");
    d.release();
    EXPECT_TRUE(d.prefix().empty());
}

TEST(ConfigEnv, EditDistanceFindsTheClosestName) {
    EXPECT_EQ(ucc::core::edit_distance("UCC_ALLREDUCE_ALGO", "UCC_ALLREDUCE_ALG"), 1u);
    EXPECT_EQ(ucc::core::edit_distance("", "abc"), 3u);
    EXPECT_EQ(ucc::core::edit_distance("kitten", "sitting"), 3u);
}

}  // namespace
