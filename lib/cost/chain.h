// Timing of rounds rank by rank, where each round of a rank waits on its
// own previous one and on its partners' messages:
//   distance_chain  rounds at doubling distances (Bruck's allgather and
//                   alltoall, the dissemination barrier): in the round at
//                   distance d rank r sends to r - d and receives from
//                   r + d (mod n), or to several partners at d, 2d, ...;
//   multiply_chain  recursive multiplying (the k-nomial exchanges,
//                   recursive doubling): in the round of stride w the k
//                   ranks {b + j w} each send to the others in group order
//                   and match what comes in as it comes.
// Within one node every rank's chain is alike (the sum of the rounds'
// worst); across nodes a rank waits on partners whose own chains crossed
// nodes more or less often than its own, and the slowest chain decides,
// which no average of the links per round gives. distance_chain costs
// O(ppn log n) when the nodes are full (a node's ranks repeat on every
// node), O(n log n) otherwise; multiply_chain O(n k log n), paid once per
// selection a context remembers (lib/select/memo.h). Beyond kExactRanks
// ranks (and full nodes for distance_chain) each round takes its averaged
// link (Params::distance_round, multiply_round) instead.
#pragma once

#include <cstdint>
#include <span>

#include "lib/cost/cost.h"

namespace ucc::cost {

struct ChainRound {
    uint64_t d = 1;    // rank r hears from r + d (multiply_chain: the stride)
    double bytes = 0;  // of each message
    double local = 0;  // the rank's own work after the round (packing)
    // distance_chain: the partners each way, at d, 2d, ... ways d (the
    // k-ary dissemination barrier): a rank sends to them in that order,
    // then takes their messages in as they arrive.
    uint32_t ways = 1;
    // distance_chain: the sender's CPU work before each send after the
    // first (packing its message), overlapping the previous one's flight.
    double pack = 0;
};

inline constexpr uint32_t kExactRanks = 4096;

// From every rank starting at once to the last rank done with every round.
double distance_chain(const Params &p, uint32_t n, std::span<const ChainRound> rounds);

// What the extra ranks of recursive multiplying do (ranks r >= `ranks` of
// the team, none when it has exactly as many): each hands `in` bytes to its
// proxy r mod ranks before the rounds, which takes them in rank order
// (in_local each: a reduction), and gets `out` bytes back after the rounds
// (the proxy's out_local first: putting the blocks in order).
struct Extras {
    double in = 0;
    double in_local = 0;
    double out_local = 0;
    double out = 0;
};

// The extras summed on one link l, for the formulas that do not walk: the
// proxy with the most of them takes their messages (in_local each) and
// sends them the result. When it is the only proxy, its partners of the
// first round do not lag: their messages are in when it starts the round
// (`first`: that round's bytes), so its lag counts less their flight.
double fold_in(const Params &p, const Link &l, const Extras &x, uint32_t n, uint32_t ranks,
               double first);
double fold_out(const Params &p, const Link &l, const Extras &x, uint32_t n, uint32_t ranks);

// The same for recursive multiplying of radix k over ranks 0 .. ranks - 1
// of an n-rank team, each round's d its stride w, with the extras around
// (nullptr: the caller counts them).
double multiply_chain(const Params &p, uint32_t n, uint32_t k, uint32_t ranks,
                      std::span<const ChainRound> rounds, const Extras *extras);

// Whether multiply_chain walks the ranks (across nodes, up to kExactRanks
// ranks of the rounds, when they are not all alike) rather than summing
// each round's slowest member.
bool walks(const Params &p, uint32_t n, uint32_t k, uint32_t ranks,
           std::span<const ChainRound> rounds);

}  // namespace ucc::cost
