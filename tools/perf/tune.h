// ucc_sim --tune: from every candidate algorithm's simulated time at each
// message size, the fastest per size, as contiguous ranges, and the TUNE
// token that selects them (the reference's grammar, lib/select/tune.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ucc::perf {

// The names of a comma-separated list ("a,b,c").
std::vector<std::string> split_names(const std::string &list);

// One candidate's times, one per size (negative: it could not run that one).
struct TuneColumn {
    std::string alg;
    std::vector<double> seconds;
};

// Sizes [lo, hi) (hi UINT64_MAX: no end) that `alg` takes.
struct TuneRange {
    uint64_t lo = 0;
    uint64_t hi = 0;
    std::string alg;
};

// The fastest column per size (ties: the first; the previous size's while
// it is within 5 % of the fastest), index into `cols`, or -1 where none ran;
// and the ranges they make over `msgsizes` (ascending), each
// starting at its first size and the first from 0, the last open-ended.
std::vector<int> fastest(const std::vector<TuneColumn> &cols, size_t sizes);
std::vector<TuneRange> tune_ranges(const std::vector<uint64_t> &msgsizes,
                                   const std::vector<TuneColumn> &cols,
                                   const std::vector<int> &best);

// "allreduce:[64]:0-16384:@knomial#allreduce:[64]:16384-inf:@ring": one
// token per range (message ranges half-open), for teams of `ranks` only.
std::string tune_string(const char *coll, uint32_t ranks, const std::vector<TuneRange> &ranges);

}  // namespace ucc::perf
