// Predicted times: the formula of an algorithm by (type, name), on the
// network as the team and the collective see it (Params::for_team).
#include "lib/cost/cost.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "lib/coll/coll_types.h"
#include "lib/coll/radix.h"
#include "lib/cost/formulas.h"
#include "lib/cost/loggp.h"

namespace ucc::cost {

Params Params::for_team(uint32_t n, double working) const {
    Params q = *this;
    const uint32_t node_ranks = ppn == 0 ? n : std::min(ppn, n);
    if (cores != 0 && node_ranks > cores) {
        // The busiest core's ranks take turns: each one's CPU time waits for
        // the others', and a wait ends after a switch per rank.
        const double s = (node_ranks + cores - 1) / cores;
        q.wake *= s;
        for (double *cpu : {&q.o_send, &q.o_recv, &q.copy, &q.reduce, &q.o_call,
                            &q.intra_msgs.o_bcopy, &q.intra_msgs.bcopy_G, &q.intra_msgs.o_pull,
                            &q.intra_msgs.pull_G, &q.inter_msgs.o_bcopy, &q.inter_msgs.bcopy_G,
                            &q.copy_mem, &q.reduce_mem, &q.pull_mem}) {
            *cpu *= s;
        }
    } else {
        q.wake = 0;
    }
    q.cores = 0;
    if (cache > 0 && working > cache) {
        for (auto [bw, mem] : {std::pair{&q.copy, q.copy_mem}, std::pair{&q.reduce, q.reduce_mem},
                               std::pair{&q.intra_msgs.pull_G, q.pull_mem}}) {
            *bw = mem > 0 ? mem : *bw;
        }
    }
    q.cache = 0;
    return q;
}

double working_set(const coll::Args &a, uint32_t n) {
    // dst: every block, or the vector (coll_types.h); src beside it unless
    // in place: as large for alltoall(v) and the reductions of a vector, one
    // block for the others, none for bcast (one buffer).
    const double dst = static_cast<double>(coll::message_bytes(a.type, a.count, a.esize, n));
    if (a.inplace || a.type == UCC_COLL_TYPE_BCAST) {
        return dst;
    }
    const bool whole = a.type == UCC_COLL_TYPE_ALLTOALL || a.type == UCC_COLL_TYPE_ALLTOALLV ||
                       a.type == UCC_COLL_TYPE_ALLREDUCE || a.type == UCC_COLL_TYPE_REDUCE;
    return dst + (whole ? dst : bytes_of(a));
}

namespace {

// The working set of the pulls (the simulator's): their receiver's buffers,
// and the pull's own bytes twice at least. A scatter's and a bcast's
// receivers hold one block, or the one buffer, not the root's span.
double pull_working_set(const coll::Args &a, uint32_t n) {
    if (a.type == UCC_COLL_TYPE_SCATTER || a.type == UCC_COLL_TYPE_SCATTERV) {
        return 2 * bytes_of(a);
    }
    if (a.type == UCC_COLL_TYPE_BCAST) {
        return 2 * working_set(a, n);
    }
    return working_set(a, n);
}

// p for the team and the collective (Params::for_team), its pulls beyond
// the cache by their own working set.
Params for_collective(const Params &p, const coll::Args &a, uint32_t n) {
    const double working = working_set(a, n);
    Params q = p.for_team(n, working);
    const double pulls = pull_working_set(a, n);
    if (pulls != working) {
        q.intra_msgs.pull_G = p.for_team(n, pulls).intra_msgs.pull_G;
    }
    return q;
}

}  // namespace

bool reads_segment(const coll::Algorithm &alg) {
    for (const Formula &f : pipeline_formulas()) {
        if (f.type == alg.type && std::strcmp(f.name, alg.name) == 0) {
            return true;
        }
    }
    return false;
}

uint64_t segment_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p) {
    if (a.segment_bytes != coll::kSegmentAuto) {
        return a.segment_bytes;
    }
    if (!reads_segment(alg)) {
        return coll::kSegmentAuto;
    }
    // Predicted from what every member passes alike (a rooted collective's
    // root alone may be in place): every member takes the same segment.
    coll::Args b = a;
    b.inplace = false;
    uint64_t best = coll::kDefaultSegment;
    double best_t = -1;
    for (uint64_t s : segment_candidates()) {
        b.segment_bytes = s;
        const double t = predict(alg, b, n, p);
        if (t >= 0 && (best_t < 0 || t < best_t)) {
            best = s;
            best_t = t;
        }
    }
    return best;
}

