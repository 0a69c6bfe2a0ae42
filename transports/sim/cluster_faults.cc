// Fault injection (faults.h) by the simulated cluster: failed allocations at
// the library's allocation sites, the fault of a rank's next OOB exchange,
// and what a rank's program asks (exit_rank, failed_allocations). Crashes,
// stalls and delay spikes are events of the event loop (cluster.cc).
#include <string>

#include "transports/sim/cluster.h"

namespace ucc::sim {

bool Cluster::fail_allocation(uint32_t r, AllocSite site) {
    RankState &rs = ranks_[r];
    const uint32_t visit = rs.alloc_visits++;
    const FaultPlan &plan = params_.faults;
    bool fail = false;
    for (const NoMemory &m : plan.nomem) {
        fail |= m.rank == r && m.visit == visit;
    }
    if (!fail && plan.nomem_p > 0) {
        // A function of the seed, the rank and the visit: the same whatever
        // order the ranks run in.
        const uint64_t h =
            Rng(params_.seed ^ 0x6e6f6d656d000000ull ^ (static_cast<uint64_t>(r) << 32) ^ visit)
                .next();
        fail = static_cast<double>(h >> 11) / 9007199254740992.0 < plan.nomem_p;
    }
    if (fail) {
        ++rs.alloc_failures;
        ++faults_injected_;
        if (recording()) {
            TraceEvent e;
            e.kind = TraceKind::kUser;
            e.mark = UserMark::kAllocFailed;
            e.key = static_cast<uint32_t>(site);
            record(r, e);
        }
        note("ucc_sim: rank " + std::to_string(r) + ": allocation " + std::to_string(visit) + " (" +
             alloc_site_name(site) + ") fails (fault plan)");
    }
    return fail;
}

const OobFault *Cluster::oob_fault(uint32_t r) const {
    const RankState &rs = ranks_[r];
    const uint32_t call = rs.oob_calls + rs.exchange_calls;
    for (const OobFault &f : params_.faults.oob) {
        if (f.rank == r && f.call == call) {
            return &f;
        }
    }
    return nullptr;
}

bool exit_rank() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return false;
    }
    c->rank_state(c->running_rank()).exiting = true;
    return true;
}

uint32_t failed_allocations() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return 0;
    }
    return c->rank_state(c->running_rank()).alloc_failures;
}

}  // namespace ucc::sim
