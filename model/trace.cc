// The trace checkers (see trace.h). Each is written for clarity, not speed:
// traces of property-test cases hold thousands of events, not millions.
#include "model/trace.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <tuple>

#include "model/datatypes.h"

namespace ucc::model {

namespace {

// "allreduce", ... (model/datatypes.h names them UCC_COLL_TYPE_ALLREDUCE, ...).
std::string short_coll_name(ucc_coll_type_t t) {
    std::string s = coll_name(static_cast<uint64_t>(t));
    const std::string prefix = "UCC_COLL_TYPE_";
    if (s.compare(0, prefix.size(), prefix) == 0) {
        s = s.substr(prefix.size());
    }
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The buffer IN_PLACE makes the library ignore for this participant
// (API.md §4.3): src, except dst for scatter(v) at the root; kNone where it
// has no effect.
TraceBuffer inplace_ignored(const TraceEvent &post) {
    if (!(post.flags & UCC_COLL_ARGS_FLAG_IN_PLACE)) {
        return TraceBuffer::kNone;
    }
    const bool root = post.team_rank == post.root;
    switch (post.coll) {
        case UCC_COLL_TYPE_ALLREDUCE:
        case UCC_COLL_TYPE_ALLGATHER:
        case UCC_COLL_TYPE_ALLGATHERV:
        case UCC_COLL_TYPE_ALLTOALL:
        case UCC_COLL_TYPE_ALLTOALLV:
        case UCC_COLL_TYPE_REDUCE_SCATTER:
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return TraceBuffer::kSrc;
        case UCC_COLL_TYPE_REDUCE:
        case UCC_COLL_TYPE_GATHER:
        case UCC_COLL_TYPE_GATHERV:
            return root ? TraceBuffer::kSrc : TraceBuffer::kNone;
        case UCC_COLL_TYPE_SCATTER:
        case UCC_COLL_TYPE_SCATTERV:
            return root ? TraceBuffer::kDst : TraceBuffer::kNone;
        default:
            return TraceBuffer::kNone;
    }
}

std::string rank_str(uint32_t r) {
    return "rank " + std::to_string(r);
}

std::string time_str(int64_t ps) {
    std::ostringstream os;
    os << static_cast<double>(ps) / 1e6 << " us";
    return os.str();
}

std::string op_name(const RankOp &op) {
    return rank_str(op.rank) + " req " + std::to_string(op.req) + " post " +
           std::to_string(op.post_index);
}

// Position of an event in the trace (order of recording).
size_t pos(const TraceIndex &ix, const TraceEvent *e) {
    return static_cast<size_t>(e - ix.trace().data());
}

bool all_participants(const Instance &in) {
    return in.ops.size() == in.first().team_size;
}

bool all_ok(const Instance &in) {
    return all_participants(in) && std::all_of(in.ops.begin(), in.ops.end(), [](const RankOp *op) {
               return op->done != nullptr && op->done->status == UCC_OK;
           });
}

void add(Findings *f, int p, const std::string &what) {
    f->push_back(Finding{p, what});
}

// Per ordered pair (from, to) of world ranks: messages sent minus received.
Findings message_balance(const TraceIndex &ix, int property, bool active_sets_only) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        if ((active_sets_only && !in.first().active_set) || !all_ok(in)) {
            continue;
        }
        std::set<uint32_t> members;
        for (const RankOp *op : in.ops) {
            members.insert(op->rank);
        }
        std::map<std::pair<uint32_t, uint32_t>, int64_t> bal;
        for (const RankOp *op : in.ops) {
            for (const TraceEvent *s : op->sends) {
                bal[{op->rank, s->peer}]++;
                if (!members.count(s->peer)) {
                    add(&f, property,
                        in.name() + ": " + rank_str(op->rank) + " sent to " + rank_str(s->peer) +
                            ", which is not a participant");
                }
            }
            for (const TraceEvent *r : op->recvs) {
                bal[{r->peer, op->rank}]--;
                if (!members.count(r->peer)) {
                    add(&f, property,
                        in.name() + ": " + rank_str(op->rank) + " received from " +
                            rank_str(r->peer) + ", which is not a participant");
                }
            }
        }
        for (const auto &[pair, n] : bal) {
            if (n != 0) {
                add(&f, property,
                    in.name() + ": " + rank_str(pair.first) + " -> " + rank_str(pair.second) +
                        ": " + std::to_string(n > 0 ? n : -n) + " message(s) " +
                        (n > 0 ? "sent but never received in this instance"
                               : "received that this instance never sent"));
            }
        }
    }
    return f;
}

// Two posts of one rank with one (team, key) outstanding at the same time.
Findings same_key_overlap(const TraceIndex &ix, int property, bool want_active_set) {
    Findings f;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<const RankOp *>> by_key;
    for (const RankOp &op : ix.ops()) {
        const bool unordered = !op.post->ordered || op.post->active_set;
        if (unordered && op.post->active_set == want_active_set) {
            by_key[{op.rank, op.post->team, op.post->key}].push_back(&op);
        }
    }
    for (const auto &[k, ops] : by_key) {
        for (size_t i = 1; i < ops.size(); ++i) {
            const RankOp *a = ops[i - 1];
            const RankOp *b = ops[i];
            if (a->done == nullptr || pos(ix, a->done) > pos(ix, b->post)) {
                add(&f, property,
                    rank_str(std::get<0>(k)) + ": two collectives outstanding with tag key " +
                        std::to_string(std::get<2>(k)) + " on team " +
                        std::to_string(std::get<1>(k)) + " (" + op_name(*a) + " and " +
                        op_name(*b) + "): user error");
            }
        }
    }
    return f;
}

// Describes how two signatures differ (layout: lib/coll/coll.cc signature_of).
std::string signature_diff(uint64_t a, uint64_t b) {
    std::vector<std::string> fields;
    if (((a >> 58) & 0x1f) != ((b >> 58) & 0x1f)) {
        fields.emplace_back("coll_type");
    }
    if (((a >> 54) & 0xf) != ((b >> 54) & 0xf)) {
        fields.emplace_back("op");
    }
    if (((a >> 32) & 0x3fffff) != ((b >> 32) & 0x3fffff)) {
        fields.emplace_back("root");
    }
    if ((a & 0xffffffffu) != (b & 0xffffffffu)) {
        fields.emplace_back("size (count x datatype)");
    }
    std::string s;
    for (const std::string &x : fields) {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s.empty() ? "signature" : s;
}

}  // namespace

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

// ---- P14-P17

Findings check_p14_barrier(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if ((p.coll != UCC_COLL_TYPE_BARRIER && p.sync != UCC_SYNC_COLLECTIVES) ||
            !all_participants(in)) {
            continue;
        }
        const int64_t last_post = in.max_post_ps();
        for (const RankOp *op : in.ops) {
            if (op->done != nullptr && op->done->status == UCC_OK && op->done_ps() < last_post) {
                add(&f, 14,
                    in.name() + ": " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before the last post at " +
                        time_str(last_post));
            }
        }
    }
    return f;
}

