// The simulator's fault model: what goes wrong in a run, decided before it
// starts (from the run's seed or by hand) so that the run replays exactly.
//
// Crashes: rank r stops at virtual time t — at its first suspension at or
// after t it is never resumed again (a rank whose program already ended is
// unaffected). Its memory is left as a killed process leaves it. Every other
// rank's endpoints learn of it `detect_s` later, as UCX reports an
// unreachable peer in error-handling mode: receives posted for the dead
// rank's endpoints fail with UCC_ERR_NO_MESSAGE, later sends and receives to
// and from them fail at once, and the core fails every collective of a team
// that has the dead rank as a member (lib/transport.h: peer_failed_notify).
// Messages the dead rank sent before it stopped still arrive.
//
// Stalls: rank r stops progressing at t for d seconds — from its first
// suspension at or after t it is not resumed before t + d (a straggler, a
// descheduled process), whatever arrives for it meanwhile.
//
// Delay spikes: each packet, with probability p, arrives d seconds late
// (packets between two endpoints still arrive in the order they were sent).
//
// Allocation failures: the library names the places where it allocates on the
// way to a context, a team or a collective (lib/simulated.h AllocSite); the
// rank's k-th pass through any of them fails (nomem=R#K), or each pass fails
// with probability p (nomem_p=P, drawn from the run's seed, the rank and the
// pass). The call fails as if the allocation had: UCC_ERR_NO_MEMORY (P37).
//
// OOB faults: the rank's k-th OOB exchange (allgathers of the OOB that
// sim::oob() gives and the world's peer exchanges, counted together from 0)
// fails at once with UCC_ERR_NO_MESSAGE without joining its round (oob=R#K),
// or joins it late: the round completes no sooner than d seconds after the
// rank joined (oob=R#K:D, an OOB server that stalls).
//
// A rank whose program gives up after an error (sim::exit_rank, as a process
// that exits) is seen by its peers as a crashed one once its program returns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ucc::sim {

struct Crash {
    uint32_t rank = 0;
    double at_s = 0;  // virtual seconds
};

struct Stall {
    uint32_t rank = 0;
    double at_s = 0;
    double for_s = 0;
};

struct NoMemory {
    uint32_t rank = 0;
    uint32_t visit = 0;  // the rank's visit to an allocation site, from 0
};

struct OobFault {
    uint32_t rank = 0;
    uint32_t call = 0;   // the rank's OOB exchange, from 0
    double stall_s = 0;  // 0: it fails; else it joins its round this late
};

struct FaultPlan {
    std::vector<Crash> crashes;
    std::vector<Stall> stalls;
    double detect_s = 5e-6;  // from a crash to its peers' error
    double spike_p = 0;      // probability that a packet is delayed
    double spike_s = 0;      // by this much
    std::vector<NoMemory> nomem;
    double nomem_p = 0;  // probability that a visit to an allocation site fails
    std::vector<OobFault> oob;

    bool empty() const {
        return crashes.empty() && stalls.empty() && spike_p == 0 && nomem.empty() && nomem_p == 0 &&
               oob.empty();
    }
    // Whether a rank may see an error without a crash: failed allocations or
    // failed OOB exchanges.
    bool fails_calls() const;
    // The form parse() reads ("" when empty): "crash=R@T", "stall=R@T:D",
    // "spike=P:D", "nomem=R#K", "nomem_p=P", "oob=R#K" and "oob=R#K:D" items,
    // then "detect=S" when something crashes.
    std::string describe() const;
    // Parses `spec`: comma-separated items "crash=<rank>@<seconds>",
    // "stall=<rank>@<seconds>:<seconds>", "spike=<probability>:<seconds>",
    // "nomem=<rank>#<visit>", "nomem_p=<probability>", "oob=<rank>#<call>",
    // "oob=<rank>#<call>:<seconds>" and "detect=<seconds>"; ranks must be below
    // `n_ranks`. False with `error` naming the item on a bad spec.
    static bool parse(const std::string &spec, uint32_t n_ranks, FaultPlan *out,
                      std::string *error);
    // Swarm testing: a random mix and intensity from `seed`, each kind drawn
    // on its own — with probability 1/2 crashes (1 to max(1, n/4) distinct
    // ranks), 1/3 stalls (1 or 2 ranks, up to 2 horizons long), 1/3 delay
    // spikes (p in [0.001, 0.2], up to a horizon), 1/4 allocation failures
    // (nomem_p in [0.002, 0.05]), 1/4 an OOB fault (one of a rank's first
    // three exchanges fails, or stalls up to a horizon); times uniform in
    // [0, horizon_s).
    static FaultPlan draw(uint64_t seed, uint32_t n_ranks, double horizon_s);
    // What users write (ucc_sim --faults, ucc_sim_params_t.faults): "" for
    // none, "swarm" or "swarm:<seconds>" for draw(seed, n_ranks, seconds)
    // (default horizon 1e-4 s), else a plan for parse().
    static bool from_spec(const std::string &spec, uint32_t n_ranks, uint64_t seed, FaultPlan *out,
                          std::string *error);
};

}  // namespace ucc::sim
