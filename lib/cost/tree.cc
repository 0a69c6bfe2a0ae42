// Timing of a k-nomial tree (tree.h).
#include "lib/cost/tree.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "lib/cost/loggp.h"

namespace ucc::cost {

namespace {

struct Child {
    uint64_t span;
    uint64_t pos;     // its children sit below this position
    uint64_t offset;  // from its parent's position
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
                out.push_back({std::min(q, span - j * q), q, j * q});
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
    Walk(const TreeCosts &t, uint64_t n) : t_(t), n_(n) {}

    // The subtree of `span` ranks at position x.
    double down(uint64_t x, uint64_t pos, uint64_t span) {
        if (span == pos) {
            if (const double *m = memo(x, pos)) {
                return *m;
            }
        }
        const Params &p = *t_.p;
        double cpu = 0;
        double port = 0;
        double done = 0;
        for (const Child &c : children(pos, span, t_.k)) {
            const double b = t_.bytes(c.span);
            const Link &l = p.link(x, x + c.offset);
            cpu += send_cpu(p, l, b);
            const double dep = std::max(cpu, port);
            port = dep + cost::port(p, l, b);
            // The child's subtree, or this rank's rendezvous send's answer.
            done = std::max(done, dep + flight(p, l, b) + recv_cpu(p, l, b) +
                                      std::max(down(x + c.offset, c.pos, c.span), ack(p, l, b)));
        }
        if (span == pos) {
            remember(x, pos, done);
        }
        return done;
    }

    double up(uint64_t x, uint64_t pos, uint64_t span) {
        if (span == pos) {
            if (const double *m = memo(x, pos)) {
                return *m;
            }
        }
        const Params &p = *t_.p;
        const std::vector<Child> kids = children(pos, span, t_.k);
        double t = 0;
        if (!kids.empty()) {
            std::vector<Arrival> arrivals;
            for (const Child &c : kids) {
                const double b = t_.bytes(c.span);
                const Link &l = p.link(x, x + c.offset);
                arrivals.push_back(
                    {up(x + c.offset, c.pos, c.span) + send_cpu(p, l, b) + flight(p, l, b),
                     wire(p, l, b), recv_cpu(p, l, b)});
            }
            t = match_all(p, arrivals, t_.before ? t_.before(span) : 0);
            if (t_.per_child) {
                t += kids.size() * t_.per_child(span);
            }
        }
        if (span == pos) {
            remember(x, pos, t);
        }
        return t;
    }

  private:
    // Complete subtrees of one size cost the same where they sit alike on
    // the nodes: within one node, or from the same position within a node.
    std::pair<uint64_t, uint64_t> key(uint64_t x, uint64_t pos) const {
        const uint32_t ppn = t_.p->ppn;
        if (ppn == 0 || n_ <= ppn || x / ppn == (x + pos - 1) / ppn) {
            return {pos, ppn};  // within one node (x % ppn < ppn otherwise)
        }
        return {pos, x % ppn};
    }
    const double *memo(uint64_t x, uint64_t pos) const {
        const auto k = key(x, pos);
        for (const auto &[q, v] : memo_) {
            if (q == k) {
                return &v;
            }
        }
        return nullptr;
    }
    void remember(uint64_t x, uint64_t pos, double v) { memo_.push_back({key(x, pos), v}); }

    const TreeCosts &t_;
    uint64_t n_;
    std::vector<std::pair<std::pair<uint64_t, uint64_t>, double>> memo_;
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
    Walk w(t, n);
    return w.down(0, root_pos(n, t.k), n);
}

double tree_up(const TreeCosts &t, uint64_t n) {
    Walk w(t, n);
    return w.up(0, root_pos(n, t.k), n);
}

}  // namespace ucc::cost
