// Diagnosis of a simulated run: the run's report (note), the deadlock report
// with what every unfinished rank waits for, and the fatal messages for a
// rank that never lets the world advance.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "transports/sim/cluster.h"
#include "transports/sim/cluster_internal.h"
#include "transports/sim/sim_transport.h"

namespace ucc::sim {

namespace {

constexpr uint32_t kSpinLimit = 1'000'000;
constexpr uint32_t kPollLimit = 100'000'000;
constexpr size_t kReportRanksMax = 64;

}  // namespace

std::string seconds(int64_t ps) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g s", static_cast<double>(ps) / 1e12);
    return buf;
}

void Cluster::note(const std::string &line) {
    report_ += line;
    if (line.empty() || line.back() != '\n') {
        report_ += '\n';
    }
    std::fprintf(stderr, "%s%s", line.c_str(), (line.empty() || line.back() != '\n') ? "\n" : "");
}

void Cluster::count_spin(uint32_t r, const char *what) {
    if (++ranks_[r].spins <= kSpinLimit) {
        return;
    }
    std::fprintf(stderr,
                 "ucc_sim: rank %u called %s %u times in a row without blocking; giving up\n%s", r,
                 what, kSpinLimit, report_.c_str());
    std::abort();
}

void Cluster::count_empty_poll(uint32_t r) {
    if (++ranks_[r].polls <= kPollLimit) {
        return;
    }
    std::fprintf(stderr,
                 "ucc_sim: rank %u called progress() %u times without calling idle(); a rank "
                 "that finds nothing to do must call idle() or the simulation cannot advance\n",
                 r, kPollLimit);
    std::abort();
}

std::string Cluster::describe_blocked(size_t max_ranks) const {
    std::string s;
    size_t shown = 0;
    size_t more = 0;
    for (uint32_t r = 0; r < n_; ++r) {
        const RankState &rs = ranks_[r];
        if (rs.finished) {
            continue;
        }
        if (shown == max_ranks) {
            ++more;
            continue;
        }
        ++shown;
        s += "  rank " + std::to_string(r) + " (local time " + seconds(rs.clock_ps) + ")" +
             (rs.blocked ? "" : " [running]") + ":\n";
        size_t before = s.size();
        for (const SimTransport *ep = rs.endpoints; ep != nullptr; ep = ep->next_in_rank_) {
            ep->describe_waits(&s);
        }
        if (rs.oob != nullptr) {
            const OobRequest *q = rs.oob;
            uint32_t arrived = q->round != nullptr ? q->round->arrived : n_;
            const bool exchange = (q->round_id >> 63) != 0;
            const uint64_t k = q->round_id & ~(uint64_t{1} << 63);
            s += exchange ? "    inside OOB peer exchange #" + std::to_string(k) + " ("
                          : "    inside OOB allgather #" + std::to_string(k) + " (" +
                                std::to_string(q->size) + " bytes; ";
            s += std::to_string(arrived) + " of " + std::to_string(n_) + " ranks have called it)\n";
        }
        if (rs.hooks != nullptr) {
            s += "    waits in " + std::to_string(rs.hooks->list.size()) +
                 " progress hook(s) (ucc_sim_on_progress) that have not completed\n";
        }
        if (s.size() == before) {
            s += "    blocked in idle() with nothing posted\n";
        }
    }
    if (more > 0) {
        s += "  ... and " + std::to_string(more) + " more unfinished ranks\n";
    }
    return s;
}

void Cluster::deadlock() {
    if (aborted_) {
        // In abort mode no rank blocks; this is a bug in the simulator.
        std::fprintf(stderr, "ucc_sim: internal error: ranks blocked after abort\n%s",
                     report_.c_str());
        std::abort();
    }
    uint32_t unfinished = n_ - finished_;
    std::string rep = "ucc_sim: DEADLOCK at virtual time " + seconds(now_ps_) + ": " +
                      std::to_string(unfinished) + " of " + std::to_string(n_) +
                      " ranks have not finished, none can run and no event is pending\n" +
                      describe_blocked(kReportRanksMax);
    note(rep);
    if (status_ == UCC_OK) {
        status_ = UCC_ERR_NO_MESSAGE;
    }
    // Abort mode: wake everyone; from now on idle() and OOB tests return at once.
    aborted_ = true;
    for (uint32_t r = 0; r < n_; ++r) {
        wake(r);
    }
}

}  // namespace ucc::sim
