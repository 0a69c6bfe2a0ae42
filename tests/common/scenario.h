// Test kit: run one collective scenario through the real C API on the
// simulated cluster and check every rank's memory against model/.
//
// Buffers of all ranks are allocated up front, with guard bytes on both sides;
// the model's expected writes are computed before the run; after it, every
// byte of every allocation (guards, src and non-root dst included) must equal
// the expected image.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "ucc/api/ucc.h"

namespace ucc::testkit {

struct Scenario {
    uint32_t n = 4;
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;
    ucc_datatype_t dt = UCC_DT_INT32;
    ucc_reduction_op_t op = UCC_OP_SUM;
    uint64_t count = 16;  // vector length (allreduce/reduce/bcast) or block length
    uint32_t root = 0;
    bool inplace = false;
    std::string alg = "auto";  // value of <COLL>_ALG
    uint32_t radix = 4;
    uint64_t seed = 1;
    std::string network = "hdr";
    uint32_t posts = 1;      // > 1: persistent request re-posted with new inputs
    bool team_ep_map = false;  // create the team from the context (FULL ep map) instead of an OOB
    uint64_t value_seed = 7;   // input data
};

struct Outcome {
    std::string failure;  // empty on success
    sim::RunResult run;
    std::vector<std::vector<uint8_t>> dst;  // every rank's dst bytes after the last post
};

// Human-readable one-line description (printed with failures).
std::string describe(const Scenario &s);

// Runs the scenario and checks it against the model; `failure` says what differed.
Outcome run_scenario(const Scenario &s);

// Whether the datatype/op/team size combination has exactly representable results
// for the generated inputs (always true for integers).
bool coll_has_reduction(ucc_coll_type_t t);

}  // namespace ucc::testkit
