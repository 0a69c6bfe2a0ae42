// A simulated rank program in completion-callback style, for the tests of
// ranks without a fiber (UCC_SIM_FLAG_FIBERLESS): each rank's start makes a
// library, a context without an OOB and a team over the simulator's OOB (or
// a context over the OOB and a team over its eps, `wiring`); a progress hook
// posts the first allreduce once the team is made; each allreduce's
// callback checks the sums and posts the next; a hook tears down.
// The same calls from ranks with fibers (waiting in test-and-progress loops)
// run with `fiberless` false, so that the two can be compared.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tests/common/sim_outcome.h"
#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::testkit::fiberless {

struct Shared;

// One rank's program, as a state machine driven by callbacks and hooks.
struct Rank {
    Shared *sh = nullptr;
    uint32_t me = 0;
    ucc_lib_h lib = nullptr;
    ucc_context_h ctx = nullptr;
    ucc_team_h team = nullptr;
    ucc_coll_req_h req = nullptr;
    uint32_t done = 0;  // collectives completed
    std::vector<int64_t> src;
    std::vector<int64_t> dst;
};

enum class Variant { kPlain, kTimeout, kHookNeverDone };

// How a rank makes its context and team.
enum class Wiring {
    kTeamOob,     // a context without an OOB, the team over the OOB
    kContextOob,  // the context over the OOB, the team over all its eps (a FULL ep map)
    // The context over the OOB, the team over its eps in reverse order (an
    // ARRAY ep map the program overwrites right after the post).
    kContextOobArray,
};

struct Shared {
    uint32_t n = 0;
    uint32_t iters = 3;
    size_t count = 5;
    Variant variant = Variant::kPlain;
    Wiring wiring = Wiring::kTeamOob;
    // Each rank first makes a context over the OOB and destroys it at once,
    // before it has its peers (without a fiber: while it still joins).
    bool abandon_first_context = false;
    bool refusals = false;  // rank 0 first tries what a rank without a fiber cannot do
    std::vector<std::unique_ptr<Rank>> ranks;
    uint64_t wrong = 0;      // results that differ from the expected sums
    uint64_t failed = 0;     // ranks whose lifecycle failed
    uint64_t timed_out = 0;  // collectives that ended in UCC_ERR_TIMED_OUT
    uint64_t finished = 0;   // ranks that tore down cleanly
    ucc_status_t ctx_with_oob = UCC_OK;
    ucc_status_t threads = UCC_OK;
};

using Outcome = SimOutcome;

// Runs the program on n ranks (seed 11, a jittery hdr network); `faults`: a
// fault plan (NULL: none).
Outcome run(Shared *sh, uint32_t n, bool fiberless, const char *faults = nullptr);

// A hook that never completes.
ucc_status_t never_done(void *);

}  // namespace ucc::testkit::fiberless
