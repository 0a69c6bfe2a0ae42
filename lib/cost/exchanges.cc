// Cost formulas of the exchanges: allgather(v), alltoall(v).
#include <algorithm>
#include <vector>

#include "lib/coll/alltoallv/alltoallv.h"
#include "lib/coll/patterns/knomial.h"
#include "lib/cost/chain.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

using coll::Args;
namespace pat = coll::patterns;

// The first exchange of a ring or a neighbour exchange: the own block is
// copied while it is in flight.
double first_step(const Args &a, const Params &p, const Link &l, double out) {
    const double c = a.inplace ? 0 : bytes_of(a) * p.copy;
    return send_cpu(p, l, out) + std::max(c, flight(p, l, out)) + recv_cpu(p, l, out) +
           ack(p, l, out);
}

// Every step waits for the slowest pair's: across nodes its bytes move at
// the boundary hop's G, while its latency averages over the hops.
double allgather_ring(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    if (n == 1) {
        return a.inplace ? 0 : b * p.copy;
    }
    Link l = p.ring(n);
    l.G = p.team(n).G;
    return first_step(a, p, l, b) + (n - 2) * step(p, l, b);
}

// Each round waits on its sender's chain (chain.h).
double allgather_bruck(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    std::vector<ChainRound> rounds;
    for (uint64_t d = 1; d < n; d *= 2) {
        rounds.push_back({d, static_cast<double>(std::min<uint64_t>(d, n - d)) * b, 0});
    }
    return b * p.copy + distance_chain(p, n, rounds) + n * b * p.copy;
}

// Step k pairs ranks (2i, 2i+1) when k is even, (2i+1, 2i+2) when odd, and
// each step waits on its partner's previous one: a team over nodes of an
// even number of ranks crosses a node boundary in its odd steps only (its
// critical path alternates the two links), over odd nodes in every step.
double allgather_neighbor(const Args &a, uint32_t n, const Params &p) {
    if (n % 2 != 0) {
        return allgather_ring(a, n, p);
    }
    const double b = bytes_of(a);
    const bool spans = p.ppn != 0 && n > p.ppn;
    auto link = [&](uint32_t k) -> const Link & {
        return !spans || (p.ppn % 2 == 0 && k % 2 == 0) ? p.intra : p.inter;
    };
    double t = first_step(a, p, link(0), b);
    for (uint32_t k = 1; k < n / 2; ++k) {
        t += step(p, link(k), 2 * b);
    }
    return t;
}

// Recursive multiplying over runs of ranks r mod p (allgather_knomial.cc).
double allgather_knomial(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const pat::MultiplyShape s = pat::multiply_shape(a.radix, n);
    std::vector<ChainRound> rounds;
    double cpu = 0;
    for (uint32_t w = 1; w < s.p; w *= s.k) {
        uint64_t off;
        uint64_t len;
        pat::blocks_range(n, s.p, 0, w, &off, &len);
        const Link rl = p.multiply_round(n, w, s.k);
        rounds.push_back({w, static_cast<double>(len) * b, 0});
        cpu += (s.k - 1) * (send_cpu(p, rl, len * b) + recv_cpu(p, rl, len * b));
    }
    const double own = a.inplace && n == s.p ? 0 : b * p.copy;
    const uint32_t extras = (n - 1) / s.p;
    if (n == s.p || extras == 0 || walks(p, n, s.k, s.p, rounds)) {
        const Extras x{b, 0, n * b * p.copy, n * b};
        return own + multiply_chain(p, n, s.k, s.p, rounds, n != s.p ? &x : nullptr);
    }
    // The busiest proxy; as the only one, its first round's partners are in
    // already, and its own runs go out while it sorts the blocks.
    const Link &l = p.team(n);
    const double in = fan_in(p, l, b, extras) - (n - s.p == 1 ? l.L : 0);
    const double mid = n - s.p == 1 ? cpu : multiply_chain(p, n, s.k, s.p, rounds, nullptr);
    return own + in + mid + n * b * p.copy + fan_out(p, l, n * b, extras);
}

// The steps one after another, or a node's NIC carrying every step's
// messages across (pairwise keeps several steps in flight), whichever is
// longer.
double pairwise_steps(uint32_t n, const Params &p, double b) {
    Params own = p;
    own.nic_G = own.nic_msg = 0;
    double steps = 0;
    double nic = 0;
    for (uint32_t i = 1; i < n; ++i) {
        steps += step(p, own.distance_round(n, i), b);
        if (p.ppn != 0 && n > p.ppn) {
            nic += std::min<uint32_t>({i, n - i, p.ppn}) * (p.nic_msg + b * p.nic_G);
        }
    }
    return std::max(steps, nic == 0 ? 0 : msg(p, p.inter, b) + nic);
}

