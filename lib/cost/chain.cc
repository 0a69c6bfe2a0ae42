// Rounds of exchanges, rank by rank (chain.h).
#include "lib/cost/chain.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

// A message's terms on a link, worked out once per round.
struct Hop {
    double send = 0;    // its sender's CPU
    double space = 0;   // after another send
    double flight = 0;  // to the receiver
    double recv = 0;    // its receiver's CPU
    double ack = 0;     // a rendezvous's answer
    double in = 0;      // the receiver's port, taking it in (port_in but the gap)
    Hop() = default;
    Hop(const Params &p, const Link &l, double b)
        : send(send_cpu(p, l, b)),
          space(spacing(p, l, b)),
          flight(cost::flight(p, l, b)),
          recv(recv_cpu(p, l, b)),
          ack(cost::ack(p, l, b)),
          in(port_in(p, l, b) - p.gap) {}
};

// When each message arrives, and its receive's CPU.
using Arrivals = std::vector<std::pair<double, double>>;

// A round of `ways` partners a side: rank r (free at `self`) sends in turn
// to r - d, r - 2d, ... (hop_out(j)), then takes in the messages of r + d,
// r + 2d, ... (their senders free at from(j), each its j-th send: hop_in(j))
// as they arrive; when it is done. `arrivals`: scratch.
template <class FromAt, class HopOf, class OutOf>
double partners_round(double self, uint32_t ways, double pack, FromAt from, HopOf hop_in,
                      OutOf hop_out, Arrivals &arrivals) {
    // A sender's next send, `pack` of CPU work and its own, or its port's gap.
    auto every = [pack](const Hop &h) { return std::max(h.space, pack + h.send); };
    double cpu = self;
    double ack = 0;
    for (uint32_t j = 0; j < ways; ++j) {
        const Hop &out = hop_out(j);
        cpu += j == 0 ? out.send : every(out);
        ack = std::max(ack, out.ack);
    }
    if (ways == 1) {
        const Hop &in = hop_in(0);
        return std::max(cpu, from(0) + in.send + in.flight) + in.recv + ack;
    }
    arrivals.clear();
    for (uint32_t j = 0; j < ways; ++j) {
        const Hop &in = hop_in(j);
        arrivals.push_back({from(j) + j * every(in) + in.send + in.flight, in.recv});
    }
    std::sort(arrivals.begin(), arrivals.end());
    for (const auto &[at, recv] : arrivals) {
        cpu = std::max(cpu, at) + recv;
    }
    return cpu + ack;
}

// Every round on one link for every rank (one node), or on its average.
double averaged(const Params &p, uint32_t n, std::span<const ChainRound> rounds) {
    double t = 0;
    Arrivals arrivals;
    for (const ChainRound &c : rounds) {
        const Hop h(p, p.distance_round(n, c.d), c.bytes);
        auto same = [&](uint32_t) -> const Hop & { return h; };
        t = partners_round(
                t, c.ways, c.pack, [t](uint32_t) { return t; }, same, same, arrivals) +
            c.local;
    }
    return t;
}

}  // namespace

double distance_chain(const Params &p, uint32_t n, std::span<const ChainRound> rounds) {
    if (p.ppn == 0 || n <= p.ppn) {
        return averaged(p, n, rounds);
    }
    // Full nodes: rank r and r + ppn see the same links in every round, so
    // node 0's ranks stand for all.
    const bool full = n % p.ppn == 0;
    if (!full && n > kExactRanks) {
        return averaged(p, n, rounds);
    }
    const uint32_t m = full ? p.ppn : n;
    std::vector<double> t(m, 0.0);
    std::vector<double> next(m);
    std::vector<Hop> far;
    Arrivals arrivals;
    for (const ChainRound &c : rounds) {
        const Hop near(p, p.intra, c.bytes);
        far.clear();
        for (uint32_t j = 1; j <= c.ways; ++j) {
            const uint64_t d = j * c.d % n;
            far.emplace_back(
                p, p.crossing(static_cast<double>(std::min<uint64_t>({d, n - d, p.ppn}))), c.bytes);
        }
        for (uint32_t r = 0; r < m; ++r) {
            auto from = [&](uint32_t j) { return static_cast<uint32_t>((r + (j + 1) * c.d) % n); };
            auto to = [&](uint32_t j) {
                return static_cast<uint32_t>((r + n - (j + 1) * c.d % n) % n);
            };
            next[r] = partners_round(
                          t[r], c.ways, c.pack, [&](uint32_t j) { return t[from(j) % m]; },
                          [&](uint32_t j) -> const Hop & {
                              return p.same_node(r, from(j)) ? near : far[j];
                          },
                          [&](uint32_t j) -> const Hop & {
                              return p.same_node(r, to(j)) ? near : far[j];
                          },
                          arrivals) +
                      c.local;
        }
        t.swap(next);
    }
    return *std::max_element(t.begin(), t.end());
}

double fold_in(const Params &p, const Link &l, const Extras &x, uint32_t n, uint32_t ranks,
               double first) {
    const uint32_t most = (n - 1) / ranks;
    if (n == ranks || most == 0) {
        return 0;
    }
    return msg(p, l, x.in) + most * x.in_local + (most - 1) * recv_cpu(p, l, x.in) -
           (n - ranks == 1 && ranks > 1 ? flight(p, l, first) : 0);
}

double fold_out(const Params &p, const Link &l, const Extras &x, uint32_t n, uint32_t ranks) {
    const uint32_t most = (n - 1) / ranks;
    return n == ranks || most == 0 ? 0 : x.out_local + fan_out(p, l, x.out, most);
}

