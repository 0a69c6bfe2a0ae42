// Predicted times of the flat algorithms: the catalogue's LogGP cost
// formulas (docs/algorithms.md) as code, one per algorithm, in the terms of
// the simulator's network model (lib/net/network_model.h) so that they can
// be checked against it (tests/integration/cost_model_test.cc): what the
// selector compares and ucc_info --explain prints.
//
// A message of b bytes between ranks a and b costs the sender o_send, its
// port gap + b G, the wire L + b G, the receiver's port gap + b G (one
// message at a time: loggp.h's port_in and take_in) and the receiver
// o_recv; a copy or a
// reduction of b bytes costs b / its bandwidth. L and G are the link's:
// within a node (ranks a / ppn = b / ppn) or between nodes. A path's
// protocols by size (Protocol: UCX's inline, buffered and zero-copy
// messages, the receiver's pull within a node, the rendezvous's round trip)
// add to each side's CPU and to the wait (loggp.h's send_cpu, recv_cpu,
// wait, wire). A node of more ranks than cores stretches every CPU time and
// the switch back to a rank that waited by its busiest core's ranks (the
// simulator runs the turns: a rough fit, see CostModel.RanksBeyondTheCores),
// and a working set beyond
// the cache runs copies, reductions and pulls at the memory's bandwidth:
// predict() applies both for the team and the collective (for_team). The
// formulas leave out what the model shares per node (NIC, memory) and its
// jitter: they predict an uncontended network, but for the node's NIC,
// which a round's messages across nodes share (multiply_round,
// distance_round, shared).
#pragma once

#include <algorithm>
#include <cstdint>

#include "lib/coll/coll.h"

namespace ucc::cost {

struct Link {
    double L = 0;       // seconds
    double G = 0;       // seconds per byte on the wire
    double across = 0;  // the share of its messages between nodes (0: within a node)
    bool operator==(const Link &) const = default;
};

// How a path moves a message by its size (network_model.h's protocols), in
// seconds; the defaults: every message a plain LogGP one.
struct Protocol {
    static constexpr double kNever = 1e300;
    double inline_max = 0;  // bytes a message carries with its header (o alone)
    double zcopy = kNever;  // above, zero-copy; up to it, buffered: each side
    double o_bcopy = 0;     // copies through the transport's buffers
    double bcopy_G = 0;     // (0: copies nothing)
    bool pulls = false;     // zero-copy within a node: the receiver's CPU pulls
    double o_pull = 0;      // (no wire), o_pull + b pull_G at its match
    double pull_G = 0;
    double rndv = kNever;  // above: a round trip (rndv_wait) before the data moves
    double rndv_wait = 0;
    double dma = 0;  // above inline_max: the NIC's read of the payload

    // One side's copy of a buffered message.
    double bcopy(double b) const {
        return bcopy_G > 0 && b > inline_max && b <= zcopy ? o_bcopy + b * bcopy_G : 0;
    }
    bool pulled(double b) const { return pulls && b > zcopy && b > inline_max; }
    double pull(double b) const { return pulled(b) ? o_pull + b * pull_G : 0; }
    double wait(double b) const { return (b > rndv ? rndv_wait : 0) + (b > inline_max ? dma : 0); }
    bool operator==(const Protocol &) const = default;
};

struct Params {
    uint32_t ppn = 1;  // ranks per node: rank r on node r / ppn (0: one node)
    Link intra;
    Link inter;
    double o_send = 0;  // seconds per message, each side
    double o_recv = 0;
    double gap = 0;        // the port's time per message
    double copy = 0;       // seconds per byte copied
    double reduce = 0;     // seconds per byte reduced
    double o_call = 0;     // the library's time per collective
    double sharp_lat = 0;  // in-network reduction (0: none)
    double sharp_G = 0;
    // The node's NIC, shared by its ranks (0: not modelled): seconds per
    // byte and per message through it, each direction.
    double nic_G = 0;
    double nic_msg = 0;
    // The protocols of messages within a node and between nodes.
    Protocol intra_msgs;
    Protocol inter_msgs;
    // A node's cores (0: a core per rank) and the switch back to a rank that
    // waited off its core; the cache and the bandwidths beyond it (seconds
    // per byte; 0: as within), for_team's.
    uint32_t cores = 0;
    double wake = 0;
    double cache = 0;  // bytes (0: no limit)
    double copy_mem = 0;
    double reduce_mem = 0;
    double pull_mem = 0;

