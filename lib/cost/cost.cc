// Predicted times: the formula of an algorithm by (type, name), on the
// network as the team and the collective see it (Params::for_team).
#include "lib/cost/cost.h"

#include <algorithm>
#include <cstring>

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

double predict(const coll::Algorithm &alg, const coll::Args &a, uint32_t n, const Params &p) {
    if (n == 0) {
        return -1;
    }
    for (auto family : {reduction_formulas, tree_formulas, exchange_formulas, pipeline_formulas,
                        level_formulas}) {
        for (const Formula &f : family()) {
            if (f.type == alg.type && std::strcmp(f.name, alg.name) == 0) {
                const Params q = for_collective(p, a, n);
                if (a.radixes == nullptr) {
                    return q.o_call + f.fn(a, n, q);
                }
                coll::Args b = a;  // with the radix this algorithm runs with
                b.radix = coll::radix_for(alg, a, n);
                return q.o_call + f.fn(b, n, q);
            }
        }
    }
    return -1;
}

}  // namespace ucc::cost
