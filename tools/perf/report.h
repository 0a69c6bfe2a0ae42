// The tools' reports of a sweep (ucc_perftest, ucc_sim): one row per count
// with the time per iteration (average, minimum and maximum over the ranks of
// each rank's mean), nccl-tests' algorithm and bus bandwidth, the algorithm
// that ran and whether the results were checked; printed as the reference
// ucc_perftest's table, ucc_sim's table, CSV or JSON lines, all from one Row.
// And the progress bar of long sweeps.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/perf/sweep.h"

namespace ucc::perf {

struct RunInfo {
    const char *tool = "";  // "ucc_perftest", "ucc_sim"
    uint32_t ranks = 0;
    bool simulated = false;
    bool timing_only = false;
    uint64_t seed = 0;    // simulated runs
    std::string network;  // simulated runs: the resolved network model
};

struct Row {
    uint64_t count = 0;
    uint64_t bytes = 0;  // per rank: count x element size
    uint32_t iterations = 0;
    double avg_us = 0;
    double min_us = 0;
    double max_us = 0;
    double algbw_gbps = 0;  // nccl-tests' size / average time
    double busbw_gbps = 0;  // algbw x the collective's factor
    std::string algorithm;
    uint32_t wrong_ranks = 0;
    bool checked = false;  // checked (and right unless wrong_ranks)
};

// The counts every rank measured (a count the run did not reach has no row).
std::vector<Row> rows_of(const SweepPlan &plan, const Results &results, const RunInfo &info);

// The reference ucc_perftest's header and table; `full` adds the bus
// bandwidth columns (-F).
void print_reference_table(FILE *f, const RunInfo &info, const SweepPlan &plan,
                           const std::vector<Row> &rows, bool full);
// ucc_sim's commented header and table.
void print_sim_table(FILE *f, const RunInfo &info, const SweepPlan &plan,
                     const std::vector<Row> &rows);
// ranks,collective,algorithm,bytes,count,dtype,iterations,avg_us,min_us,max_us,
// algbw_gbps,busbw_gbps,mode
void print_csv(FILE *f, const RunInfo &info, const SweepPlan &plan, const std::vector<Row> &rows);
// One JSON object per row: the CSV's fields, then op, inplace, persistent,
// simulated, checked, wrong_ranks, tool, and seed and network when simulated.
void print_json(FILE *f, const RunInfo &info, const SweepPlan &plan, const std::vector<Row> &rows);

// A progress bar on stderr: only on a terminal, only once a run has taken a
// few seconds. Wall time is read for this display alone.
class Progress {
  public:
    Progress(bool enabled, uint64_t total, std::string label);
    ~Progress() { clear(); }
    void tick() {
        if (enabled_ && (++done_ & 63) == 0) {
            draw();
        }
    }
    void clear();

  private:
    using Clock = std::chrono::steady_clock;
    void draw();
    bool enabled_;
    uint64_t total_;
    std::string label_;
    uint64_t done_ = 0;
    Clock::time_point start_;
    Clock::time_point last_{};
    bool drawn_ = false;
};

}  // namespace ucc::perf
