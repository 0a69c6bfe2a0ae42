// What a simulated run ended with, read right after ucc_sim_run returned on
// this thread: its status, trace hash, virtual time, events and switches to
// rank stacks. Tests that compare two runs of one program compare these.
#pragma once

#include <cstdint>

#include "ucc/api/ucc.h"
#include "ucc/sim/ucc_sim.h"

namespace ucc::testkit {

struct SimOutcome {
    ucc_status_t status = UCC_ERR_LAST;
    uint64_t hash = 0;
    double time = 0;
    uint64_t events = 0;
    uint64_t resumes = 0;
};

// `status`: what ucc_sim_run returned.
inline SimOutcome sim_outcome(ucc_status_t status) {
    SimOutcome o;
    o.status = status;
    o.hash = ucc_sim_trace_hash();
    o.time = ucc_sim_last_time();
    o.events = ucc_sim_last_events();
    o.resumes = ucc_sim_last_resumes();
    return o;
}

}  // namespace ucc::testkit
