// Replaying a trace (FORMAT.md) on the simulator: every recorded rank becomes
// a simulated rank that makes the recorded calls again, in the recorded order,
// through the public API — team creations (with the recorded membership, or
// the recorded split), collective inits with the recorded arguments and
// synthetic data of the recorded sizes, posts, waits where the program had
// seen a completion, finalizes, team destroys — on any network model, and
// with the program's own time between its calls spent again (computing) as
// recorded, so that ranks arrive at a collective as skewed as they did. For
// every collective it reports the recorded and the predicted time (post to
// completion) and the algorithm of each.
//
// Before running, the trace itself is checked: teams are matched across ranks
// by membership, and the collectives the members ran under one sequence number
// (or tag) must agree (type, root, reduction, datatype, vector length) and be
// run by every member; a desynchronised or cut-short trace is reported with
// the ranks, the sequence number, what each ran and where (file:line). A run
// that deadlocks reports where each rank was in its trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/reader.h"

namespace ucc::traces {

struct ReplayOptions {
    std::string network = "hdr";
    uint64_t seed = 1;
    bool timing_only = false;
    std::string timeline;        // Chrome trace file ("" none)
    std::string timeline_ranks;  // e.g. "0-7" ("" all)
    // Seconds after which a replayed collective gives up (0: never; a
    // simulated deadlock is found anyway, a real one is not).
    double timeout_s = 0;
    // The program's own time between its calls, as recorded, is spent again
    // (computing) before each call; false: calls back to back.
    bool compute = true;
    // The program wrote each call's input since its last call (a pull of it
    // is one of just-written data: NetworkModel::cma_written); false: a
    // benchmark's loop over unchanged inputs.
    bool inputs_written = true;
};

// One collective on one rank.
struct CollResult {
    uint32_t rank = 0;
    uint32_t line = 0;  // its init's line in the rank's trace
    uint64_t req = 0;
    ucc_coll_type_t coll = UCC_COLL_TYPE_BARRIER;
    uint64_t bytes = 0;  // the rank's larger buffer, bytes (v: the sum of its counts)
    std::string alg_recorded;
    std::string alg_replayed;
    double recorded_us = -1;   // post to completion in the recording (-1: not both there)
    double predicted_us = -1;  // the same in the replay
    ucc_status_t status = UCC_OK;
};

struct ReplayResult {
    ucc_status_t sim_status = UCC_OK;
    double simulated_s = 0;
    double wall_s = 0;
    uint64_t events = 0;
    uint64_t trace_hash = 0;
    std::vector<CollResult> colls;
    // Findings, one line each: desynchronisation, a trace that ends early, a
    // deadlock (where each rank was), a status that differs from the recorded.
    std::vector<std::string> problems;
    uint64_t failed_inits = 0;  // recorded as failed: not replayed
    uint64_t verified = 0;      // collective instances checked against the model
    bool ok() const { return sim_status == UCC_OK && problems.empty(); }
};

// The trace alone: desynchronised teams and members that never ran a
// collective the others ran. Appends one line per finding (at most `max`).
void find_desync(const Trace &t, std::vector<std::string> *problems, size_t max = 10);

// Runs the trace on the simulator. False and *error when it cannot start (bad
// options); a run that goes wrong returns true with problems in *out.
bool replay(const Trace &t, const ReplayOptions &o, ReplayResult *out, std::string *error);

// One process of a replay over a real transport: the job (ucc_run, mpirun,
// srun) has as many processes as the trace has ranks, `oob` is the job's OOB
// and this process replays rank `rank`'s records, timed by the wall clock.
// Results stay unchecked (the model needs every rank's buffers in one
// process); rank 0 also checks the trace for desynchronisation.
bool replay_process(const Trace &t, uint32_t rank, const ucc_oob_coll_t &oob,
                    const ReplayOptions &o, ReplayResult *out, std::string *error);

}  // namespace ucc::traces