Findings check_p15_sync_entry_exit(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        if (in.first().sync != UCC_SYNC_COLLECTIVES || !all_participants(in)) {
            continue;
        }
        const int64_t last_post = in.max_post_ps();
        int64_t last_access = INT64_MIN;
        uint32_t last_rank = 0;
        for (const RankOp *op : in.ops) {
            for (const TraceEvent *a : op->accesses) {
                if (a->time_ps < last_post) {
                    add(&f, 15,
                        in.name() + ": entry: " + rank_str(op->rank) + " touched its " +
                            (a->buffer == TraceBuffer::kSrc ? "src" : "dst") + " at " +
                            time_str(a->time_ps) + ", before the last post at " +
                            time_str(last_post));
                }
                if (a->time_ps > last_access) {
                    last_access = a->time_ps;
                    last_rank = op->rank;
                }
            }
        }
        for (const RankOp *op : in.ops) {
            if (op->done != nullptr && op->done->status == UCC_OK && op->done_ps() < last_access) {
                add(&f, 15,
                    in.name() + ": exit: " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before " + rank_str(last_rank) +
                        "'s last buffer access at " + time_str(last_access));
            }
        }
    }
    return f;
}

Findings check_p16_no_access_after_done(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (pos(ix, a) > pos(ix, op.done) || a->time_ps > op.done_ps()) {
                add(&f, 16,
                    op_name(op) + ": its " + (a->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " was " + (a->write ? "written" : "read") + " at " + time_str(a->time_ps) +
                        ", after it completed at " + time_str(op.done_ps()));
            }
        }
    }
    return f;
}