namespace {

// The formula of `alg`; nullptr: none.
const Formula *formula_of(const coll::Algorithm &alg) {
    for (auto family : {reduction_formulas, tree_formulas, exchange_formulas, pipeline_formulas,
                        level_formulas}) {
        for (const Formula &f : family()) {
            if (f.type == alg.type && std::strcmp(f.name, alg.name) == 0) {
                return &f;
            }
        }
    }
    return nullptr;
}

// Up to 8, the largest of the reference's defaults (BARRIER_KN_RADIX): on
// the selection sweep's grid radixes of 16, 32 and 64 made the chosen
// collectives 0.2 % faster (geometric mean) and a simulated rank hold k - 1
// messages at once (a 1,024-rank timing-only sweep of allreduce: twice the
// memory and the wall time).
constexpr uint32_t kRadixCandidates[] = {2, 3, 4, 5, 6, 7, 8};

// The cheapest candidate radix for f running `a` on n ranks (q: the
// collective's terms), and its time (negative: none predicted).
std::pair<uint32_t, double> cheapest_radix(const Formula &f, const coll::Args &a, uint32_t n,
                                           const Params &q) {
    coll::Args b = a;
    b.radixes = nullptr;
    std::pair<uint32_t, double> best{coll::kDefaultRadix, -1.0};
    for (uint32_t k : kRadixCandidates) {
        if (k > 2 && k > n) {
            break;  // the algorithms lower a radix to the team size
        }
        b.radix = k;
        const double t = f.fn(b, n, q);
        if (t >= 0 && (best.second < 0 || t < best.second)) {
            best = {k, t};
        }
    }
    return best;
}

}  // namespace

// Not where a node's ranks share its NIC: the formulas do not follow its
// queues at k - 1 messages a round per rank closely enough to rank radixes
// (on networks/hdr-32x40.net the radix they predicted cheapest ran up to 16
// times slower than 4 in the simulator).
bool chooses_radix(const Params &p) {
    return p.nic_G == 0 && p.nic_msg == 0;
}

uint32_t radix_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p) {
    const uint32_t set = a.radixes == nullptr ? a.radix : coll::radix_for(alg, a, n);
    if (set != coll::kRadixAuto) {
        return set;
    }
    const Formula *f = coll::reads_radix(alg) && chooses_radix(p) ? formula_of(alg) : nullptr;
    if (f == nullptr || n == 0) {
        return coll::kDefaultRadix;
    }
    return cheapest_radix(*f, a, n, for_collective(p, a, n)).first;
}

double predict(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p) {
    const Formula *f = n == 0 ? nullptr : formula_of(alg);
    if (f == nullptr) {
        return -1;
    }
    const Params q = for_collective(p, a, n);
    if (a.radixes == nullptr) {
        return q.o_call + f->fn(a, n, q);
    }
    coll::Args b = a;  // with the radix this algorithm runs with
    b.radix = coll::radix_for(alg, a, n);
    if (b.radix != coll::kRadixAuto) {
        return q.o_call + f->fn(b, n, q);
    }
    if (!coll::reads_radix(alg) || !chooses_radix(p)) {
        b.radix = coll::kDefaultRadix;
        return q.o_call + f->fn(b, n, q);
    }
    const double t = cheapest_radix(*f, b, n, q).second;
    return t < 0 ? t : q.o_call + t;
}

}  // namespace ucc::cost
