// Teams and resources (P33-P36, P38; trace.h states each property): creation
// agrees on every member, every team is destroyed after its last request,
// a destroyed team leaves nothing behind, calls on destroyed objects fail,
// and destroy terminates.
#include "model/trace.h"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::rank_str;

Findings check_p33_team_creation(const TraceIndex &ix) {
    Findings f;
    // (team id, membership hash, generation on the rank) -> members' creation events.
    std::map<std::tuple<uint32_t, uint64_t, uint32_t>, std::vector<const TraceEvent *>> teams;
    std::map<std::tuple<uint32_t, uint32_t, uint64_t>, uint32_t> generation;
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kTeamCreated) {
            const uint32_t g = generation[{e.rank, e.team, e.team_hash}]++;
            teams[{e.team, e.team_hash, g}].push_back(&e);
        }
    }
    for (const auto &[k, evs] : teams) {
        const uint32_t gen = std::get<2>(k);
        const std::string name =
            "team " + std::to_string(std::get<0>(k)) + (gen > 0 ? " #" + std::to_string(gen) : "");
        const uint32_t size = evs.front()->team_size;
        std::set<uint32_t> ranks;
        for (const TraceEvent *e : evs) {
            if (e->status != UCC_OK) {
                add(&f, 33, name + ": creation failed on " + rank_str(e->rank));
                continue;
            }
            if (e->team_size != size) {
                add(&f, 33,
                    name + ": " + rank_str(e->rank) + " sees " + std::to_string(e->team_size) +
                        " members, " + rank_str(evs.front()->rank) + " " + std::to_string(size));
            }
            if (e->team_rank >= size || !ranks.insert(e->team_rank).second) {
                add(&f, 33,
                    name + ": team rank " + std::to_string(e->team_rank) + " of " +
                        rank_str(e->rank) + " is out of range or taken twice");
            }
        }
        if (evs.size() != size) {
            add(&f, 33,
                name + ": created on " + std::to_string(evs.size()) + " ranks, but its size is " +
                    std::to_string(size));
        }
    }
    return f;
}

Findings check_p34_team_destroy(const TraceIndex &ix) {
    Findings f;
    // Per (rank, team id): open creations, and requests not yet finalized.
    std::map<std::pair<uint32_t, uint32_t>, int> open;
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> req_team;
    std::map<std::pair<uint32_t, uint32_t>, int> live_reqs;
    for (const TraceEvent &e : ix.trace()) {
        switch (e.kind) {
            case TraceKind::kTeamCreated:
                if (e.status == UCC_OK) {
                    open[{e.rank, e.team}]++;
                }
                break;
            case TraceKind::kInit:
                req_team[{e.rank, e.req}] = e.team;
                live_reqs[{e.rank, e.team}]++;
                break;
            case TraceKind::kFinalize: {
                auto it = req_team.find({e.rank, e.req});
                if (it != req_team.end()) {
                    live_reqs[{e.rank, it->second}]--;
                }
                break;
            }
            case TraceKind::kTeamDestroyed:
                if (open[{e.rank, e.team}]-- <= 0) {
                    add(&f, 34,
                        rank_str(e.rank) + ": team " + std::to_string(e.team) +
                            " destroyed without being created");
                }
                if (live_reqs[{e.rank, e.team}] > 0) {
                    add(&f, 34,
                        rank_str(e.rank) + ": team " + std::to_string(e.team) +
                            " destroyed with requests not finalized");
                }
                break;
            default:
                break;
        }
    }
    for (const auto &[k, n] : open) {
        if (n > 0) {
            add(&f, 34,
                rank_str(k.first) + ": team " + std::to_string(k.second) + " never destroyed");
        }
    }
    return f;
}

Findings check_p35_resource_drift(const TraceIndex &ix) {
    Findings f;
    std::set<uint32_t> failed;  // ranks that saw a failed collective (late messages allowed)
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kComplete && e.status < 0) {
            failed.insert(e.rank);
        }
        if (e.kind == TraceKind::kTeamDestroyed && e.resources != 0 && !failed.count(e.rank)) {
            add(&f, 35,
                rank_str(e.rank) + ": " + std::to_string(e.resources) +
                    " receives or messages of team " + std::to_string(e.team) +
                    " are still held after its destroy");
        }
    }
    return f;
}

Findings check_p36_use_after_destroy(const TraceIndex &ix) {
    Findings f;
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kUser && e.mark == UserMark::kUseAfterDestroy && e.status >= 0) {
            add(&f, 36,
                rank_str(e.rank) + ": a call on a destroyed object returned status " +
                    std::to_string(e.status) + " (not an error)");
        }
    }
    return f;
}

Findings check_p38_destroy_terminates(const TraceIndex &ix) {
    Findings f;
    auto object = [](uint32_t key) {
        return key == 0 ? std::string("context") : "team " + std::to_string(key - 1);
    };
    struct State {
        bool inside = false;  // a destroy call began and has not returned
        ucc_status_t last = UCC_OK;
    };
    std::map<std::pair<uint32_t, uint32_t>, State> calls;  // (rank, object)
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind != TraceKind::kUser) {
            continue;
        }
        if (e.mark == UserMark::kDestroyBegin) {
            State &s = calls[{e.rank, e.key}];
            if (s.inside) {
                add(&f, 38,
                    rank_str(e.rank) + ": destroy of its " + object(e.key) +
                        " began again before the previous call returned");
            }
            s.inside = true;
        } else if (e.mark == UserMark::kDestroyEnd) {
            State &s = calls[{e.rank, e.key}];
            s.inside = false;
            s.last = e.status;
        }
    }
    for (const auto &[k, s] : calls) {
        if (s.inside) {
            add(&f, 38,
                rank_str(k.first) + ": destroy of its " + object(k.second) + " never returned");
        } else if (s.last == UCC_INPROGRESS) {
            add(&f, 38,
                rank_str(k.first) + ": destroy of its " + object(k.second) +
                    " was still in progress when the rank stopped calling it");
        }
    }
    return f;
}

}  // namespace ucc::model