Findings check_p17_fanin_fanout(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const TraceEvent &p = in.first();
        if ((p.coll != UCC_COLL_TYPE_FANIN && p.coll != UCC_COLL_TYPE_FANOUT) ||
            !all_participants(in)) {
            continue;
        }
        const RankOp *root = nullptr;
        for (const RankOp *op : in.ops) {
            if (op->post->team_rank == p.root) {
                root = op;
            }
        }
        if (root == nullptr) {
            continue;
        }
        for (const RankOp *op : in.ops) {
            if (op->done == nullptr || op->done->status != UCC_OK) {
                continue;
            }
            if (p.coll == UCC_COLL_TYPE_FANIN && op == root && op->done_ps() < in.max_post_ps()) {
                add(&f, 17,
                    in.name() + ": the root (" + rank_str(op->rank) + ") completed at " +
                        time_str(op->done_ps()) + ", before the last post at " +
                        time_str(in.max_post_ps()));
            }
            if (p.coll == UCC_COLL_TYPE_FANOUT && op != root && op->done_ps() < root->post_ps()) {
                add(&f, 17,
                    in.name() + ": " + rank_str(op->rank) + " completed at " +
                        time_str(op->done_ps()) + ", before the root posted at " +
                        time_str(root->post_ps()));
            }
        }
    }
    return f;
}

// ---- P18-P22

Findings check_p18_ordered(const TraceIndex &ix) {
    Findings f;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> next_seq;  // (rank, team) -> expected
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kTeamCreated) {
            next_seq[{e.rank, e.team}] = 0;  // a new team (ids may be reused)
        }
        if (e.kind != TraceKind::kPost || !e.ordered || e.active_set) {
            continue;
        }
        uint32_t &want = next_seq[{e.rank, e.team}];
        if (e.key != want) {
            add(&f, 18,
                rank_str(e.rank) + " req " + std::to_string(e.req) +
                    ": posted as sequence number " + std::to_string(e.key) + " on team " +
                    std::to_string(e.team) + ", expected " + std::to_string(want));
        }
        want = e.key + 1;
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

// ---- P23, P25

Findings check_p23_inplace(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        const TraceBuffer ignored = inplace_ignored(*op.post);
        if (ignored == TraceBuffer::kNone) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (a->buffer == ignored) {
                add(&f, 23,
                    op_name(op) + ": in place, but its ignored " +
                        (ignored == TraceBuffer::kSrc ? "src" : "dst") + " was " +
                        (a->write ? "written" : "read") + " (" + std::to_string(a->bytes) +
                        " bytes at offset " + std::to_string(a->offset) + ")");
            }
        }
    }
    return f;
}

