// Test kit: run one collective scenario through the real C API on the
// simulated cluster and check every rank's memory against model/.
//
// Buffers of all ranks are allocated up front, with guard bytes on both sides;
// the model's expected writes are computed before the run; after it, every
// byte of every allocation (guards, src and non-root dst included) must equal
// the expected image.
//
// A second entry point, run_init_only(), creates the team on every rank and
// calls ucc_collective_init with arbitrary (possibly invalid) per-rank args,
// reporting each rank's status for comparison with model/validity.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace ucc::testkit {

// Every collective type, in bit order.
inline constexpr ucc_coll_type_t kAllCollTypes[] = {
    UCC_COLL_TYPE_ALLGATHER,      UCC_COLL_TYPE_ALLGATHERV,      UCC_COLL_TYPE_ALLREDUCE,
    UCC_COLL_TYPE_ALLTOALL,       UCC_COLL_TYPE_ALLTOALLV,       UCC_COLL_TYPE_BARRIER,
    UCC_COLL_TYPE_BCAST,          UCC_COLL_TYPE_FANIN,           UCC_COLL_TYPE_FANOUT,
    UCC_COLL_TYPE_GATHER,         UCC_COLL_TYPE_GATHERV,         UCC_COLL_TYPE_REDUCE,
    UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_SCATTER,
    UCC_COLL_TYPE_SCATTERV};

struct Scenario {
    uint32_t n = 4;
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;
    ucc_datatype_t dt = UCC_DT_INT32;
    ucc_reduction_op_t op = UCC_OP_SUM;
    uint64_t count = 16;  // vector length (allreduce/reduce/bcast) or block length
    uint32_t root = 0;
    bool inplace = false;
    std::string alg = "auto";  // value of <COLL>_ALG
    std::string select;        // UCC_SELECT ("": the default, cost)
    // UCC_CLS ("": "basic,hier" when `alg` is a hierarchical algorithm of
    // `type`, the default otherwise).
    std::string cls;
    uint32_t radix = 4;
    uint64_t reduce_chunk = 0;  // REDUCE_CHUNK in bytes; 0: the default
    int64_t segment = -1;       // BCAST_SEGMENT and REDUCE_SEGMENT in bytes; -1: the defaults
    uint64_t seed = 1;
    std::string network = "hdr";
    uint32_t posts = 1;        // > 1: persistent request re-posted with new inputs
    bool team_ep_map = false;  // create the team from the context (FULL ep map) instead of an OOB
    uint64_t value_seed = 7;   // input data
    // Every buffer description whose count is 0 gets a NULL buffer pointer (P12);
    // buffers with a non-zero count keep their real allocation.
    bool null_buffers = false;
    // The first post goes through ucc_collective_init_and_post instead of
    // ucc_collective_init + ucc_collective_post (re-posts use ucc_collective_post).
    bool init_and_post = false;
    // Before each post, rank r computes for a pseudo-random virtual time in
    // [0, skew_ps] picoseconds (a function of seed, r and the post), so
    // ranks post at different times.
    uint64_t skew_ps = 0;
    // Reduce: non-roots pass a real dst buffer of `count` elements, which must
    // stay unchanged (P6); otherwise they pass NULL with count 0.
    bool reduce_nonroot_dst = false;
    // In place, a src the rank does not use (model/layout.h: every type but
    // bcast, and for rooted types only at the root) holds poison -- an unmapped
    // address, count UINT64_MAX and an invalid datatype (P23).
    bool poison_inplace_src = false;
    // v-collectives: 64-bit count / displacement arrays (flags COUNT_64BIT,
    // DISPLACEMENTS_64BIT); 32-bit entries otherwise.
    bool wide_counts = false;
    bool wide_displs = false;
    // The team is created with UCC_SYNC_COLLECTIVES (P14, P15).
    bool sync = false;
    // Keep the event trace (Outcome::run.trace) for model/trace.h's checkers.
    bool record_events = false;
    // Active set (UCC_COLL_ARGS_FIELD_ACTIVE_SET): only the members, team ranks
    // (as_start + i*as_stride) mod n for i < as_size, call; the collective is
    // laid out as on a team of as_size ranks numbered by set position i (block
    // layouts, v-arrays, in-place offsets). `root` stays a team rank and must
    // be a member. Non-members' buffers are allocated and must stay unchanged.
    bool active_set = false;
    uint64_t as_start = 0;
    int64_t as_stride = 1;
    uint64_t as_size = 0;
    int64_t tag = -1;  // >= 0: UCC_COLL_ARGS_FIELD_TAG with this tag
};

// One collective's per-rank buffers (guarded) and arguments for s.n
// participants, with the model's expected memory after each of s.posts posts:
// what run_scenario runs, for harnesses that run several collectives at once
// (tests/common/workload.h).
class PreparedColl {
  public:
    explicit PreparedColl(const Scenario &s);
    ~PreparedColl();
    PreparedColl(const PreparedColl &) = delete;
    PreparedColl &operator=(const PreparedColl &) = delete;
    // Non-empty when the model refused the scenario (then nothing else is valid).
    const std::string &failure() const;
    // Participant r's arguments (buffers stay where they are for the object's life).
    ucc_coll_args_t &args(uint32_t r);
    // Before re-posting a persistent request: participant r's inputs of post `post`.
    void refill(uint32_t r, uint32_t post);
    // After post `post` completed on r: "" when r's memory equals the model's.
    std::string check(uint32_t r, uint32_t post) const;
    std::vector<uint8_t> dst_bytes(uint32_t r) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Members of the scenario's collective in set order: the active set, or every
// team rank. Empty for an invalid set.
std::vector<uint32_t> members_of(const Scenario &s);
// Whether team rank r takes part in the scenario's collective.
bool is_member(const Scenario &s, uint32_t r);
// Whether the algorithm the scenario forces (a flat one of its type's table)
// can run it on its members: false where its supports() refuses (allgather
// neighbor on an odd team), and the library would refuse the forced choice.
// True for "auto" and the hierarchical ones (those fall back by themselves).
bool alg_can_run(const Scenario &s);

struct Outcome {
    std::string failure;  // empty on success
    sim::RunResult run;
    std::vector<std::vector<uint8_t>> dst;  // every rank's dst bytes after the last post
                                            // (non-members of an active set: untouched)
    // Virtual times (seconds, each rank's own clock) indexed [post][rank]:
    // right before ucc_collective_post (or init_and_post), and right after
    // ucc_collective_test first returned something other than UCC_INPROGRESS.
    // Entries of posts a rank never reached (and of non-members) are -1.
    std::vector<std::vector<double>> post_s;
    std::vector<std::vector<double>> done_s;

