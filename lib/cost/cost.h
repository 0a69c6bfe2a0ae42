// Predicted times of the flat algorithms: the catalogue's LogGP cost
// formulas (docs/algorithms.md) as code, one per algorithm, in the terms of
// the simulator's network model (transports/sim/network.h) so that they can
// be checked against it (tests/integration/cost_model_test.cc): what the
// selector compares and ucc_info --explain prints.
//
// A message of b bytes between ranks a and b costs the sender o_send, its
// port gap + b G, the wire L + b G and the receiver o_recv; a copy or a
// reduction of b bytes costs b / its bandwidth. L and G are the link's:
// within a node (ranks a / ppn = b / ppn) or between nodes. The formulas
// leave out what the model shares per node (NIC, memory), its protocol
// thresholds and its jitter: they predict an uncontended network, but for
// the node's NIC where every rank of a node crosses it at once (shared()).
#pragma once

#include <algorithm>
#include <cstdint>

#include "lib/coll/coll.h"

namespace ucc::cost {

struct Link {
    double L = 0;  // seconds
    double G = 0;  // seconds per byte
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

    bool same_node(uint32_t a, uint32_t b) const { return ppn == 0 || a / ppn == b / ppn; }
    const Link &link(uint32_t a, uint32_t b) const { return same_node(a, b) ? intra : inter; }
    // The slowest link a team of n ranks uses when every rank talks to
    // another (inter-node once the team spans nodes).
    const Link &team(uint32_t n) const { return ppn == 0 || n <= ppn ? intra : inter; }
    // team(n) for a round in which every rank sends at once (the
    // exchanges: recursive doubling and multiplying, Bruck, alltoall): once
    // the team spans nodes, a node's min(ppn, n) ranks cross its NIC
    // together, each at 1 / k of its bandwidth and behind the others'
    // messages.
    Link shared(uint32_t n) const {
        if (ppn == 0 || n <= ppn) {
            return intra;
        }
        const double k = ppn;
        return {inter.L + k * nic_msg, std::max(inter.G, k * nic_G)};
    }
    // A ring over n ranks in rank order: a step waits for its left
    // neighbour's, so a block's path crosses nodes once per node and the
    // steps average the two links (one hop in ppn between nodes).
    Link ring(uint32_t n) const {
        if (ppn == 0 || n <= ppn) {
            return intra;
        }
        const double f = static_cast<double>((n + ppn - 1) / ppn) / n;
        return {intra.L + f * (inter.L - intra.L), intra.G + f * (inter.G - intra.G)};
    }
};

// Predicted seconds of `alg` running `a` on a team of `n` ranks (v-variants
// without count arrays: every block of a.count elements); negative when the
// algorithm has no formula (the one-sided ones, alltoall(v) node_split) or,
// hierarchical, no levels on this layout (p.ppn: within one node, or one
// rank per node).
double predict(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p);

// What no algorithm of `a` on n ranks can beat in these terms (bounds.cc):
// the selection sweep's yardstick.
double lower_bound(const coll::Args &a, uint32_t n, const Params &p);

}  // namespace ucc::cost