Findings check_p25_ownership(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        for (const TraceEvent *a : op.accesses) {
            if (a->time_ps < op.post_ps()) {
                add(&f, 25,
                    op_name(op) + ": library access at " + time_str(a->time_ps) +
                        " before the post at " + time_str(op.post_ps()));
            } else if (op.done != nullptr && (pos(ix, a) > pos(ix, op.done))) {
                add(&f, 25,
                    op_name(op) + ": library access at " + time_str(a->time_ps) +
                        " after the completion at " + time_str(op.done_ps()));
            }
        }
        for (const TraceEvent *m : op.user_marks) {
            if (m->mark == UserMark::kUserWrite &&
                (op.done == nullptr || pos(ix, m) < pos(ix, op.done))) {
                add(&f, 25,
                    op_name(op) + ": user error: the program wrote its " +
                        (m->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " while the collective was in progress");
            }
        }
    }
    // Accesses of requests that were not posted at the time.
    for (const auto &[k, h] : ix.requests()) {
        bool posted = false;
        for (const TraceEvent *e : h.events) {
            posted |= e->kind == TraceKind::kPost;
            if (!posted && (e->kind == TraceKind::kAccess || e->kind == TraceKind::kSend ||
                            e->kind == TraceKind::kRecv)) {
                add(&f, 25,
                    rank_str(h.rank) + " req " + std::to_string(h.req) +
                        ": library traffic before the request was posted");
            }
        }
    }
    return f;
}

// ---- P27-P30

Findings check_p27_persistent(const TraceIndex &ix) {
    Findings f;
    std::map<std::pair<uint32_t, uint64_t>, const RankOp *> last;
    for (const RankOp &op : ix.ops()) {
        auto it = last.find({op.rank, op.req});
        if (it != last.end()) {
            const RankOp *prev = it->second;
            const bool persistent =
                op.init != nullptr && (op.init->flags & UCC_COLL_ARGS_FLAG_PERSISTENT);
            if (!persistent) {
                add(&f, 27, op_name(op) + ": a non-persistent request was posted again");
            } else if (prev->done == nullptr || pos(ix, prev->done) > pos(ix, op.post)) {
                add(&f, 27, op_name(op) + ": re-posted before the previous post completed");
            }
        }
        last[{op.rank, op.req}] = &op;
    }
    return f;
}

Findings check_p28_status_machine(const TraceIndex &ix) {
    Findings f;
    enum class S { kNone, kInit, kPosted, kCompleted, kFinalized };
    for (const auto &[k, h] : ix.requests()) {
        S s = S::kNone;
        bool has_cb = false;
        bool cb_due = false;  // completed, callback not yet run
        ucc_status_t done_status = UCC_OK;
        const std::string who = rank_str(h.rank) + " req " + std::to_string(h.req);
        auto bad = [&](const std::string &what) { add(&f, 28, who + ": " + what); };
        for (const TraceEvent *e : h.events) {
            switch (e->kind) {
                case TraceKind::kInit:
                    if (s != S::kNone) {
                        bad("initialised twice");
                    }
                    has_cb = e->has_cb;
                    s = S::kInit;
                    break;
                case TraceKind::kPost:
                    if (s != S::kInit && s != S::kCompleted) {
                        bad("posted while not initialised or completed");
                    }
                    if (cb_due) {
                        bad("posted again before the callback of the previous post ran");
                    }
                    s = S::kPosted;
                    break;
                case TraceKind::kComplete:
                    if (s != S::kPosted) {
                        bad("completed without being in progress");
                    }
                    s = S::kCompleted;
                    cb_due = has_cb;
                    done_status = e->status;
                    break;
                case TraceKind::kCallback:
                    if (!cb_due) {
                        bad("a callback ran without a completion to report (more than once per "
                            "post?)");
                    } else if (e->status != done_status) {
                        bad("the callback got status " + std::to_string(e->status) +
                            ", the completion " + std::to_string(done_status));
                    }
                    cb_due = false;
                    break;
                case TraceKind::kFinalize:
                    if (s == S::kPosted) {
                        bad("finalized while in progress");
                    }
                    if (cb_due) {
                        bad("finalized before its callback ran");
                    }
                    s = S::kFinalized;
                    break;
                case TraceKind::kUser:
                    if (e->mark == UserMark::kDone && (s != S::kCompleted || cb_due)) {
                        bad(cb_due ? "test() saw the completion before the callback returned"
                                   : "test() saw a completion the library never made");
                    }
                    break;
                default:
                    break;
            }
        }
        if (cb_due) {
            bad("the callback of its last post never ran");
        }
    }
    return f;
}

