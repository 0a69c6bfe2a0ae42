// Test kit: a workload of many collectives on several (overlapping) teams,
// run through the real C API on the simulated cluster with the event trace
// recorded, every completed post checked against the model.
//
// Each rank: lib and context (OOB over all ranks); then `cycles` times:
// create the teams it belongs to (in team order, one at a time), run its share
// of the ops, destroy its teams (in a rank-dependent order). Within a cycle a
// rank keeps at most `window` requests outstanding (0: posts all, then waits);
// ops of a team are posted in op order (unordered teams: in a rank-dependent
// order when `shuffle` is set), persistent ops are re-posted with new inputs
// after each completion, callbacks count their calls (and may finalize the
// request from inside). The program marks the trace with what it does (first
// successful test, freeze/thaw, calls on destroyed handles) for the checkers
// of model/trace.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "transports/sim/cluster.h"

namespace ucc::testkit {

struct WorkloadTeam {
    std::vector<uint32_t> members;  // world ranks, ascending; team rank = position
    bool unordered = false;         // UCC_COLLECTIVE_POST_UNORDERED (ops carry tags)
    bool sync = false;              // UCC_SYNC_COLLECTIVES
    // Its triggered ops go through a UCC_EE_CUDA_STREAM engine (a simulated
    // stream per team and rank, lib/core/sim_stream.h): each starts when the
    // one triggered before it on the stream ended, and the event the rank
    // sets triggers nothing. Ordered teams only: members that queued their
    // collectives in different orders would wait on each other for ever.
    bool stream_engine = false;
};

struct WorkloadOp {
    uint32_t team = 0;
    // What runs: type, datatype, op, count, root (team rank), in place, posts
    // (> 1: persistent), value seed, active set (then only its members call,
    // with `tag` as the active set's tag). `n` is set to the team's size.
    Scenario coll;
    bool callback = false;        // UCC_COLL_ARGS_FIELD_CB
    bool finalize_in_cb = false;  // the callback finalizes the request (single post only)
    double timeout = 0;           // > 0: UCC_COLL_ARGS_FLAG_TIMEOUT with this many seconds
    uint16_t tag = 0;             // unordered teams: distinct per op of a team
    // Posted through a CPU execution engine of its team (one per team and
    // rank): ucc_collective_triggered_post, the rank's skew, then
    // ucc_ee_set_event; after each completion the rank takes one event from
    // the engine (ucc_ee_get_event and ack, or ucc_ee_wait, alternately).
    bool triggered = false;
};

struct Workload {
    uint32_t n = 4;
    uint64_t seed = 1;
    std::string network = "hdr";
    std::string cls;  // UCC_CLS ("": the default)
    // Context settings (name, value), e.g. {"ALLREDUCE_ALG", "split_rail"}.
    std::vector<std::pair<std::string, std::string>> config;
    std::vector<WorkloadTeam> teams;
    std::vector<WorkloadOp> ops;
    uint32_t window = 0;
    bool shuffle = false;  // needs window 0 (ranks would wait on different ops otherwise)
    uint64_t skew_ps = 0;  // before each post, the rank computes for up to this long
    // P22: after its first completed op, this rank stops calling the library
    // until every other member of that op has completed it.
    int32_t freeze_rank = -1;
    // P39/P40: this rank posts its first op this late (ops then need timeouts).
    int32_t late_rank = -1;
    uint64_t late_ps = 0;
    uint32_t cycles = 1;
    // P36: after its teardown each rank calls into its destroyed team and context.
    bool probe_use_after_destroy = false;
    // P47: each rank drives its context from this many threads
    // (UCC_THREAD_MULTIPLE, sim::run_threads, interleaved by the seed); the
    // ops of team t run on thread t % threads. 0: the rank's own fiber runs
    // everything. No freeze_rank with threads.
    uint32_t threads = 0;
    // Op i runs on thread i % threads instead: threads then post on one
    // ordered team in an order that depends on the interleaving, a user
    // error (ucc#979) that the checkers must report.
    bool share_teams = false;
};

struct WorkloadOutcome {
    std::string failure;  // empty: every rank ran its program and every OK post matched the model
    sim::RunResult run;   // run.trace: the event trace
    uint64_t posts_ok = 0;
    uint64_t posts_failed = 0;  // completed with an error (timeouts)
};

WorkloadOutcome run_workload(const Workload &w);

// One line per team and op, for failure messages.
std::string describe(const Workload &w);

}  // namespace ucc::testkit