    bool same_node(uint32_t a, uint32_t b) const { return ppn == 0 || a / ppn == b / ppn; }
    const Link &link(uint32_t a, uint32_t b) const { return same_node(a, b) ? intra : inter; }
    // The slowest link a team of n ranks uses when every rank talks to
    // another (inter-node once the team spans nodes).
    const Link &team(uint32_t n) const { return ppn == 0 || n <= ppn ? intra : inter; }
    // A node's k ranks sending across its NIC at once (k >= 1): the
    // inter-node link, each message behind the others' through the NIC.
    Link crossing(double k) const {
        return {inter.L + k * nic_msg, std::max(inter.G, k * nic_G), 1};
    }
    // team(n) for a round in which every rank sends across nodes at once
    // (the alltoalls): once the team spans nodes, all ppn ranks of a node.
    Link shared(uint32_t n) const {
        if (ppn == 0 || n <= ppn) {
            return intra;
        }
        return crossing(ppn);
    }
    // A round of recursive multiplying: every rank exchanges with the other
    // k - 1 of its group of k w consecutive ranks (stride w). Within a node
    // where the groups are (ppn a multiple of k w); else the round waits on
    // its messages between nodes, a node's ranks sending together their
    // partners beyond it (all k - 1 once w >= ppn).
    Link multiply_round(uint32_t n, uint64_t w, uint32_t k) const {
        if (ppn == 0 || n <= ppn || k < 2) {
            return intra;
        }
        const uint64_t span = w * k;
        if (span <= ppn && ppn % span == 0) {
            return intra;
        }
        const double own = w >= ppn ? 0.0 : std::max(0.0, static_cast<double>(ppn) / w - 1);
        const double cross = std::max(1.0, (k - 1) - own);
        return crossing(ppn * cross / (k - 1));
    }
    // A step at distance d (Bruck, pairwise exchange: rank r sends to
    // r + d): min(d, n - d, ppn) of a node's ranks cross at once, sharing its
    // NIC; the step's bytes move at their pace, its latency averages the
    // links by the share of ranks that cross (the others' chains run on).
    Link distance_round(uint32_t n, uint64_t d) const {
        if (ppn == 0 || n <= ppn) {
            return intra;
        }
        const double k = static_cast<double>(std::min<uint64_t>({d, n - d, ppn}));
        const Link c = crossing(k);
        return {intra.L + k / ppn * (c.L - intra.L), c.G, k / ppn};
    }
    // A ring over n ranks in rank order: a step waits for its left
    // neighbour's, so a block's path crosses nodes once per node and the
    // steps average the two links (one hop in ppn between nodes).
    Link ring(uint32_t n) const {
        if (ppn == 0 || n <= ppn) {
            return intra;
        }
        const double f = static_cast<double>((n + ppn - 1) / ppn) / n;
        return {intra.L + f * (inter.L - intra.L), intra.G + f * (inter.G - intra.G), f};
    }
    // These terms for a team of n ranks running a collective whose buffers
    // at a rank span `working` bytes: CPU times and the switch of a rank
    // that waited (`wake`) stretched by the ranks of the busiest core (a
    // node's ranks over its cores, rounded up), and beyond the cache
    // the memory's bandwidths. Applied once (what it returns has no cores
    // and no cache left to apply).
    Params for_team(uint32_t n, double working) const;
    bool operator==(const Params &) const = default;
};

// Predicted seconds of `alg` running `a` on a team of `n` ranks (v-variants
// without count arrays: every block of a.count elements), with the radix it
// runs with (a.radix where a.radixes is null, else radix_for); negative when the
// algorithm has no formula (the one-sided ones) or,
// hierarchical, no levels on this layout (p.ppn: within one node, or one
// rank per node).
double predict(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p);

// The radix `alg` runs `a` with on n ranks: its setting (coll::radix_for)
// unless that is auto, then for an algorithm that reads a radix the
// candidate (2..8; none above n but 2) with the cheapest
// prediction, the smaller on a tie; coll::kDefaultRadix for one that reads
// none, and on a network whose nodes share a NIC (nic_G, nic_msg; cost.cc).

uint32_t radix_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p);
// Whether an auto radix is chosen by cost on network p (else kDefaultRadix).
bool chooses_radix(const Params &p);

// Whether `alg` runs in segments (Args::segment_bytes): the pipelined trees.
bool reads_segment(const coll::Algorithm &alg);
// The segment `alg` runs `a` with on n ranks: a.segment_bytes unless that is
// coll::kSegmentAuto, then for a pipelined tree (the formulas that read the
// segment) the candidate with the cheapest prediction (out of place, so
// that a root in place takes its members' segment), for any other
// algorithm kSegmentAuto itself (a hierarchical one's levels choose their own).
uint64_t segment_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p);

// What no algorithm of `a` on n ranks can beat in these terms (bounds.cc):
// the selection sweep's yardstick.
double lower_bound(const coll::Args &a, uint32_t n, const Params &p);

// The bytes a rank's buffers of `a` span on n ranks (its src unless in
// place, and its dst; a rooted collective's root's): the working set that
// for_team compares with the cache.
double working_set(const coll::Args &a, uint32_t n);

}  // namespace ucc::cost