Findings check_p29_finalize(const TraceIndex &ix) {
    Findings f;
    for (const auto &[k, h] : ix.requests()) {
        const std::string who = rank_str(h.rank) + " req " + std::to_string(h.req);
        int finalizes = 0;
        bool has_init = false;
        for (const TraceEvent *e : h.events) {
            has_init |= e->kind == TraceKind::kInit;
            if (finalizes > 0 && e->kind != TraceKind::kUser) {
                add(&f, 29, who + ": an event after its finalize");
            }
            finalizes += e->kind == TraceKind::kFinalize;
        }
        if (has_init && finalizes == 0) {
            add(&f, 29, who + ": never finalized (leaked)");
        }
    }
    return f;
}

Findings check_p30_timeout_gating(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done != nullptr && op.done->status == UCC_ERR_TIMED_OUT &&
            !(op.post->flags & UCC_COLL_ARGS_FLAG_TIMEOUT)) {
            add(&f, 30, op_name(op) + ": UCC_ERR_TIMED_OUT without the TIMEOUT flag");
        }
    }
    return f;
}

// ---- P31, P32

Findings check_p31_active_set(const TraceIndex &ix) {
    // Membership findings only (the balance findings are P32's; completion is P20's).
    Findings out;
    for (const Finding &x : message_balance(ix, 31, true)) {
        if (x.what.find("not a participant") != std::string::npos) {
            out.push_back(x);
        }
    }
    return out;
}

Findings check_p32_active_set_isolation(const TraceIndex &ix) {
    Findings f;
    for (const Finding &x : message_balance(ix, 32, true)) {
        if (x.what.find("not a participant") == std::string::npos) {
            f.push_back(x);
        }
    }
    Findings o = same_key_overlap(ix, 32, true);
    f.insert(f.end(), o.begin(), o.end());
    return f;
}

// ---- P33-P36

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

// ---- P39, P40

Findings check_p39_timeout_bounds(const TraceIndex &ix, int64_t quantum_ps) {
    Findings f;
    // Deadlines are noticed by progress calls. A rank busy in calls that do
    // not progress (init, post, finalize: the trace has an event for each)
    // notices later: the bound runs from the later of the deadline and the
    // last such call before the completion.
    std::map<const TraceEvent *, int64_t> busy_until;  // completion -> last non-progress call
    std::map<uint32_t, int64_t> last_call;             // rank -> time of its last such call
    for (const TraceEvent &e : ix.trace()) {
        if (e.kind == TraceKind::kInit || e.kind == TraceKind::kPost ||
            e.kind == TraceKind::kFinalize) {
            last_call[e.rank] = e.time_ps;
        } else if (e.kind == TraceKind::kComplete && e.status == UCC_ERR_TIMED_OUT) {
            auto it = last_call.find(e.rank);
            busy_until[&e] = it == last_call.end() ? INT64_MIN : it->second;
        }
    }
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr || op.done->status != UCC_ERR_TIMED_OUT ||
            !(op.post->flags & UCC_COLL_ARGS_FLAG_TIMEOUT)) {
            continue;
        }
        const auto tau = static_cast<int64_t>(op.post->timeout * 1e12);
        const int64_t lo = op.post_ps() + tau;
        const int64_t hi = std::max(lo, busy_until[op.done]) + quantum_ps;
        if (op.done_ps() < lo) {
            add(&f, 39,
                op_name(op) + ": timed out at " + time_str(op.done_ps()) + ", before post + " +
                    "timeout = " + time_str(lo));
        } else if (op.done_ps() > hi) {
            add(&f, 39,
                op_name(op) + ": timed out at " + time_str(op.done_ps()) +
                    ", later than one progress quantum after post + timeout (or after the "
                    "rank's last init/post/finalize) = " +
                    time_str(hi));
        }
    }
    return f;
}

