// The table of trace checkers (see trace.h), check_all and format. The
// checkers live one file per property group: trace_sync.cc (P14-P17),
// trace_ordering.cc (P18-P22), trace_ownership.cc (P23, P25),
// trace_lifecycle.cc (P27-P30), trace_active_sets.cc (P31, P32),
// trace_teams.cc (P33-P36, P38), trace_faults.cc (P37, P39, P40),
// trace_support.cc (P42), trace_arguments.cc (P44, P45) and
// trace_engines.cc (P48-P50); the index is in
// trace_index.cc and what they share in trace_util.h. Each is written for clarity, not speed:
// traces of property-test cases hold thousands of events, not millions.
#include "model/trace.h"

#include <algorithm>

namespace ucc::model {

namespace {

// A checker that needs nothing but the index.
template <Findings (*Check)(const TraceIndex &)>
Findings index_only(const TraceIndex &ix, const CheckOptions &) {
    return Check(ix);
}

Findings p39_timeout_bounds(const TraceIndex &ix, const CheckOptions &o) {
    return check_p39_timeout_bounds(ix, o.quantum_ps);
}

constexpr Checker kCheckers[] = {
    {14, "barrier", index_only<check_p14_barrier>},
    {15, "sync_entry_exit", index_only<check_p15_sync_entry_exit>},
    {16, "no_access_after_done", index_only<check_p16_no_access_after_done>},
    {17, "fanin_fanout", index_only<check_p17_fanin_fanout>},
    {18, "ordered", index_only<check_p18_ordered>},
    {19, "tags", index_only<check_p19_tags>},
    {20, "complete_and_consistent", index_only<check_p20_complete_and_consistent>},
    {21, "isolation", index_only<check_p21_isolation>},
    {22, "frozen", index_only<check_p22_frozen>},
    {23, "inplace", index_only<check_p23_inplace>},
    {25, "ownership", index_only<check_p25_ownership>},
    {27, "persistent", index_only<check_p27_persistent>},
    {28, "status_machine", index_only<check_p28_status_machine>},
    {29, "finalize", index_only<check_p29_finalize>},
    {30, "timeout_gating", index_only<check_p30_timeout_gating>},
    {31, "active_set", index_only<check_p31_active_set>},
    {32, "active_set_isolation", index_only<check_p32_active_set_isolation>},
    {33, "team_creation", index_only<check_p33_team_creation>},
    {34, "team_destroy", index_only<check_p34_team_destroy>},
    {35, "resource_drift", index_only<check_p35_resource_drift>},
    {36, "use_after_destroy", index_only<check_p36_use_after_destroy>},
    {37, "failed_allocation", index_only<check_p37_failed_allocation>},
    {38, "destroy_terminates", index_only<check_p38_destroy_terminates>},
    {39, "timeout_bounds", p39_timeout_bounds},
    {40, "no_write_after_failure", index_only<check_p40_no_write_after_failure>},
    {42, "same_algorithm", index_only<check_p42_same_algorithm>},
    {44, "argument_match", index_only<check_p44_argument_match>},
    {45, "argument_range", index_only<check_p45_argument_range>},
    {48, "trigger", index_only<check_p48_trigger>},
    {49, "events_in_order", index_only<check_p49_events_in_order>},
    {50, "delivered_once", index_only<check_p50_delivered_once>},
};

}  // namespace

std::span<const Checker> checkers() {
    return kCheckers;
}

Findings check_all(const Trace &t, int64_t quantum_ps) {
    const TraceIndex ix(t);
    const CheckOptions o{quantum_ps};
    Findings all;
    for (const Checker &c : checkers()) {
        Findings x = c.check(ix, o);
        all.insert(all.end(), x.begin(), x.end());
    }
    return all;
}

std::string format(const Findings &f) {
    std::string s;
    const size_t shown = std::min<size_t>(f.size(), 20);
    for (size_t i = 0; i < shown; ++i) {
        s += "P" + std::to_string(f[i].property) + ": " + f[i].what + "\n";
    }
    if (f.size() > shown) {
        s += "... and " + std::to_string(f.size() - shown) + " more\n";
    }
    return s;
}

const std::vector<int> &checked_properties() {
    static const std::vector<int> kProps = [] {
        std::vector<int> p;
        for (const Checker &c : checkers()) {
            p.push_back(c.property);
        }
        std::sort(p.begin(), p.end());
        p.erase(std::unique(p.begin(), p.end()), p.end());
        return p;
    }();
    return kProps;
}

}  // namespace ucc::model
