// Ordering and concurrency (P18-P22; trace.h states each property): sequence
// numbers and signatures on ordered teams, tag matching on unordered ones,
// completion and identical results, instance isolation, and frozen ranks.
#include "model/trace.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "model/trace_util.h"

namespace ucc::model {

using detail::add;
using detail::all_ok;
using detail::message_balance;
using detail::op_name;
using detail::pos;
using detail::rank_str;
using detail::same_key_overlap;
using detail::short_coll_name;
using detail::signature_diff;
using detail::time_str;

Findings check_p18_ordered(const TraceIndex &ix) {
    Findings f;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> next_seq;  // (rank, team) -> expected
    // Triggered posts take their number when made: (rank, req) -> it.
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> reserved;
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kTeamCreated) {
            next_seq[{e.rank, e.team}] = 0;  // a new team (ids may be reused)
        }
        const bool claims = e.kind == TraceKind::kTriggeredPost && e.ordered;
        if (!claims && (e.kind != TraceKind::kPost || !e.ordered || e.active_set)) {
            continue;
        }
        const uint32_t seq = claims ? static_cast<uint32_t>(e.offset) : e.key;
        if (!claims) {
            if (auto it = reserved.find({e.rank, e.req}); it != reserved.end()) {
                if (e.key != it->second) {
                    add(&f, 18,
                        rank_str(e.rank) + " req " + std::to_string(e.req) +
                            ": triggered as sequence number " + std::to_string(e.key) +
                            ", its triggered post took " + std::to_string(it->second));
                }
                reserved.erase(it);
                continue;
            }
        } else {
            reserved[{e.rank, e.req}] = seq;
        }
        uint32_t &want = next_seq[{e.rank, e.team}];
        if (seq != want) {
            add(&f, 18,
                rank_str(e.rank) + " req " + std::to_string(e.req) +
                    ": posted as sequence number " + std::to_string(seq) + " on team " +
                    std::to_string(e.team) + ", expected " + std::to_string(want));
        }
        want = seq + 1;
    }
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if (!p.ordered || p.active_set) {
            continue;
        }
        std::set<uint32_t> team_ranks;
        for (const RankOp *op : in.ops) {
            if (!team_ranks.insert(op->post->team_rank).second) {
                add(&f, 18,
                    in.name() + ": team rank " + std::to_string(op->post->team_rank) +
                        " posted it twice");
            }
            if (op->post->signature != p.signature) {
                add(&f, 18,
                    "desync at " + in.name() + ": " + rank_str(in.ops.front()->rank) + " posted " +
                        short_coll_name(p.coll) + ", " + rank_str(op->rank) + " posted " +
                        short_coll_name(op->post->coll) + " (" +
                        signature_diff(p.signature, op->post->signature) + " differ)");
            }
        }
        // (A rank may complete without every other having posted -- a bcast
        // root, say: no barrier semantics outside P14.)
        if (in.ops.size() > p.team_size) {
            add(&f, 18,
                in.name() + ": " + std::to_string(in.ops.size()) + " posts for " +
                    std::to_string(p.team_size) + " participants");
        }
    }
    return f;
}

Findings check_p19_tags(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if (p.ordered || p.active_set) {
            continue;
        }
        for (const RankOp *op : in.ops) {
            if (op->post->signature != p.signature) {
                add(&f, 19,
                    in.name() + ": " + rank_str(in.ops.front()->rank) + " and " +
                        rank_str(op->rank) + " matched different collectives by tag (" +
                        signature_diff(p.signature, op->post->signature) + " differ)");
            }
        }
    }
    Findings o = same_key_overlap(ix, 19, false);
    f.insert(f.end(), o.begin(), o.end());
    return f;
}

Findings check_p20_complete_and_consistent(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        const bool timeout = (op.post->flags & UCC_COLL_ARGS_FLAG_TIMEOUT) != 0;
        if (op.done == nullptr) {
            add(&f, 20, op_name(op) + ": never completed");
        } else if (op.done->status != UCC_OK && !timeout) {
            add(&f, 20, op_name(op) + ": completed with status " + std::to_string(op.done->status));
        }
    }
    for (const Instance &in : ix.instances()) {
        const ucc_coll_type_t t = in.first().coll;
        // (allgatherv's dst may differ outside the blocks: per-rank displacements.)
        if ((t != UCC_COLL_TYPE_ALLREDUCE && t != UCC_COLL_TYPE_ALLGATHER) || !all_ok(in)) {
            continue;
        }
        const RankOp *ref = in.ops.front();
        for (const RankOp *op : in.ops) {
            if (op->done->hash != ref->done->hash) {
                add(&f, 20,
                    in.name() + ": the result on " + rank_str(op->rank) + " differs from " +
                        rank_str(ref->rank) + "'s");
            }
        }
    }
    return f;
}

Findings check_p21_isolation(const TraceIndex &ix) {
    return message_balance(ix, 21, false);
}

Findings check_p22_frozen(const TraceIndex &ix) {
    Findings f;
    // Freeze windows per rank: the freeze mark and the thaw mark (null: never
    // thawed). "While frozen" is judged by execution order (trace position):
    // ranks' clocks drift apart by local costs, and nothing causal links a
    // thaw to another rank's completion.
    std::map<uint32_t, std::vector<std::pair<const TraceEvent *, const TraceEvent *>>> frozen;
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind != TraceKind::kUser) {
            continue;
        }
        if (e.mark == UserMark::kFrozen) {
            frozen[e.rank].push_back({&e, nullptr});
        } else if (e.mark == UserMark::kThawed && !frozen[e.rank].empty()) {
            frozen[e.rank].back().second = &e;
        }
    }
    for (const Instance &in : ix.instances()) {
        for (const RankOp *op : in.ops) {
            auto it = frozen.find(op->rank);
            if (it == frozen.end() || op->done == nullptr) {
                continue;
            }
            for (const auto &[mark, thaw] : it->second) {
                if (pos(ix, op->done) > pos(ix, mark)) {
                    continue;  // completed after this freeze
                }
                for (const RankOp *other : in.ops) {
                    if (other == op ||
                        (other->done != nullptr &&
                         (thaw == nullptr || pos(ix, other->done) < pos(ix, thaw)))) {
                        continue;
                    }
                    add(&f, 22,
                        in.name() + ": " + rank_str(op->rank) + " completed and froze at " +
                            time_str(mark->time_ps) + ", and " + rank_str(other->rank) + " " +
                            (other->done == nullptr ? "never completed"
                                                    : "completed only after the rank thawed"));
                }
            }
        }
    }
    return f;
}

}  // namespace ucc::model
