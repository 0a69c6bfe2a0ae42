// A fault case for the simulator's fault model (transports/sim/faults.h):
// a loop of collectives on a team of all ranks under a fault plan, every
// UCC_OK result checked exactly (P41), every survivor required to finish
// (P46), every call during which an allocation was failed required to return
// UCC_ERR_NO_MEMORY and no handle (P37). A rank that cannot set up, or whose
// collective runs out of memory, destroys what it made and exits
// (sim::exit_rank), as an application would; its peers then see it as a dead
// peer. Used by tests/faults and tests/regress/faults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"

namespace ucc::testkit {

struct FaultOutcome {
    std::vector<std::string> errors;  // per rank: a defect ("" if none)
    std::vector<uint32_t> ok;         // per rank: collectives that returned UCC_OK
    std::vector<uint32_t> failed;     // per rank: setups or collectives that failed
    std::vector<bool> finished;       // per rank: its program ran to its end
    std::vector<uint32_t> injected;   // per rank: allocations the plan failed
    std::vector<uint32_t> no_memory;  // per rank: calls that returned UCC_ERR_NO_MEMORY
    std::string p37;                  // the P37 trace checker's findings ("" if none)
    sim::RunResult run;
};

// `iters` collectives (allreduce, bcast, allgather, alltoall, barrier in
// turn) on a team of all n ranks, allreduce by `alg` ("" = the default);
// each rank checks every UCC_OK result exactly.
FaultOutcome run_fault_case(uint32_t n, uint32_t iters, const sim::FaultPlan &plan, uint64_t seed,
                            const std::string &alg);

// Adds GoogleTest failures unless the run ended cleanly, every rank the plan
// did not stop finished without a defect, every rank whose allocation failed
// saw UCC_ERR_NO_MEMORY, and (without crashes, failed allocations or failed
// OOB exchanges) nothing failed.
void expect_survivors_sound(uint32_t n, const sim::FaultPlan &plan, const FaultOutcome &o,
                            const std::string &what);

}  // namespace ucc::testkit
