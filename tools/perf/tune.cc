// ucc_sim --tune: the fastest algorithm per size, as ranges and TUNE tokens.
#include "tools/perf/tune.h"

#include <algorithm>

namespace ucc::perf {

namespace {
constexpr double kKeep = 1.05;
}  // namespace

std::vector<std::string> split_names(const std::string &list) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t end = std::min(list.find(',', start), list.size());
        if (end > start) {
            out.push_back(list.substr(start, end - start));
        }
        start = end + 1;
    }
    return out;
}

std::vector<int> fastest(const std::vector<TuneColumn> &cols, size_t sizes) {
    std::vector<int> best(sizes, -1);
    auto time = [&](int c, size_t k) {
        return c >= 0 && k < cols[c].seconds.size() ? cols[c].seconds[k] : -1.0;
    };
    for (size_t k = 0; k < sizes; ++k) {
        for (size_t c = 0; c < cols.size(); ++c) {
            const double s = time(static_cast<int>(c), k);
            if (s >= 0 && (best[k] < 0 || s < time(best[k], k))) {
                best[k] = static_cast<int>(c);
            }
        }
        // The previous size's choice while it stays within kKeep of the
        // fastest: fewer ranges, none for a difference the jitter makes.
        const double kept = k > 0 ? time(best[k - 1], k) : -1;
        if (kept >= 0 && kept <= time(best[k], k) * kKeep) {
            best[k] = best[k - 1];
        }
    }
    return best;
}

std::vector<TuneRange> tune_ranges(const std::vector<uint64_t> &msgsizes,
                                   const std::vector<TuneColumn> &cols,
                                   const std::vector<int> &best) {
    std::vector<TuneRange> out;
    for (size_t k = 0; k < msgsizes.size() && k < best.size(); ++k) {
        if (best[k] < 0) {
            continue;  // nothing ran it: the library's own choice there
        }
        const std::string &alg = cols[best[k]].alg;
        if (!out.empty() && out.back().alg == alg) {
            continue;
        }
        if (!out.empty()) {
            out.back().hi = msgsizes[k];
        }
        out.push_back({out.empty() ? 0 : msgsizes[k], UINT64_MAX, alg});
    }
    return out;
}

std::string tune_string(const char *coll, uint32_t ranks, const std::vector<TuneRange> &ranges) {
    std::string s;
    const std::string team = "[" + std::to_string(ranks) + "]";
    for (const TuneRange &r : ranges) {
        s += s.empty() ? "" : "#";
        s += std::string(coll) + ":" + team + ":";
        if (ranges.size() > 1) {
            s += std::to_string(r.lo) + "-" +
                 (r.hi == UINT64_MAX ? std::string("inf") : std::to_string(r.hi)) + ":";
        }
        s += "@" + r.alg;
    }
    return s;
}

}  // namespace ucc::perf