bool walks(const Params &p, uint32_t n, uint32_t k, uint32_t ranks,
           std::span<const ChainRound> rounds) {
    if (p.ppn == 0 || n <= p.ppn || ranks > kExactRanks) {
        return false;
    }
    if (n != ranks || ranks % p.ppn != 0) {
        return true;  // the extras, a short node: ranks unlike
    }
    // Every rank alike in a round when its group lies within a node, spans
    // whole nodes, or has every member on a node of its own: the sum of the
    // rounds is exact.
    const uint64_t ppn = p.ppn;
    return std::any_of(rounds.begin(), rounds.end(), [&](const ChainRound &c) {
        const uint64_t span = c.d * k;
        return !(ppn % span == 0 || c.d % ppn == 0 || (ppn % c.d == 0 && span % ppn == 0));
    });
}

double multiply_chain(const Params &p, uint32_t n, uint32_t k, uint32_t ranks,
                      std::span<const ChainRound> rounds, const Extras *extras) {
    const Extras x = extras != nullptr ? *extras : Extras{};
    // The busiest proxy's extras.
    const uint32_t most = extras == nullptr || ranks == n ? 0 : (n - 1) / ranks;
    if (!walks(p, n, k, ranks, rounds)) {
        // The busiest proxy's extras, each round's slowest member.
        const Link &l = p.team(n);
        const double first = rounds.empty() ? 0 : rounds.front().bytes;
        double t = most > 0 ? fold_in(p, l, x, n, ranks, first) + fold_out(p, l, x, n, ranks) : 0;
        for (const ChainRound &c : rounds) {
            t += round(p, p.multiply_round(n, c.d, k), c.bytes, k - 1) + c.local;
        }
        return t;
    }
    // Each proxy takes its extras' messages in rank order first.
    std::vector<double> t(ranks, 0.0);
    for (uint32_t q = 0; q < ranks && most > 0; ++q) {
        for (uint32_t e = q + ranks; e < n; e += ranks) {
            const Link &l = p.link(e, q);
            t[q] = std::max(t[q], send_cpu(p, l, x.in) + flight(p, l, x.in)) +
                   recv_cpu(p, l, x.in) + x.in_local;
        }
    }
    std::vector<double> next(ranks);
    std::vector<double> leave(uint64_t{ranks} * (k - 1));
    std::vector<Arrival> heard;  // the partners' messages
    heard.reserve(k - 1);
    std::vector<uint32_t> node(ranks);
    for (uint32_t r = 0; r < ranks; ++r) {
        node[r] = r / p.ppn;
    }
    std::vector<uint32_t> sending(node.back() + 1);
    std::vector<Hop> far(sending.size());  // from each node
    // Every rank r = g + j w + o (g a multiple of k w, o < w): member j of
    // its group, whose members are g + o + i w.
    auto each = [&](uint64_t w, auto f) {
        for (uint64_t g = 0; g < ranks; g += w * k) {
            for (uint32_t j = 0; j < k; ++j) {
                for (uint64_t o = 0; o < w; ++o) {
                    f(static_cast<uint32_t>(g + j * w + o), j, g + o);
                }
            }
        }
    };
    for (const ChainRound &c : rounds) {
        const uint64_t w = c.d;
        // A node's messages across share its NIC: as many at once as its
        // ranks' messages across over k - 1.
        std::fill(sending.begin(), sending.end(), 0);
        each(w, [&](uint32_t r, uint32_t, uint64_t base) {
            for (uint32_t i = 0; i < k; ++i) {
                sending[node[r]] += node[base + i * w] != node[r] ? 1 : 0;
            }
        });
        for (size_t x = 0; x < sending.size(); ++x) {
            const double at_once = std::max(1.0, static_cast<double>(sending[x]) / (k - 1));
            far[x] = Hop(p, p.crossing(at_once), c.bytes);
        }
        const Hop near(p, p.intra, c.bytes);
        auto hop = [&](uint64_t from, uint64_t to) -> const Hop & {
            return node[from] == node[to] ? near : far[node[from]];
        };
        // Each rank's sends, member mine + i i-th: when each leaves its CPU.
        each(w, [&](uint32_t r, uint32_t mine, uint64_t base) {
            double at = t[r];
            double *out = &leave[uint64_t{r} * (k - 1)];
            for (uint32_t i = 1; i < k; ++i) {
                const Hop &h = hop(r, base + ((mine + i) % k) * w);
                at += i == 1 ? h.send : h.space;
                *out++ = at;
            }
        });
        // Then each partner's message as it comes in: r is partner i's
        // ((mine - i) mod k)-th send.
        each(w, [&](uint32_t r, uint32_t mine, uint64_t base) {
            double acks = 0;
            heard.clear();
            for (uint32_t i = 0; i < k; ++i) {
                if (i != mine) {
                    const uint64_t q = base + i * w;
                    const Hop &h = hop(q, r);
                    const uint32_t place = (mine + k - i) % k - 1;
                    heard.push_back({leave[q * (k - 1) + place] + h.flight, h.in, h.recv});
                    acks = std::max(acks, hop(r, q).ack);
                }
            }
            next[r] = match_all(p, heard, leave[uint64_t{r} * (k - 1) + k - 2]) + acks + c.local;
        });
        t.swap(next);
    }
    // Then hands the result to its extras in rank order.
    double last = *std::max_element(t.begin(), t.end());
    for (uint32_t q = 0; q < ranks && most > 0; ++q) {
        double at = t[q] + x.out_local;
        for (uint32_t e = q + ranks, i = 0; e < n; e += ranks, ++i) {
            const Link &l = p.link(q, e);
            at += i == 0 ? send_cpu(p, l, x.out) : spacing(p, l, x.out);
            last =
                std::max(last, at + flight(p, l, x.out) + recv_cpu(p, l, x.out) + ack(p, l, x.out));
        }
    }
    return last;
}

}  // namespace ucc::cost
