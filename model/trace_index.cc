// The trace index (see trace.h): per rank and request its history, per post a
// RankOp, per collective instance the RankOps of its participants.
#include "model/trace.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "model/trace_util.h"

namespace ucc::model {

using detail::short_coll_name;

std::string Instance::name() const {
    const TraceEvent &p = first();
    return short_coll_name(p.coll) + " team " + std::to_string(team) +
           (p.active_set ? " active-set tag " : (p.ordered ? " seq " : " tag ")) +
           std::to_string(key & 0x7fffffffu) +
           (occurrence > 0 ? " #" + std::to_string(occurrence) : "");
}

int64_t Instance::max_post_ps() const {
    int64_t m = INT64_MIN;
    for (const RankOp *op : ops) {
        m = std::max(m, op->post_ps());
    }
    return m;
}

TraceIndex::TraceIndex(const Trace &t) : trace_(&t) {
    // Pass 1: create a RankOp per post (indices, stable while the vector grows).
    std::map<std::pair<uint32_t, uint64_t>, size_t> current;  // (rank, req) -> op index
    std::map<std::pair<uint32_t, uint64_t>, const TraceEvent *> inits;
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> n_posts;
    std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, uint32_t> occurrences;
    std::map<std::tuple<uint32_t, uint64_t, uint32_t, uint32_t>, size_t> instance_of;
    std::vector<std::vector<size_t>> members;
    for (const TraceEvent &e : t) {
        const std::pair<uint32_t, uint64_t> rq{e.rank, e.req};
        if (e.req != 0) {
            RequestHistory &h = requests_[rq];
            h.rank = e.rank;
            h.req = e.req;
            h.events.push_back(&e);
        }
        switch (e.kind) {
            case TraceKind::kInit:
                inits[rq] = &e;
                break;
            case TraceKind::kPost: {
                RankOp op;
                op.rank = e.rank;
                op.req = e.req;
                op.post_index = n_posts[rq]++;
                op.init = inits.count(rq) ? inits[rq] : nullptr;
                op.post = &e;
                current[rq] = ops_.size();
                const uint32_t occ = occurrences[{e.rank, e.team, e.team_hash, e.key}]++;
                auto [it, fresh] =
                    instance_of.try_emplace({e.team, e.team_hash, e.key, occ}, instances_.size());
                if (fresh) {
                    Instance in;
                    in.team = e.team;
                    in.key = e.key;
                    in.occurrence = occ;
                    instances_.push_back(in);
                    members.emplace_back();
                }
                members[it->second].push_back(ops_.size());
                ops_.push_back(op);
                break;
            }
            case TraceKind::kAccess:
            case TraceKind::kSend:
            case TraceKind::kRecv:
            case TraceKind::kComplete:
            case TraceKind::kCallback:
            case TraceKind::kUser: {
                auto it = current.find(rq);
                if (e.req == 0 || it == current.end()) {
                    break;  // not about a posted request (checked by P25/P28 from the history)
                }
                RankOp &op = ops_[it->second];
                if (e.kind == TraceKind::kAccess) {
                    op.accesses.push_back(&e);
                } else if (e.kind == TraceKind::kSend) {
                    op.sends.push_back(&e);
                } else if (e.kind == TraceKind::kRecv) {
                    op.recvs.push_back(&e);
                } else if (e.kind == TraceKind::kComplete) {
                    if (op.done == nullptr) {
                        op.done = &e;
                    }
                } else if (e.kind == TraceKind::kCallback) {
                    op.callbacks.push_back(&e);
                } else {
                    op.user_marks.push_back(&e);
                }
                break;
            }
            default:
                break;
        }
    }
    for (size_t i = 0; i < instances_.size(); ++i) {
        for (size_t k : members[i]) {
            instances_[i].ops.push_back(&ops_[k]);
        }
    }
}

}  // namespace ucc::model