Findings check_p40_no_write_after_failure(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        if (op.done == nullptr || op.done->status >= 0) {
            continue;
        }
        for (const TraceEvent *a : op.accesses) {
            if (a->write && pos(ix, a) > pos(ix, op.done)) {
                add(&f, 40,
                    op_name(op) + ": its " + (a->buffer == TraceBuffer::kSrc ? "src" : "dst") +
                        " was written at " + time_str(a->time_ps) + ", after it failed at " +
                        time_str(op.done_ps()));
            }
        }
    }
    return f;
}

// ---- P44, P45

Findings check_p44_argument_match(const TraceIndex &ix) {
    Findings f;
    for (const Instance &in : ix.instances()) {
        const RankOp *ref = in.ops.front();
        for (const RankOp *op : in.ops) {
            const TraceEvent &a = *ref->post;
            const TraceEvent &b = *op->post;
            if (b.signature != a.signature) {
                add(&f, 44,
                    in.name() + ": " + signature_diff(a.signature, b.signature) +
                        " differ between " + rank_str(ref->rank) + " and " + rank_str(op->rank));
            }
            if (b.active_set != a.active_set || b.team_size != a.team_size) {
                add(&f, 44,
                    in.name() + ": the active set differs between " + rank_str(ref->rank) +
                        " and " + rank_str(op->rank));
            }
        }
    }
    return f;
}

Findings check_p45_argument_range(const TraceIndex &ix) {
    Findings f;
    for (const RankOp &op : ix.ops()) {
        const TraceEvent &p = *op.post;
        if (p.team_rank >= p.team_size) {
            add(&f, 45,
                op_name(op) + ": accepted with rank " + std::to_string(p.team_rank) + " among " +
                    std::to_string(p.team_size) + " participants");
        }
        if (is_rooted(p.coll) && p.root >= p.team_size) {
            add(&f, 45,
                op_name(op) + ": accepted with root " + std::to_string(p.root) + " among " +
                    std::to_string(p.team_size) + " participants");
        }
    }
    for (const Instance &in : ix.instances()) {
        std::set<uint32_t> worlds;
        for (const RankOp *op : in.ops) {
            if (!worlds.insert(op->rank).second) {
                add(&f, 45, in.name() + ": " + rank_str(op->rank) + " participates twice");
            }
        }
    }
    return f;
}

Findings check_all(const Trace &t, int64_t quantum_ps) {
    const TraceIndex ix(t);
    Findings all;
    auto run = [&](Findings x) { all.insert(all.end(), x.begin(), x.end()); };
    run(check_p14_barrier(ix));
    run(check_p15_sync_entry_exit(ix));
    run(check_p16_no_access_after_done(ix));
    run(check_p17_fanin_fanout(ix));
    run(check_p18_ordered(ix));
    run(check_p19_tags(ix));
    run(check_p20_complete_and_consistent(ix));
    run(check_p21_isolation(ix));
    run(check_p22_frozen(ix));
    run(check_p23_inplace(ix));
    run(check_p25_ownership(ix));
    run(check_p27_persistent(ix));
    run(check_p28_status_machine(ix));
    run(check_p29_finalize(ix));
    run(check_p30_timeout_gating(ix));
    run(check_p31_active_set(ix));
    run(check_p32_active_set_isolation(ix));
    run(check_p33_team_creation(ix));
    run(check_p34_team_destroy(ix));
    run(check_p35_resource_drift(ix));
    run(check_p36_use_after_destroy(ix));
    run(check_p39_timeout_bounds(ix, quantum_ps));
    run(check_p40_no_write_after_failure(ix));
    run(check_p44_argument_match(ix));
    run(check_p45_argument_range(ix));
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
    static const std::vector<int> kProps = {14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 27, 28,
                                            29, 30, 31, 32, 33, 34, 35, 36, 39, 40, 44, 45};
    return kProps;
}

}  // namespace ucc::model