    // The longest any rank took from its post `post` to its completion.
    double slowest_s(size_t post = 0) const {
        double t = 0;
        for (size_t r = 0; r < done_s.at(post).size(); ++r) {
            t = std::max(t, done_s[post][r] - post_s[post][r]);
        }
        return t;
    }
    // From the last rank's post `post` to the last completion: the
    // collective's own time, what the cost formulas predict.
    double span_s(size_t post = 0) const {
        double first = 0;
        double last = 0;
        for (size_t r = 0; r < done_s.at(post).size(); ++r) {
            first = std::max(first, post_s[post][r]);
            last = std::max(last, done_s[post][r]);
        }
        return last - first;
    }
};

// ---- one rank's lib, context and team (for tests that drive the C API themselves)

struct RankEnv {
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    // P37, set by setup(): a call that failed yet wrote its handle, or during
    // which the simulator failed an allocation (faults.h) but that did not
    // return UCC_ERR_NO_MEMORY. Empty when none.
    std::string defect;
};

struct EnvParams {
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;  // whose <COLL>_ALG is set
    std::string alg;                                 // empty: leave the default
    std::string select;                              // SELECT; empty: leave the default
    uint32_t radix = 0;                              // 0: leave the default
    uint64_t reduce_chunk = 0;                       // REDUCE_CHUNK; 0: leave the default
    int64_t segment = -1;      // BCAST_SEGMENT and REDUCE_SEGMENT; -1: leave the defaults
    bool team_ep_map = false;  // team from a FULL ep map instead of the team OOB
    bool unordered = false;    // UCC_COLLECTIVE_POST_UNORDERED
    bool sync = false;         // team created with UCC_SYNC_COLLECTIVES
    std::string log_level;     // context LOG_LEVEL; empty: the default
    std::string cls;           // library CLS; empty: the default
};

// Inside a simulated rank: creates lib, context (OOB over all n ranks) and a
// team of all ranks; "" on success, else what failed (whatever was created is
// left in env for teardown()).
std::string setup(const EnvParams &p, uint32_t rank, uint32_t n, RankEnv *env);
// The event trace's P37 mark (UserMark::kCallReturned): the program's call on
// a context or team returned `st`. setup() marks each of its creates.
void mark_call_returned(ucc_status_t st);
// Destroys whatever setup() created; "" on success.
std::string teardown(RankEnv *env);

// The UCC_CLS a scenario runs with ("": the default).
std::string scenario_cls(const Scenario &s);

// Human-readable one-line description (printed with failures).
std::string describe(const Scenario &s);

// Runs the scenario and checks it against the model; `failure` says what differed.
Outcome run_scenario(const Scenario &s);

// Whether the datatype/op/team size combination has exactly representable results
// for the generated inputs (always true for integers).
bool coll_has_reduction(ucc_coll_type_t t);

// ---- init only (argument validation, CONFORMANCE P45, model/VALIDITY.md)

struct InitCase {
    uint32_t n = 4;
    bool team_ep_map = false;  // as Scenario::team_ep_map
    bool unordered = false;    // team created with UCC_COLLECTIVE_POST_UNORDERED
    bool quiet = true;         // context LOG_LEVEL=FATAL: no error lines for rejected args
    std::string network = "ideal";
    uint64_t seed = 1;
    // Argument sets, each what every rank passes to ucc_collective_init (size
    // n); the ranks initialise every set in turn on the same team (one team
    // creation for many cases). Pointers inside (buffers, counts and
    // displacement arrays) belong to the caller and must stay valid during
    // run_init_only. The kit passes a private copy of each rank's args, so
    // the library cannot change the caller's.
    std::vector<std::vector<ucc_coll_args_t>> sets;
};

struct InitOutcome {
    std::string failure;  // setup/teardown problems (not init statuses); empty if clean
    sim::RunResult run;
    // [set][rank]: ucc_collective_init's result, and false when it returned
    // UCC_OK without handing back a request. A returned request is finalized
    // without being posted.
    std::vector<std::vector<ucc_status_t>> status;
    std::vector<std::vector<bool>> request_ok;
};

// Creates lib, context and team on every rank, calls ucc_collective_init with
// each set's args[rank], finalizes each request it got, and tears down.
InitOutcome run_init_only(const InitCase &c);

// "1", "2", "pow2", "prime", "non-pow2" (prime wins over non-pow2; 2 is its own class).
const char *team_size_class(uint32_t n);

// Short collective name ("allreduce", ...; "other" for the types the kit does not run).
const char *coll_name(ucc_coll_type_t t);

// 64-bit FNV-1a of a string (config hashes printed with failures).
uint64_t fnv1a(const std::string &s);

}  // namespace ucc::testkit
