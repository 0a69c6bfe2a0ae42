// Radix-k scatter-reduce and allgather rounds over p = k^m ranks (recursive
// multiplying), shared by allreduce sra_knomial, allgather knomial and
// reduce_scatter knomial.
//
// The buffer is cut into p runs of near-equal numbers of units (larger runs
// first), run i belonging to rank i. In scatter-reduce round s the k ranks of
// a group {b + j d} (d = p / k^(s+1)) split their current range of runs into
// k equal parts; member j keeps part j, sends every other part to its member
// and reduces the k copies of its own in group order v_0 op v_1 op ... op
// v_(k-1). After log_k p rounds rank r holds run r, reduced. The allgather
// runs the rounds backwards from there: each member sends its finished range
// to the k-1 others of its group, and after log_k p rounds every rank holds
// every run.
// Cost of each: log_k p rounds of k-1 messages, (p-1)/p of the buffer moved
// (and reduced) per rank.
#pragma once

#include "lib/coll/coll.h"
#include "lib/coll/patterns/knomial.h"

namespace ucc::coll::patterns {

struct KnomialRuns {
    MultiplyShape shape;  // k, and p the ranks of the rounds (team ranks 0..p-1)
    uint64_t units = 0;   // cut into p runs
    uint64_t unit = 1;    // elements per unit
    // The elements [*off, *off + *len) of runs [lo, hi) (lo < hi).
    void range(uint32_t lo, uint32_t hi, uint64_t *off, uint64_t *len) const {
        blocks_range(units, shape.p, lo, hi, off, len);
        *off *= unit;
        *len *= unit;
    }
    // With one unit per team rank (units = n, allgather and reduce_scatter),
    // rank x's unit belongs to run x mod p, after those of x - p, x - 2p, ...:
    // the element offset of rank x's unit in that run-major layout (rank x's
    // own place when n = p).
    uint64_t place(uint32_t x) const {
        uint64_t off;
        uint64_t len;
        range(x % shape.p, x % shape.p + 1, &off, &len);
        return off + uint64_t{x / shape.p} * unit;
    }
};

// The runs of a block collective on n ranks (allgather, reduce_scatter): one
// unit per rank, its block of `count` elements, whose place() is its rank's.
inline KnomialRuns block_runs(uint32_t radix, uint32_t n, uint64_t count) {
    return {multiply_shape(radix, n), n, count};
}

// Scratch bytes of the scatter-reduce: k-1 received parts and a spare.
uint64_t knomial_scatter_reduce_scratch(const KnomialRuns &runs, size_t esize);
// Rank r < p: reduces its contribution with the other ranks' until run r of
// `acc` holds the result, using `work` (knomial_scatter_reduce_scratch
// bytes); steps `step`, `step` + 1, ... The contribution is `src` (the
// whole buffer; the first round reads it, and acc need hold nothing
// before), or with src nullptr acc itself.
Task knomial_scatter_reduce(Coll &c, uint8_t *acc, uint8_t *work, KnomialRuns runs, uint32_t step,
                            const uint8_t *src = nullptr);
// Rank r < p, holding run r of `buf`: fills in every other run; steps
// `step`, `step` + 1, ...
Task knomial_allgather_runs(Coll &c, uint8_t *buf, KnomialRuns runs, uint32_t step);

}  // namespace ucc::coll::patterns