double alltoall_pairwise(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    return (a.inplace ? n * b : b) * p.copy + pairwise_steps(n, p, b);
}

// Every exchange posted at once, rank r + i the i-th destination: the
// messages to a rank leave one per the port's time from one sender after
// another, and its CPU pays every o_send and o_recv.
double alltoall_linear(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const Link l = p.shared(n);
    const double net = fan_out(p, l, b, n - 1);
    const double cpu = (n - 1) * (send_cpu(p, l, b) + recv_cpu(p, l, b));
    if (a.inplace) {
        return n * b * p.copy + std::max(net, cpu);
    }
    return std::max({net, cpu + b * p.copy});
}

// Rotation, ceil(log_k n) rounds of k-1 packed digit sets (a message each,
// of about the round's blocks over k-1), and the final reversal.
double alltoall_bruck(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const uint64_t k = pat::lowered_radix(a.radix, n);
    std::vector<ChainRound> rounds;
    for (uint64_t d = 1; d < n; d *= k) {
        const auto ways = static_cast<uint32_t>(std::min<uint64_t>(k - 1, (n - 1) / d));
        const double bytes = static_cast<double>(pat::digit_blocks(n, k, d)) * b;
        const double each = bytes / ways * p.copy;  // packing one message
        // After the round its blocks are unpacked and the next round's first
        // message packed; the other messages are packed while the previous
        // ones leave.
        rounds.push_back({d, bytes / ways, bytes * p.copy + each, ways, each});
    }
    return (a.inplace ? 2 : 1) * n * b * p.copy + distance_chain(p, n, rounds) +
           3.0 * (n / 2) * b * p.copy;  // up to n/2 swaps of three copies
}

double alltoallv_pairwise(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    return (a.inplace ? (n - 1) * b : b) * p.copy + pairwise_steps(n, p, b);
}

// Every round's header (4 bytes an index), with the blocks at most the
// limit behind it in a second message; larger blocks then go directly,
// PAIRWISE_NUM_POSTS positions (CHUNK_BYTE_LIMIT bytes) at a time, each
// window's messages one after another through the port.
double alltoallv_hybrid(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const bool small = b <= static_cast<double>(coll::hybrid_block_limit(a, n));
    double t = (a.inplace ? (n - 1) * b : b) * p.copy;
    for (uint64_t d = 1; d < n; d *= 2) {
        uint64_t m = 0;  // the indices with bit d set
        for (uint64_t i = d; i < n; i += 2 * d) {
            m += std::min<uint64_t>(d, n - i);
        }
        const Link l = p.distance_round(n, d);
        t += msg(p, l, 4.0 * m);
        if (small && b > 0) {
            t += send_cpu(p, l, m * b) + recv_cpu(p, l, m * b) + wire(p, l, m * b) +
                 2 * m * b * p.copy;
        }
    }
    if (small) {
        return t + (n - 1) * b * p.copy;
    }
    const coll::HybridSettings &s = coll::hybrid_settings(a);
    const auto by_bytes = static_cast<uint64_t>(static_cast<double>(s.chunk_bytes) / b);
    const uint64_t w = std::max<uint64_t>(1, std::min<uint64_t>(s.posts, by_bytes));
    for (uint64_t i = 1; i < n; i += w) {
        const uint64_t k = std::min<uint64_t>(w, n - i);
        const Link l = p.distance_round(n, i);
        t +=
            k * (send_cpu(p, l, b) + recv_cpu(p, l, b)) + flight(p, l, b) + (k - 1) * wire(p, l, b);
    }
    return t;
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_ALLGATHER, "ring", allgather_ring},
    {UCC_COLL_TYPE_ALLGATHER, "bruck", allgather_bruck},
    {UCC_COLL_TYPE_ALLGATHER, "neighbor", allgather_neighbor},
    {UCC_COLL_TYPE_ALLGATHER, "knomial", allgather_knomial},
    {UCC_COLL_TYPE_ALLGATHERV, "ring", allgather_ring},
    {UCC_COLL_TYPE_ALLTOALL, "pairwise", alltoall_pairwise},
    {UCC_COLL_TYPE_ALLTOALL, "linear", alltoall_linear},
    {UCC_COLL_TYPE_ALLTOALL, "bruck", alltoall_bruck},
    {UCC_COLL_TYPE_ALLTOALLV, "pairwise", alltoallv_pairwise},
    {UCC_COLL_TYPE_ALLTOALLV, "hybrid", alltoallv_hybrid},
};

}  // namespace

std::span<const Formula> exchange_formulas() {
    return kFormulas;
}

}  // namespace ucc::cost
