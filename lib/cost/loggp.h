// The pieces the cost formulas are built of (cost.h's model).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

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

// A path's protocol term f(Protocol) for a message on l: within a node,
// between nodes, or the share of each a mixed link (a ring's) carries.
template <class F>
double by_path(const Params &p, const Link &l, F f) {
    const double within = l.across >= 1 ? 0 : f(p.intra_msgs);
    const double between = l.across <= 0 ? 0 : f(p.inter_msgs);
    return (1 - l.across) * within + l.across * between;
}

// Each side's CPU per message of b bytes on l: its o and its protocol's
// copies (buffered on both sides; a pull on the receiver's).
inline double send_cpu(const Params &p, const Link &l, double b) {
    return p.o_send + by_path(p, l, [b](const Protocol &x) { return x.bcopy(b); });
}
inline double recv_cpu(const Params &p, const Link &l, double b) {
    return p.o_recv + by_path(p, l, [b](const Protocol &x) { return x.bcopy(b) + x.pull(b); });
}

// What a message of b bytes on l waits before its data moves: a
// rendezvous's round trip, the NIC's read.
inline double delay(const Params &p, const Link &l, double b) {
    return by_path(p, l, [b](const Protocol &x) { return x.wait(b); });
}

// A rendezvous send completes when its receiver's answer comes back: L
// after the receiver matched it (0 for an eager one).
inline double ack(const Params &p, const Link &l, double b) {
    return by_path(p, l, [b](const Protocol &x) { return b > x.rndv ? x.rndv_wait / 2 : 0.0; });
}

// b bytes on l's wire: none for the messages a receiver within a node pulls.
inline double wire(const Params &p, const Link &l, double b) {
    if (l.across < 1 && p.intra_msgs.pulled(b)) {
        return b * std::max(0.0, l.G - (1 - l.across) * p.intra.G);
    }
    return b * l.G;
}

// A message of b bytes from its sender's CPU to its receiver's: the wait
// before its data moves, L, its bytes, and the switch back to a rank that
// waited for it.
inline double flight(const Params &p, const Link &l, double b) {
    return l.L + delay(p, l, b) + wire(p, l, b) + p.wake;
}

// One message of b bytes from its send to its receiver's match.
inline double msg(const Params &p, const Link &l, double b) {
    return send_cpu(p, l, b) + flight(p, l, b) + recv_cpu(p, l, b);
}

// A step that sends b bytes and receives as much, and ends when both are
// done: a message, and a rendezvous send's answer.
inline double step(const Params &p, const Link &l, double b) {
    return msg(p, l, b) + ack(p, l, b);
}

// How long a rank's port is busy with a message of b bytes: the gap, the
// wait before its data moves and its bytes.
inline double port(const Params &p, const Link &l, double b) {
    return p.gap + wire(p, l, b) + delay(p, l, b);
}

// The time between two sends of b bytes from one rank: its CPU's or its
// port's, whichever is longer.
inline double spacing(const Params &p, const Link &l, double b) {
    return std::max(send_cpu(p, l, b), port(p, l, b));
}

// A rank that sends b bytes to each of `dests` in turn: when the last one
// has it (and a rendezvous's answer is back).
inline double fan_out(const Params &p, const Link &l, double b, uint32_t dests) {
    if (dests == 0) {
        return 0;
    }
    return send_cpu(p, l, b) + (dests - 1) * spacing(p, l, b) + flight(p, l, b) +
           recv_cpu(p, l, b) + ack(p, l, b);
}

// How long a rank's port is busy taking in a message of b bytes on l: the
// gap and its bytes on the rank's own links (LogGP's g and G at the
// receiving end; a NIC's share, crossing's, spreads the messages before),
// one message at a time.
inline double port_in(const Params &p, const Link &l, double b) {
    const Link own{l.L, (1 - l.across) * p.intra.G + l.across * p.inter.G, l.across};
    return p.gap + wire(p, own, b);
}

// `count` messages of b bytes on l that reach one rank together, the first
// at `first`: they come in one port time apart, and it matches them one
// receive after another, from `busy` on: when it has matched the last.
inline double take_in(const Params &p, const Link &l, double b, uint32_t count, double first,
                      double busy = 0) {
    if (count == 0) {
        return busy;
    }
    const double cpu = recv_cpu(p, l, b);
    return std::max(busy + count * cpu,
                    first + cpu + (count - 1) * std::max(port_in(p, l, b), cpu));
}

// A message reaching a rank (match_all): when it would be in, unhindered by
// the others; its bytes' time on the rank's port (port_in but the gap); its
// receive's CPU.
struct Arrival {
    double when;
    double wire;
    double cpu;
};

// A rank whose CPU is busy until `busy`, whose port takes `in` in one at a
// time in the order they come, and which matches each once it is in: when
// it has matched the last. Sorts `in`.
inline double match_all(const Params &p, std::span<Arrival> in, double busy) {
    std::sort(in.begin(), in.end(),
              [](const Arrival &a, const Arrival &b) { return a.when < b.when; });
    double port_free = 0;
    for (const Arrival &a : in) {
        const double at = std::max(a.when, port_free + a.wire);
        port_free = at + p.gap;
        busy = std::max(busy, at) + a.cpu;
    }
    return busy;
}

// A round in which every rank of a group sends b bytes to each of `peers`
// others and receives as much from each, member mine + i i-th: at every step
// each member gets one message (its port takes them in as they come), the
// i-th as its partners' i-th sends land; the rank's CPU posts its sends,
// then matches each message from when it is in; the round ends with its
// sends' answers.
inline double round(const Params &p, const Link &l, double b, uint32_t peers) {
    if (peers == 0) {
        return 0;
    }
    const double cpu = recv_cpu(p, l, b);
    const double first = send_cpu(p, l, b) + flight(p, l, b);
    const double every = spacing(p, l, b);
    double t = peers * send_cpu(p, l, b);
    for (uint32_t i = 0; i < peers; ++i) {
        t = std::max(t, first + i * every) + cpu;
    }
    return t + ack(p, l, b);
}

// A rank that receives b bytes from each of `srcs` sending at once, after
// `busy` seconds of its own work: when it has taken them in and matched them
// all (each sender's port is its own, the receiver's one), and the last
// sender has its answer.
inline double fan_in(const Params &p, const Link &l, double b, uint32_t srcs, double busy = 0) {
    if (srcs == 0) {
        return busy;
    }
    return take_in(p, l, b, srcs, send_cpu(p, l, b) + flight(p, l, b), busy) + ack(p, l, b);
}

// What a rank pays per byte it receives on l at the least (the bounds'):
// the wire and the cheaper of the protocols' copies.
inline double per_byte(const Params &p, const Link &l) {
    return l.G + by_path(p, l, [](const Protocol &x) {
               const double zero_copy =
                   x.zcopy >= Protocol::kNever ? x.bcopy_G : (x.pulls ? x.pull_G : 0.0);
               return std::min(x.bcopy_G, zero_copy);
           });
}

inline uint32_t ceil_log(uint64_t n, uint32_t k) {
    uint32_t r = 0;
    for (uint64_t q = 1; q < n; q *= k) {
        ++r;
    }
    return r;
}

}  // namespace ucc::cost
