// Algorithm selection, as data: the built-in rules (by message size and team
// size), the TUNE strings of the reference's grammar on top of them, and the
// reference's algorithm names and ids mapped onto ours. The core selects
// through select_algorithm (lib/core/core.h); ucc_info prints these tables and
// explains a choice.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/coll/coll.h"
#include "lib/coll/patterns/pipeline.h"
#include "lib/coll/radix.h"
#include "lib/cost/cost.h"
#include "ucc/api/ucc.h"

namespace ucc::select {

class Memo;

// What selection looks at.
struct Query {
    ucc_coll_type_t type = UCC_COLL_TYPE_BARRIER;
    uint64_t count = 0;  // coll::Args::count
    uint64_t esize = 1;
    uint32_t team_size = 1;
    ucc_memory_type_t mem = UCC_MEMORY_TYPE_HOST;
    // Which ranks share a node, when the hierarchical algorithms may run
    // (coll::Args::topo); null otherwise.
    const coll::Topology *topo = nullptr;
    // The network reduces in its switches and every member is on a node of
    // its own (coll::Args::net_reduce).
    bool net_reduce = false;
    // The network as this team sees it (its ranks per node), when the
    // algorithm is chosen by predicted cost; null: by the built-in rules.
    const cost::Params *net = nullptr;
    // Where the cheapest predicted algorithms are remembered (memo.h);
    // null: predicted at every call.
    Memo *memo = nullptr;
    // The message size TUNE ranges compare: count x element size, times the
    // team size for collectives whose count is a per-rank block (allgather(v),
    // gather(v), scatter(v), alltoall(v), reduce_scatter(v)).
    uint64_t msgsize() const;
};

// The thresholds the built-in rules read (context configuration).
struct Thresholds {
    uint64_t allreduce_large_msg = 16384;
    uint64_t allgather_large_msg = 65536;
};

// A built-in rule: for `type`, `alg` when `match` holds; the first that
// holds decides, and a collective without rules takes its first algorithm.
struct AutoRule {
    ucc_coll_type_t type;
    const char *alg;
    const char *when;  // the condition in words, for ucc_info
    bool (*match)(const Thresholds &t, const Query &q);
};
std::span<const AutoRule> auto_rules();

// Every score a component starts with; a TUNE score replaces it.
constexpr uint32_t kDefaultScore = 10;
constexpr uint32_t kScoreInf = 0x7fffffff;
// CL/HIER's score where its built-in rules take a collective (UCC_CLS with
// hier), as the reference's: above every flat algorithm's.
constexpr uint32_t kHierScore = 50;

struct Range {
    uint64_t lo = 0;
    uint64_t hi = 0;
};

// One token of a TUNE string.
struct TuneRule {
    uint32_t colls = 0xffff;   // bit i: collective type 1 << i
    uint32_t mem_types = ~0u;  // bit per ucc_memory_type_t
    std::vector<Range> msg;    // [lo, hi) each; empty: every size
    std::vector<Range> teams;  // [lo, hi] each; empty: every team size
    bool has_score = false;
    uint32_t score = 0;
    // Per collective type (by bit), the algorithm '@' named (nullptr: none).
    const coll::Algorithm *alg[16] = {};
    bool has_alg = false;
    std::string source;  // the variable it came from, e.g. UCC_TL_UCP_TUNE
    std::string token;
    // From CL/HIER's string (UCC_CL_HIER_TUNE): '@' names and numbers the
    // hierarchical algorithms (the reference's CL/HIER ids), and a score
    // without '@' ranks CL/HIER against the flat algorithms: above
    // kDefaultScore its first algorithm runs, at or below it the flat choice.
    bool hier = false;

