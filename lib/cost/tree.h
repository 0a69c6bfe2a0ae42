// Timing of a k-nomial tree (lib/coll/patterns/knomial.h) under cost.h's
// model, walked as the algorithms walk it: a parent sends to (or receives
// from) its children largest subtree first, one o_send each on its CPU and
// one port time each on its port, takes their messages in through its port
// one at a time and matches one o_recv each; each message
// on its pair's link (Params::link: within a node or between nodes, the
// root's virtual rank 0 at the start of a node). Complete subtrees of one
// size that sit alike on the nodes take the same time, so a walk costs
// O(k log_k n) on one node, at most ppn times that across nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "lib/cost/cost.h"

namespace ucc::cost {

struct TreeCosts {
    const Params *p = nullptr;
    uint32_t k = 2;
    // Bytes of the message to (down) or from (up) a child whose subtree
    // spans `span` ranks.
    std::function<double(uint64_t span)> bytes;
    // Up: what a rank with children does before it receives (a copy of its
    // own operand), and what it does per child's message after the last
    // (a reduction); span: its subtree's.
    std::function<double(uint64_t span)> before;
    std::function<double(uint64_t span)> per_child;
};

// The spans of the root's subtrees in an n-rank tree, in its send order.
std::vector<uint64_t> root_subtrees(uint64_t n, uint32_t k);

// From the root having the data to every rank of an n-rank tree having it.
double tree_down(const TreeCosts &t, uint64_t n);
// From every rank starting to the root having every rank's contribution.
double tree_up(const TreeCosts &t, uint64_t n);

}  // namespace ucc::cost
