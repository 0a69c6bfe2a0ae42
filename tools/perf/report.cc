// The tools' reports of a sweep (report.h).
#include "tools/perf/report.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <utility>

namespace ucc::perf {

namespace {

const char *mode_name(const RunInfo &info) {
    return info.timing_only ? "timing-only" : "payload";
}

// The datatype of a row: none for the collectives without data.
const char *dtype_of(const SweepPlan &plan) {
    return plan.spec.coll->shape == Shape::kNone ? "none" : plan.spec.dtype->name;
}

// "allreduce" -> "Allreduce".
std::string title(const char *name) {
    std::string s = name;
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

// What the algorithm column says.
std::string algorithm_cell(const Row &r, bool check) {
    std::string s = r.algorithm;
    if (r.wrong_ranks > 0) {
        s += " (WRONG on " + std::to_string(r.wrong_ranks) + " rank" +
             (r.wrong_ranks == 1 ? ")" : "s)");
    } else if (check && !r.checked) {
        s += " (unchecked)";
    }
    return s;
}

// The reference's names (its ucc_memory_type_names).
const char *memtype_name(ucc_memory_type_t m) {
    switch (m) {
        case UCC_MEMORY_TYPE_HOST:
            return "host";
        case UCC_MEMORY_TYPE_CUDA:
            return "cuda";
        case UCC_MEMORY_TYPE_CUDA_MANAGED:
            return "cuda-managed";
        case UCC_MEMORY_TYPE_ROCM:
            return "rocm";
        case UCC_MEMORY_TYPE_ROCM_MANAGED:
            return "rocm-managed";
        default:
            return "unknown";
    }
}

}  // namespace

std::vector<Row> rows_of(const SweepPlan &plan, const Results &results, const RunInfo &info) {
    const CollDesc &c = *plan.spec.coll;
    std::vector<Row> rows;
    for (size_t k = 0; k < results.size(); ++k) {
        const CountResult &r = results.at(k);
        if (r.ranks == 0) {
            continue;  // not measured (the run failed before)
        }
        Row row;
        row.count = plan.counts[k];
        row.bytes = row.count * plan.spec.dtype->size;
        row.iterations = plan.iterations(row.count);
        const double avg = r.sum_s / r.ranks;
        row.avg_us = avg * 1e6;
        row.min_us = r.min_s * 1e6;
        row.max_us = r.max_s * 1e6;
        row.algbw_gbps = avg > 0 ? nccl_size(c, row.bytes, info.ranks) / avg / 1e9 : 0;
        row.busbw_gbps = row.algbw_gbps * busbw_factor(c, info.ranks);
        row.algorithm = r.algorithm.empty() ? "none" : r.algorithm;
        row.wrong_ranks = r.wrong_ranks;
        row.checked = plan.check && r.unchecked.empty();
        rows.push_back(row);
    }
    return rows;
}

void print_reference_table(FILE *f, const RunInfo &info, const SweepPlan &plan,
                           const std::vector<Row> &rows, bool full) {
    const CollSpec &s = plan.spec;
    const bool no_data = s.coll->shape == Shape::kNone;
    std::fprintf(f, "%-24s%s\n", "Collective:", title(s.coll->name).c_str());
    std::fprintf(f, "%-24s%s\n", "Memory type:", memtype_name(s.mem));
    std::fprintf(f, "%-24s%s\n", "Datatype:", s.dtype->name);
    std::fprintf(f, "%-24s%s\n", "Reduction:", s.coll->reduction ? s.op->name : "N/A");
    std::fprintf(f, "%-24s%s\n", "Inplace:", no_data ? "N/A" : (s.inplace ? "1" : "0"));
    std::fprintf(f, "%-24s%s\n", "Persistent:", s.persistent ? "1" : "0");
    std::fprintf(f, "%-24s%u%s\n", "Ranks:", info.ranks, info.simulated ? " (simulated)" : "");
    if (info.simulated) {
        std::fprintf(f, "%-24s%s\n", "Network:", info.network.c_str());
    }
    std::fprintf(f, "Warmup:\n%-24s%u\n%-24s%u\n", "  small", plan.warmup_small, "  large",
                 plan.warmup_large);
    std::fprintf(f, "Iterations:\n%-24s%u\n%-24s%u\n\n", "  small", plan.iters_small, "  large",
                 plan.iters_large);
    std::fprintf(f, "%12s%12s%24s", "Count", "Size", "Time, us");
    if (full) {
        std::fprintf(f, "%42s", "Bus Bandwidth, GB/s");
    }
    std::fprintf(f, "   %s\n", "Algorithm");
    std::fprintf(f, "%36s%12s%12s", "avg", "min", "max");
    if (full) {
        std::fprintf(f, "%12s%12s%12s", "avg", "max", "min");
    }
    std::fprintf(f, "\n");
    for (const Row &r : rows) {
        char size[32] = "N/A";
        if (!no_data) {
            std::snprintf(size, sizeof size, "%" PRIu64, r.bytes);
        }
        std::fprintf(f, "%12" PRIu64 "%12s%12.2f%12.2f%12.2f", r.count, size, r.avg_us, r.min_us,
                     r.max_us);
        if (full && no_data) {
            std::fprintf(f, "%12s%12s%12s", "N/A", "N/A", "N/A");
        } else if (full) {
            // Bus bandwidth at the fastest and slowest rank's time.
            auto at = [&](double us) { return us > 0 ? r.busbw_gbps * r.avg_us / us : 0.0; };
            std::fprintf(f, "%12.2f%12.2f%12.2f", r.busbw_gbps, at(r.min_us), at(r.max_us));
        }
        std::fprintf(f, "   %s\n", algorithm_cell(r, plan.check).c_str());
    }
    std::fflush(f);
}

void print_sim_table(FILE *f, const RunInfo &info, const SweepPlan &plan,
                     const std::vector<Row> &rows) {
    const CollSpec &s = plan.spec;
    std::fprintf(f, "# %s: %s, %u ranks, %s%s%s, %u iterations, %s\n", info.tool, s.coll->name,
                 info.ranks, dtype_of(plan), s.coll->reduction ? " " : "",
                 s.coll->reduction ? s.op->name : "", plan.iters_small, mode_name(info));
    std::fprintf(f, "# network: %s\n", info.network.c_str());
    std::fprintf(f, "# %12s %12s  %-20s %12s %12s %12s %12s %12s\n", "bytes", "count", "algorithm",
                 "avg(us)", "min(us)", "max(us)", "algbw(GB/s)", "busbw(GB/s)");
    for (const Row &r : rows) {
        std::fprintf(f, "  %12" PRIu64 " %12" PRIu64 "  %-20s %12.3f %12.3f %12.3f %12.3f %12.3f\n",
                     r.bytes, r.count, algorithm_cell(r, plan.check).c_str(), r.avg_us, r.min_us,
                     r.max_us, r.algbw_gbps, r.busbw_gbps);
    }
    std::fflush(f);
}

void print_csv(FILE *f, const RunInfo &info, const SweepPlan &plan, const std::vector<Row> &rows) {
    std::fprintf(f,
                 "ranks,collective,algorithm,bytes,count,dtype,iterations,avg_us,min_us,max_us,"
                 "algbw_gbps,busbw_gbps,mode\n");
    for (const Row &r : rows) {
        std::fprintf(f, "%u,%s,%s,%" PRIu64 ",%" PRIu64 ",%s,%u,%.6f,%.6f,%.6f,%.6f,%.6f,%s\n",
                     info.ranks, plan.spec.coll->name, r.algorithm.c_str(), r.bytes, r.count,
                     dtype_of(plan), r.iterations, r.avg_us, r.min_us, r.max_us, r.algbw_gbps,
                     r.busbw_gbps, mode_name(info));
    }
    std::fflush(f);
}

void print_json(FILE *f, const RunInfo &info, const SweepPlan &plan, const std::vector<Row> &rows) {
    const CollSpec &s = plan.spec;
    const bool no_data = s.coll->shape == Shape::kNone;
    for (const Row &r : rows) {
        std::fprintf(f,
                     "{\"ranks\":%u,\"collective\":\"%s\",\"algorithm\":\"%s\",\"bytes\":%" PRIu64
                     ",\"count\":%" PRIu64
                     ",\"dtype\":\"%s\",\"iterations\":%u,\"avg_us\":%.6f,\"min_us\":%.6f,"
                     "\"max_us\":%.6f,\"algbw_gbps\":%.6f,\"busbw_gbps\":%.6f,\"mode\":\"%s\","
                     "\"op\":\"%s\",\"inplace\":%s,\"persistent\":%s,\"simulated\":%s,"
                     "\"checked\":%s,\"wrong_ranks\":%u,\"tool\":\"%s\"",
                     info.ranks, s.coll->name, r.algorithm.c_str(), r.bytes, r.count,
                     dtype_of(plan), r.iterations, r.avg_us, r.min_us, r.max_us, r.algbw_gbps,
                     r.busbw_gbps, mode_name(info), s.coll->reduction ? s.op->name : "none",
                     s.inplace && !no_data ? "true" : "false", s.persistent ? "true" : "false",
                     info.simulated ? "true" : "false", r.checked ? "true" : "false", r.wrong_ranks,
                     info.tool);
        if (info.simulated) {
            std::fprintf(f, ",\"seed\":%" PRIu64 ",\"network\":\"%s\"", info.seed,
                         info.network.c_str());
        }
        std::fprintf(f, "}\n");
    }
    std::fflush(f);
}

Progress::Progress(bool enabled, uint64_t total, std::string label)
    : enabled_(enabled && isatty(STDERR_FILENO) == 1),
      total_(total),
      label_(std::move(label)),
      start_(Clock::now()) {}

void Progress::draw() {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 2.0 || std::chrono::duration<double>(now - last_).count() < 0.25) {
        return;
    }
    last_ = now;
    constexpr int kWidth = 30;
    const double frac =
        total_ == 0 ? 1.0 : std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    std::string bar(static_cast<size_t>(frac * kWidth), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r[%s] %5.1f%%  %s  %.0f s ", bar.c_str(), 100.0 * frac, label_.c_str(),
                 elapsed);
    drawn_ = true;
}

void Progress::clear() {
    if (drawn_) {
        std::fputs("\r\033[K", stderr);
        drawn_ = false;
    }
}

}  // namespace ucc::perf
