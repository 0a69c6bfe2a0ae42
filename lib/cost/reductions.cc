// Cost formulas of the reductions: allreduce, reduce, reduce_scatter(v).
#include <algorithm>
#include <cmath>
#include <vector>

#include "lib/coll/patterns/knomial.h"
#include "lib/coll/patterns/pieces.h"
#include "lib/cost/chain.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"
#include "lib/cost/tree.h"

namespace ucc::cost {

namespace {

using coll::Args;
namespace pat = coll::patterns;

// A ring step that sends b bytes and reduces the b bytes it receives, in
// the pieces of Args::chunk_bytes (send_recv_reduce, patterns/pieces.h):
// the first piece's message and reduction, then one piece per the slowest
// of its CPU, port and reduction; the last piece holds what is left.
double ring_reduce_step(const Params &p, const Link &l, const Args &a, double b) {
    const double es = static_cast<double>(std::max<size_t>(a.esize, 1));
    const pat::Pieces pieces(
        static_cast<uint64_t>(b / es),
        a.chunk_bytes == 0 ? 0 : std::max<uint64_t>(1, a.chunk_bytes / a.esize));
    auto size = [&](uint64_t j) { return static_cast<double>(pieces.size(j)) * es; };
    auto each = [&](double c) {
        return std::max({send_cpu(p, l, c), port(p, l, c), recv_cpu(p, l, c) + reduce(p, c)});
    };
    const double n = static_cast<double>(pieces.n);
    const double rest = pieces.n > 1 ? (n - 2) * each(size(0)) + each(size(pieces.n - 1)) : 0;
    return msg(p, l, size(0)) + reduce(p, size(0)) + rest + ack(p, l, size(0));
}

// The largest of p near-equal blocks of `count` elements, times w blocks.
double run_bytes(uint64_t units, uint32_t pw, uint32_t w, double unit_bytes) {
    uint64_t off;
    uint64_t len;
    pat::blocks_range(units, pw, 0, w, &off, &len);
    return static_cast<double>(len) * unit_bytes;
}

// The radix-k scatter-reduce (patterns/knomial_rounds.h) over `units` of
// unit_bytes: each round's k-1 parts out and in, k-1 reductions and the
// copy back; with `gather`, the allgather rounds too.
double knomial_runs(const Params &p, uint32_t n, pat::MultiplyShape s, uint64_t units,
                    double unit_bytes, bool gather) {
    std::vector<ChainRound> rounds;
    double t = 0;
    for (uint32_t w = s.p / s.k; w >= 1; w /= s.k) {
        const double part = run_bytes(units, s.p, w, unit_bytes);
        rounds.push_back({w, part, (s.k - 1) * reduce(p, part) + copy(p, part)});
        if (gather) {
            // After the scatter-reduce the members start apart: their
            // messages come in one after another.
            t += fan_out(p, p.multiply_round(n, w, s.k), part, s.k - 1);
        }
    }
    return multiply_chain(p, n, s.k, s.p, rounds, nullptr) + t;
}

double allreduce_recursive_doubling(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    const double c = a.inplace ? 0 : copy(p, m);
    const uint32_t pw = pat::pow2_floor(n);
    std::vector<ChainRound> rounds;
    for (uint32_t w = 1; w < pw; w *= 2) {
        rounds.push_back({w, m, reduce(p, m)});
    }
    const Extras extras{m, reduce(p, m), 0, m};
    return c + multiply_chain(p, n, 2, pw, rounds, &extras);
}

double allreduce_knomial(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    const double c = a.inplace ? 0 : copy(p, m);
    if (n == 1) {
        return c;
    }
    const pat::MultiplyShape s = pat::multiply_shape(a.radix, n);
    std::vector<ChainRound> rounds;
    for (uint32_t d = 1; d < s.p; d *= s.k) {
        rounds.push_back({d, m, (s.k - 1) * reduce(p, m)});
    }
    const double back = rounds.size() % 2 == 1 ? copy(p, m) : 0;  // the last partial in the spare
    const Extras extras{m, reduce(p, m), 0, m};
    return c + multiply_chain(p, n, s.k, s.p, rounds, &extras) + back;
}

double allreduce_rabenseifner(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    const double c = a.inplace ? 0 : copy(p, m);
    const uint32_t pw = pat::pow2_floor(n);
    const Link &l = p.team(n);
    const Extras x{m, reduce(p, m), 0, m};
    double t = c + fold_in(p, l, x, n, pw, m / 2) + fold_out(p, l, x, n, pw);
    for (uint32_t w = pw / 2; w >= 1; w /= 2) {
        const double half = run_bytes(a.count, pw, w, static_cast<double>(a.esize));
        t += 2 * step(p, p.multiply_round(n, w, 2), half) + reduce(p, half);
    }
    return t;
}

double allreduce_sra_knomial(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    if (n == 1) {
        return a.inplace ? 0 : copy(p, m);
    }
    const pat::MultiplyShape s = pat::multiply_shape(a.radix, n);
    // (Out of place, only the extras and their proxies copy src first.)
    const double c = a.inplace || s.p == n ? 0 : copy(p, m);
    const Link &l = p.team(n);
    const Extras x{m, reduce(p, m), 0, m};
    return c + fold_in(p, l, x, n, s.p, m / s.k) +
           knomial_runs(p, n, s, a.count, static_cast<double>(a.esize), true) +
           fold_out(p, l, x, n, s.p);
}

double allreduce_sharp(const Args &a, uint32_t, const Params &p) {
    if (p.sharp_lat <= 0) {
        return -1;
    }
    const double m = bytes_of(a);
    return (a.inplace ? 0 : copy(p, m)) + p.o_send + 2 * (p.inter.L + m * p.inter.G) + p.sharp_lat +
           m * p.sharp_G + p.o_recv;
}

double reduce_knomial(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    if (n == 1) {
        return copy(p, m);
    }
    TreeCosts t;
    t.p = &p;
    t.k = a.radix;
    t.bytes = [m](uint64_t) { return m; };
    t.before = [&p, m](uint64_t) { return copy(p, m); };
    t.per_child = [&p, m](uint64_t) { return reduce(p, m); };
    return tree_up(t, n);
}

double reduce_srg(const Args &a, uint32_t n, const Params &p) {
    const double m = bytes_of(a);
    if (n == 1) {
        return copy(p, m);
    }
    const pat::MultiplyShape s = pat::multiply_shape(a.radix, n);
    const double es = static_cast<double>(a.esize);
    TreeCosts t;
    t.p = &p;
    t.k = a.radix;
    if (s.p != n || n == s.k) {
        // The ring reduce-scatter, then the k-nomial gather of n blocks.
        const double b = run_bytes(a.count, n, 1, es);
        t.bytes = [b](uint64_t span) { return span * b; };
        return (n - 1) * ring_reduce_step(p, p.ring(n), a, b) + tree_up(t, n);
    }
    // n = k^j: the k-nomial scatter-reduce (its first round reading the
    // rank's own vector: no copy of it), and the runs gathered up the tree. The last round's k - 1
    // messages leave every member in the same order, so the root's group finishes one receive
    // apart: the root's first k - 2 gather receives overlap its wait for the
    // last member.
    t.k = s.k;
    t.bytes = [&a, n, es](uint64_t span) {
        return run_bytes(a.count, n, static_cast<uint32_t>(span), es);
    };
    const double overlap =
        (s.k - 2) * recv_cpu(p, p.multiply_round(n, 1, s.k), run_bytes(a.count, n, 1, es));
    return knomial_runs(p, n, s, a.count, es, false) + tree_up(t, n) - overlap;
}

double reduce_scatter_ring(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    if (n == 1) {
        return a.inplace ? 0 : copy(p, b);
    }
    return (n - 1) * ring_reduce_step(p, p.ring(n), a, b);
}

double reduce_scatter_knomial(const Args &a, uint32_t n, const Params &p) {
    const double b = bytes_of(a);
    if (n == 1) {
        return a.inplace ? 0 : copy(p, b);
    }
    const double total = n * b;
    const pat::MultiplyShape s = pat::multiply_shape(a.radix, n);
    const Link &l = p.team(n);
    const uint32_t extras = (n - 1) / s.p;
    // (With no extras the first round reads the input: no copy.)
    return (n == s.p ? 0 : copy(p, total)) +
           fold_in(p, l, {total, reduce(p, total), 0, 0}, n, s.p, total / s.k) +
           knomial_runs(p, n, s, n, b, false) + copy(p, b) +
           (n != s.p && extras > 0 ? fan_out(p, l, b, extras) : 0);
}

constexpr Formula kFormulas[] = {
    {UCC_COLL_TYPE_ALLREDUCE, "recursive_doubling", allreduce_recursive_doubling},
    {UCC_COLL_TYPE_ALLREDUCE, "knomial", allreduce_knomial},
    {UCC_COLL_TYPE_ALLREDUCE, "rabenseifner", allreduce_rabenseifner},
    {UCC_COLL_TYPE_ALLREDUCE, "sra_knomial", allreduce_sra_knomial},
    {UCC_COLL_TYPE_ALLREDUCE, "sharp", allreduce_sharp},
    {UCC_COLL_TYPE_REDUCE, "knomial", reduce_knomial},
    {UCC_COLL_TYPE_REDUCE, "srg", reduce_srg},
    {UCC_COLL_TYPE_REDUCE_SCATTER, "ring", reduce_scatter_ring},
    {UCC_COLL_TYPE_REDUCE_SCATTER, "knomial", reduce_scatter_knomial},
    {UCC_COLL_TYPE_REDUCE_SCATTERV, "ring", reduce_scatter_ring},
};

}  // namespace

std::span<const Formula> reduction_formulas() {
    return kFormulas;
}

}  // namespace ucc::cost
