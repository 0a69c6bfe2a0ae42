// The pieces the cost formulas are built of (cost.h's model).
#pragma once

#include <algorithm>
#include <cstdint>

#include "lib/cost/cost.h"

namespace ucc::cost {

// Bytes of a rank's vector or block.
inline double bytes_of(const coll::Args &a) {
    return static_cast<double>(a.count) * static_cast<double>(a.esize);
}

// Local work on b bytes.
inline double copy(const Params &p, double b) {
    return b * p.copy;
}
inline double reduce(const Params &p, double b) {
    return b * p.reduce;
}

// One message of b bytes from its send to its receiver's match.
inline double msg(const Params &p, const Link &l, double b) {
    return p.o_send + l.L + b * l.G + p.o_recv;
}

// The time between two sends of b bytes from one rank: its CPU's o_send or
// its port's gap and bytes, whichever is longer.
inline double spacing(const Params &p, const Link &l, double b) {
    return std::max(p.o_send, p.gap + b * l.G);
}

// A rank that sends b bytes to each of `dests` in turn: when the last one
// has it.
inline double fan_out(const Params &p, const Link &l, double b, uint32_t dests) {
    if (dests == 0) {
        return 0;
    }
    return p.o_send + (dests - 1) * spacing(p, l, b) + l.L + b * l.G + p.o_recv;
}

// A round in which every rank of a group sends b bytes to each of `peers`
// others and receives as much from each, all in the same order: the member
// last in everyone's order gets its messages last and together, and matches
// them one o_recv after another.
inline double round(const Params &p, const Link &l, double b, uint32_t peers) {
    if (peers == 0) {
        return 0;
    }
    return p.o_send + (peers - 1) * spacing(p, l, b) + l.L + b * l.G + peers * p.o_recv;
}

// A rank that receives b bytes from each of `srcs` sending at once, after
// `busy` seconds of its own work: when it has matched them all (one o_recv
// each; each sender's port is its own).
inline double fan_in(const Params &p, const Link &l, double b, uint32_t srcs, double busy = 0) {
    if (srcs == 0) {
        return busy;
    }
    return std::max(busy, p.o_send + l.L + b * l.G) + srcs * p.o_recv;
}

inline uint32_t ceil_log(uint64_t n, uint32_t k) {
    uint32_t r = 0;
    for (uint64_t q = 1; q < n; q *= k) {
        ++r;
    }
    return r;
}

}  // namespace ucc::cost
