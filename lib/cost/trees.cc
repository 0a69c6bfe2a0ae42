// Cost formulas of the rooted collectives and the barrier: bcast, barrier,
// fanin, fanout, gather(v), scatter(v).
#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/coll/patterns/knomial.h"
#include "lib/cost/chain.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"
#include "lib/cost/tree.h"

namespace ucc::cost {

namespace {

using coll::Args;
namespace pat = coll::patterns;

// A k-nomial tree whose messages carry bytes(span).
template <class Bytes>
TreeCosts tree(const Params &p, const Args &a, Bytes bytes) {
    TreeCosts t;
    t.p = &p;
    t.k = a.radix;
    t.bytes = bytes;
    return t;
}

double bcast_knomial(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    return tree_down(tree(p, a, [m](uint64_t) { return m; }), n);
}

// Scatter of n blocks down the tree, then a chain from the root: the chain
// starts when the root has sent its scatter messages and takes n-1 steps,
// the scatter below the root overlapping it but for the copies the
// protocols make a receiver do.
double bcast_sag_knomial(const Args &a, uint32_t n, const Params &p) {
    const double b = std::ceil(static_cast<double>(a.count) / n) * a.esize;
    const Link &l = p.team(n);
    const Link chain = p.ring(n);
    double root = 0;
    for (uint64_t span : root_subtrees(n, a.radix)) {
        root += spacing(p, l, span * b);
    }
    // A rank's copy of its scattered blocks (buffered or pulled) is CPU work
    // its step of the chain waits for; the receive's o overlaps the wait.
    const double scattered = recv_cpu(p, l, b) - p.o_recv;
    return root + scattered + (n - 1) * step(p, chain, b);
}

// Round d: every rank tells rank + j d and hears from rank - j d (j < k,
// j d < n), whose chains may have crossed nodes more often (chain.h).
double barrier_dissemination(const Args &a, uint32_t n, const Params &p) {
    const uint64_t k = pat::lowered_radix(a.radix, n);
    std::vector<ChainRound> rounds;
    for (uint64_t d = 1; d < n; d *= k) {
        const auto ways = static_cast<uint32_t>(std::min<uint64_t>(k - 1, (n - 1) / d));
        rounds.push_back({n - d, 0, 0, ways});
    }
    return distance_chain(p, n, rounds);
}

double barrier_knomial(const Args &a, uint32_t n, const Params &p) {
    const TreeCosts t = tree(p, a, [](uint64_t) { return 0.0; });
    return tree_up(t, n) + tree_down(t, n);
}

double fanin_knomial(const Args &a, uint32_t n, const Params &p) {
    return tree_up(tree(p, a, [](uint64_t) { return 0.0; }), n);
}

// The root's n - 1 messages, its node's first (they arrive sooner), then
// the others' behind them on its port: one receive each in the order they
// arrive.
double linear_in(const Params &p, uint32_t n, double b, double busy) {
    if (p.ppn == 0 || n <= p.ppn) {
        return fan_in(p, p.intra, b, n - 1, busy);
    }
    const uint32_t near = p.ppn - 1;
    const Link &in = p.intra;
    const Link &out = p.inter;
    const double first_in = send_cpu(p, in, b) + flight(p, in, b);
    const double within = take_in(p, in, b, near, first_in, busy);
    const double port_free = first_in - wire(p, in, b) + near * port_in(p, in, b);
    const double first_out =
        std::max(send_cpu(p, out, b) + flight(p, out, b), port_free + wire(p, out, b));
    return take_in(p, out, b, n - 1 - near, first_out, within) + ack(p, out, b);
}

double fanin_linear(const Args &, uint32_t n, const Params &p) {
    return linear_in(p, n, 0, 0);
}

double fanout_knomial(const Args &a, uint32_t n, const Params &p) {
    return tree_down(tree(p, a, [](uint64_t) { return 0.0; }), n);
}

// Subtrees send their ranks' blocks up; the root puts them in rank order.
double gather_knomial(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    TreeCosts t = tree(p, a, [b](uint64_t span) { return span * b; });
    t.before = [&p, b](uint64_t) { return b * p.copy; };
    return tree_up(t, n) + n * b * p.copy;
}

double gather_linear(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    return linear_in(p, n, b, a.inplace ? 0 : b * p.copy);
}

// The root orders the blocks by virtual rank, subtrees take theirs down
// (leaves straight into dst); the root copies its own once its sends are
// done: while they fly, or after the answer of a rendezvous.
double scatter_knomial(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const double down = tree_down(tree(p, a, [b](uint64_t span) { return span * b; }), n);
    const std::vector<uint64_t> spans = root_subtrees(n, a.radix);
    double sends = 0;
    for (uint64_t span : spans) {
        sends += send_cpu(p, p.team(n), span * b);
    }
    const bool answered = !spans.empty() && ack(p, p.team(n), spans.front() * b) > 0;
    const double root = (answered ? down : sends) + (a.inplace ? 0 : b * p.copy);
    return n * b * p.copy + std::max(down, root);
}

// The root posts its n-1 sends, then copies its own block while they fly
// (receivers that pull do so meanwhile), then waits for their answers.
double scatter_linear(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    const Link &l = p.team(n);
    const double posted = (n - 1) * send_cpu(p, l, b);  // the wire's pace is not the CPU's
    return std::max(fan_out(p, l, b, n - 1), posted + (a.inplace ? 0 : b * p.copy));
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_BCAST, "knomial", bcast_knomial},
    {UCC_COLL_TYPE_BCAST, "sag_knomial", bcast_sag_knomial},
    {UCC_COLL_TYPE_BARRIER, "dissemination", barrier_dissemination},
    {UCC_COLL_TYPE_BARRIER, "knomial", barrier_knomial},
    {UCC_COLL_TYPE_FANIN, "knomial", fanin_knomial},
    {UCC_COLL_TYPE_FANIN, "linear", fanin_linear},
    {UCC_COLL_TYPE_FANOUT, "knomial", fanout_knomial},
    {UCC_COLL_TYPE_GATHER, "knomial", gather_knomial},
    {UCC_COLL_TYPE_GATHER, "linear", gather_linear},
    {UCC_COLL_TYPE_GATHERV, "linear", gather_linear},
    {UCC_COLL_TYPE_SCATTER, "knomial", scatter_knomial},
    {UCC_COLL_TYPE_SCATTER, "linear", scatter_linear},
    {UCC_COLL_TYPE_SCATTERV, "linear", scatter_linear},
};

}  // namespace

std::span<const Formula> tree_formulas() {
    return kFormulas;
}

}  // namespace ucc::cost