    bool matches(const Query &q) const;
};

// Whether TUNE strings from `source` (e.g. UCC_CL_HIER_TUNE) speak of the
// hierarchical algorithms.
bool is_hier_source(const std::string &source);

// Parses one TUNE string; on an error nothing is added and *error names the
// token. Tokens with neither a score nor an algorithm are ignored, as the
// reference ignores them.
ucc_status_t parse_tune(const std::string &source, const std::string &value,
                        std::vector<TuneRule> *out, std::string *error);

// Parses a radix variable's value (lib/coll/radix.h): "auto", a radix
// 2..64, or for a ranged one comma-separated [bytes-range:][memtypes:]value
// tokens ("0-4k:host:2,4k-inf:8"; a value alone is the default). On an
// error *error says why.
bool parse_radix(const std::string &value, bool ranged, coll::RadixSetting *out,
                 std::string *error);

// Parses a pipeline variable's value (cl/hier's <ALG>_PIPELINE, the
// reference's pipeline params): "n" (never), "auto" (never: the reference's
// divides by a fragment size of 0), or ':'-separated tokens thresh=UNITS,
// fragsize=UNITS, nfrags=N, pdepth=N and an order (parallel, ordered,
// sequential), each defaulting as the reference's (thresh=inf: never
// pipelined, fragsize=inf, nfrags=2, pdepth=2). On an error *error says why.
bool parse_pipeline(const std::string &value, coll::PipelineSetting *out, std::string *error);

// The reference's (tl/ucp's) algorithms: per collective, its id and name, and
// the algorithm of ours it maps onto.
struct ReferenceAlg {
    ucc_coll_type_t type;
    uint32_t id;
    const char *name;
    const char *ours;
};
std::span<const ReferenceAlg> reference_algs();

// The algorithm `name_or_id` names for `type`: one of ours by name, the
// reference's by name, or an id (the reference's ids where it has algorithms
// for `type`, our table's index otherwise). nullptr: none. `hier`: among the
// hierarchical algorithms only, ids counting them alone (CL/HIER's).
const coll::Algorithm *resolve_alg(ucc_coll_type_t type, const std::string &name_or_id,
                                   bool hier = false);
// The k-th hierarchical algorithm of `type` (CL/HIER's id k); nullptr: none.
const coll::Algorithm *hier_alg(ucc_coll_type_t type, uint32_t k);

// The outcome of a selection, with its reasons when asked for.
struct Choice {
    const coll::Algorithm *alg = nullptr;
    std::string error;  // why there is none
    std::string why;    // filled when explaining
};

// Selects: the forced algorithm (`forced`, from <COLL>_ALG); else, when
// q.net and `args` are given and every member has the same count, tl/sharp's
// rule where it holds, then the cheapest predicted algorithm (the
// hierarchical ones among them where cl/hier may run); else the first
// built-in rule that holds (cl/hier's
// and tl/sharp's first, as their scores put them); then every matching TUNE rule in
// order (an '@alg' replaces the algorithm, a score replaces the score; 0
// disables, and an algorithm that cannot run these arguments falls back to
// the built-in choice). `args` (may be null) is asked whether the
// algorithm supports them.
Choice choose(const Query &q, const Thresholds &t, const std::string *forced,
              std::span<const TuneRule> rules, const coll::Args *args, bool explain);

// Selection by predicted cost applies: the network is known, the arguments
// are at hand, and every member passes the same count (not a v collective,
// whose counts differ by rank: each would predict for its own).
bool by_cost(const Query &q, const coll::Args *args);
// An algorithm of a component that ranks above the host algorithms
// (tl/sharp, cl/hier).
bool above_host(const coll::Algorithm &a);
// Whether `a` competes by predicted cost (cheapest) rather than by its
// built-in rule: a host algorithm or a hierarchical one (each has a formula
// wherever it runs). tl/sharp's rule comes first, as its score puts it above
// every host algorithm.
bool by_cost_among(const coll::Algorithm &a);

// "ALLREDUCE_ALG" for UCC_COLL_TYPE_ALLREDUCE: the variable that forces the
// collective's algorithm.
const std::string &alg_var(ucc_coll_type_t t);

// The cheapest predicted two-sided algorithm of a host component or of
// cl/hier that runs `args` on q.team_size ranks of network *q.net (nullptr:
// none with a formula does); ties go to the first in the table. A
// hierarchical one runs them only where cl/hier may (args.topo over
// several nodes). Predicted
// without the in-place flag, which members may pass differently (a rooted
// collective's root alone): every member must choose alike. `why`, when
// given, gets the figures; else q.memo, when given, answers what it has
// seen and remembers the rest.
const coll::Algorithm *cheapest(const Query &q, const coll::Args &args, std::string *why);

}  // namespace ucc::select
