// Timing of a k-nomial tree (tree.h).
#include "lib/cost/tree.h"

#include <algorithm>
#include <vector>

#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

struct Child {
    uint64_t span;
    uint64_t pos;  // its children sit below this position
};

// The children of a subtree root whose subtree spans `span` ranks and whose
// children sit below `pos`, in the order the algorithms send to them:
// highest position first, highest digit first.
std::vector<Child> children(uint64_t pos, uint64_t span, uint32_t k) {
    std::vector<Child> out;
    uint64_t top = 0;
    for (uint64_t q = 1; q < pos && q < span; q *= k) {
        top = q;
    }
    for (uint64_t q = top; q >= 1; q /= k) {
        for (uint64_t j = k - 1; j >= 1; --j) {
            if (j * q < span) {
                out.push_back({std::min(q, span - j * q), q});
            }
        }
    }
    return out;
}

// The position a root's children sit below: every position < n.
uint64_t root_pos(uint64_t n, uint32_t k) {
    uint64_t pos = 1;
    while (pos < n) {
        pos *= k;
    }
    return pos;
}

class Walk {
  public:
    explicit Walk(const TreeCosts &t) : t_(t) {}

    double down(uint64_t pos, uint64_t span) {
        if (span == pos) {
            if (const double *m = memo(pos)) {
                return *m;
            }
        }
        const Params &p = *t_.p;
        double cpu = 0;
        double port = 0;
        double done = 0;
        for (const Child &c : children(pos, span, t_.k)) {
            const double b = t_.bytes(c.span);
            const Link &l = *t_.link;
            cpu += send_cpu(p, l, b);
            const double dep = std::max(cpu, port);
            port = dep + cost::port(p, l, b);
            // The child's subtree, or this rank's rendezvous send's answer.
            done = std::max(done, dep + flight(p, l, b) + recv_cpu(p, l, b) +
                                      std::max(down(c.pos, c.span), ack(p, l, b)));
        }
        if (span == pos) {
            remember(pos, done);
        }
        return done;
    }

    double up(uint64_t pos, uint64_t span) {
        if (span == pos) {
            if (const double *m = memo(pos)) {
                return *m;
            }
        }
        const Params &p = *t_.p;
        const std::vector<Child> kids = children(pos, span, t_.k);
        double t = 0;
        if (!kids.empty()) {
            const Link &l = *t_.link;
            std::vector<std::pair<double, double>> arrivals;  // when, and the receive's CPU
            for (const Child &c : kids) {
                const double b = t_.bytes(c.span);
                arrivals.push_back(
                    {up(c.pos, c.span) + send_cpu(p, l, b) + flight(p, l, b), recv_cpu(p, l, b)});
            }
            std::sort(arrivals.begin(), arrivals.end());
            t = t_.before ? t_.before(span) : 0;
            for (const auto &[when, cpu] : arrivals) {
                t = std::max(t, when) + cpu;
            }
            if (t_.per_child) {
                t += kids.size() * t_.per_child(span);
            }
        }
        if (span == pos) {
            remember(pos, t);
        }
        return t;
    }

  private:
    const double *memo(uint64_t pos) const {
        for (const auto &[q, v] : memo_) {
            if (q == pos) {
                return &v;
            }
        }
        return nullptr;
    }
    void remember(uint64_t pos, double v) { memo_.push_back({pos, v}); }

    const TreeCosts &t_;
    std::vector<std::pair<uint64_t, double>> memo_;
};

}  // namespace

std::vector<uint64_t> root_subtrees(uint64_t n, uint32_t k) {
    std::vector<uint64_t> spans;
    for (const Child &c : children(root_pos(n, k), n, k)) {
        spans.push_back(c.span);
    }
    return spans;
}

double tree_down(const TreeCosts &t, uint64_t n) {
    Walk w(t);
    return w.down(root_pos(n, t.k), n);
}

double tree_up(const TreeCosts &t, uint64_t n) {
    Walk w(t);
    return w.up(root_pos(n, t.k), n);
}

}  // namespace ucc::cost
