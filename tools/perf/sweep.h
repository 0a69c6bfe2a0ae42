// The tools' benchmark sweep (ucc_perftest, ucc_sim): one collective at a
// series of counts, run by every rank through the public API on its team,
// timed by the rank's clock (wall or virtual), optionally checked, and the
// numbers of all ranks gathered per count.
//
// Each rank runs `warmup` untimed and `iterations` timed iterations per count,
// rotating among `n_bufs` buffer sets, moving the root by `root_shift` per
// iteration, re-posting persistent requests. Two timings:
//   per iteration  a barrier before every iteration and each iteration timed
//                  alone from its init to its finalize, a persistent
//                  request's post to completion (ucc_perftest: the
//                  reference's ucc_perftest times the same span);
//   back to back   one barrier before the timed iterations, which then run
//                  without pause, init and finalize included (ucc_sim: the
//                  simulator's virtual clock has no noise to shield from).
// Either may start aligned (ucc_sim --aligned): after the barrier, every
// rank passes an exchange through the world's OOB, which the simulator
// completes on every rank at one virtual instant. The times are then the
// collective's own, as the cost formulas predict it, without the skew the
// barrier leaves (a rank that leaves it late makes its peers wait).
// A rank's number for a count is its mean time per iteration; the sweep's
// result per count is the average, minimum and maximum of those over the ranks.
// Ranks of one process (the simulator) add theirs to one Results directly;
// processes combine them with two allreduces per count, rank 0 keeping them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/perf/coll_call.h"

namespace ucc::perf {

class Progress;

struct SweepPlan {
    CollSpec spec;
    std::vector<uint64_t> counts;  // elements (see coll_call.h)
    uint32_t warmup_small = 0;
    uint32_t warmup_large = 0;
    uint32_t iters_small = 1;
    uint32_t iters_large = 1;
    uint64_t large_from = UINT64_MAX;  // counts from here take the large numbers
    uint32_t n_bufs = 1;
    uint32_t root_shift = 0;
    bool per_iteration = true;  // false: back to back (see above)
    bool aligned = false;       // the barrier followed by SweepWorld::oob's exchange,
                                // and the exchange again after a count's last iteration
    bool check = false;         // check the last iteration's result of every count

    uint32_t warmup(uint64_t count) const;
    uint32_t iterations(uint64_t count) const;  // at least 1
};

// min, min*f, min*f^2 ... up to max (0 is followed by 1).
std::vector<uint64_t> geometric_counts(uint64_t min, uint64_t max, uint64_t factor);

// What the ranks measured at one count.
struct CountResult {
    uint32_t ranks = 0;  // ranks whose numbers are in
    double sum_s = 0;    // of the ranks' mean times
    double min_s = 0;
    double max_s = 0;
    std::string algorithm;  // what rank 0's requests ran
    uint32_t wrong_ranks = 0;
    std::string first_wrong;  // "rank R: why" (of this process's ranks)
    std::string unchecked;    // why this count's results could not be checked
};

class Results {
  public:
    Results(const SweepPlan &plan, uint32_t n);
    const CountResult &at(size_t k) const { return counts_[k]; }
    size_t size() const { return counts_.size(); }
    // One rank's numbers.
    void add(size_t k, uint32_t rank, double mean_s, const std::string &algorithm, bool wrong,
             const std::string &why);
    // Every rank's numbers at once (combined over a team of n).
    void set(size_t k, uint32_t n, const double minmaxsum[3], const std::string &algorithm,
             uint32_t wrong_ranks);
    void set_unchecked(size_t k, const std::string &why);
    // Why this rank's result was wrong (kept from the first rank that says so).
    void note_wrong(size_t k, uint32_t rank, const std::string &why);
    // The v-arrays of count k, made once for all ranks of this process and
    // freed when the last of them is done with them.
    const VArrays *varrays(size_t k);
    void done_with(size_t k);

  private:
    const SweepPlan &plan_;
    uint32_t n_;
    std::vector<CountResult> counts_;
    std::vector<std::unique_ptr<VArrays>> varrays_;
    std::vector<uint32_t> users_;
};

// Failed ranks of a run, and the first one's story.
struct Failures {
    uint64_t ranks = 0;
    std::string first;
    void note(uint32_t rank, const std::string &what) {
        if (ranks++ == 0) {
            first = "rank " + std::to_string(rank) + ": " + what;
        }
    }
};

// Where a rank of the sweep runs.
struct SweepWorld {
    uint32_t rank = 0;
    uint32_t size = 1;
    double (*now)() = nullptr;                           // seconds
    const char *(*algorithm)(ucc_coll_req_h) = nullptr;  // what a completed request ran
    bool shared = false;   // every rank is in this process and adds to one Results
    ucc_oob_coll_t oob{};  // SweepPlan::aligned's (the simulator's OOB over all ranks)
    // How the measured collective is initialised and finalized (the API's
    // own; a test times them by its own clock).
    ucc_status_t (*init)(ucc_coll_args_t *, ucc_coll_req_h *, ucc_team_h) = ucc_collective_init;
    ucc_status_t (*finalize)(ucc_coll_req_h) = ucc_collective_finalize;
};

// The arguments of iteration `it` of a count, for both styles of the sweep:
// *s the spec with the root moved by the plan's shift; `call` (the
// iteration's buffer set, it % n_bufs) built on the set's first use and
// rebuilt when its root moved, its persistent request (*persistent, if any)
// finalized then; the check pattern written on the `last` iteration when the
// plan checks. Returns whether `call` was (re)built.
bool prepare_iteration(const SweepPlan &plan, const CollSpec &spec, uint64_t count, uint32_t n,
                       uint32_t rank, const VArrays *va, uint32_t it, bool last, CollSpec *s,
                       CollCall *call, ucc_coll_req_h *persistent);

// Runs the plan on one rank. Returns "" or what failed (then the rank has
// stopped; a wrong result is not a failure: it is counted in the Results).
// progress may be null.
std::string run_sweep(const SweepPlan &plan, const SweepWorld &w, ucc_team_h team,
                      ucc_context_h ctx, Results *results, Progress *progress);

}  // namespace ucc::perf
