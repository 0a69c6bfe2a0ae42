// What the trace checkers share (see trace_util.h).
#include "model/trace_util.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "model/datatypes.h"

namespace ucc::model::detail {

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

}  // namespace ucc::model::detail
