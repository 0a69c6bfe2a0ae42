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

struct FaultPlan {
    std::vector<Crash> crashes;
    std::vector<Stall> stalls;
    double detect_s = 5e-6;  // from a crash to its peers' error
    double spike_p = 0;      // probability that a packet is delayed
    double spike_s = 0;      // by this much

    bool empty() const { return crashes.empty() && stalls.empty() && spike_p == 0; }
    // The form parse() reads ("" when empty): "crash=R@T", "stall=R@T:D",
    // "spike=P:D" items, then "detect=S" when something crashes.
    std::string describe() const;
    // Parses `spec`: comma-separated items "crash=<rank>@<seconds>",
    // "stall=<rank>@<seconds>:<seconds>", "spike=<probability>:<seconds>" and
    // "detect=<seconds>"; ranks must be below `n_ranks`. False with `error`
    // naming the item on a bad spec.
    static bool parse(const std::string &spec, uint32_t n_ranks, FaultPlan *out,
                      std::string *error);
    // Swarm testing: a random mix and intensity from `seed`, each kind drawn
    // on its own — with probability 1/2 crashes (1 to max(1, n/4) distinct
    // ranks), 1/3 stalls (1 or 2 ranks, up to 2 horizons long), 1/3 delay
    // spikes (p in [0.001, 0.2], up to a horizon); times uniform in
    // [0, horizon_s).
    static FaultPlan draw(uint64_t seed, uint32_t n_ranks, double horizon_s);
};

}  // namespace ucc::sim
