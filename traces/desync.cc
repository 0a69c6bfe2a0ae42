// The trace alone, checked for desynchronisation (replay.h, find_desync).
//
// A team is known on each member by its number in that member's trace; across
// members it is matched by its membership (the context endpoints of its
// members, in team-rank order) and by how many teams of that membership the
// member had created before. On such a team, every post names a key (the
// sequence number on an ordered team, the tag space on an unordered one);
// the members' collectives under one key must agree on what the replay (and
// the library) match them by: type, root, reduction, datatype and, for the
// vector collectives, the vector length. A key that some members ran and
// others never reached is reported with where those others' traces end.
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "traces/names.h"
#include "traces/replay.h"

namespace ucc::traces {

namespace {

// What the members of one instance must agree on.
struct Shape {
    ucc_coll_type_t coll = UCC_COLL_TYPE_BARRIER;
    int64_t root = -1;
    int64_t op = -1;
    std::string dt;
    int64_t vector = -1;  // allreduce, reduce, bcast: elements
    bool operator==(const Shape &) const = default;
    bool operator<(const Shape &o) const {
        return std::tie(coll, root, op, dt, vector) <
               std::tie(o.coll, o.root, o.op, o.dt, o.vector);
    }
    std::string describe() const {
        std::string s = coll_name(coll) != nullptr ? coll_name(coll) : "?";
        if (vector >= 0) {
            s += " of " + std::to_string(vector);
        }
        if (!dt.empty()) {
            s += " " + dt;
        }
        if (op >= 0) {
            s += std::string(" ") + (op_name(op) != nullptr ? op_name(op) : "?");
        }
        if (root >= 0) {
            s += " root " + std::to_string(root);
        }
        return s;
    }
};

Shape shape_of(const InitRec &i) {
    Shape s;
    s.coll = i.coll;
    s.root = i.has_root ? static_cast<int64_t>(i.root) : -1;
    s.op = i.has_op ? i.op : -1;
    const Buffer &b = i.src.used ? i.src : i.dst;
    if (b.used) {
        s.dt = b.dt.generic
                   ? "generic(" + std::to_string(b.dt.size) + ")"
                   : (dt_name(b.dt.predefined) != nullptr ? dt_name(b.dt.predefined) : "?");
    }
    if (i.coll == UCC_COLL_TYPE_ALLREDUCE || i.coll == UCC_COLL_TYPE_BCAST ||
        i.coll == UCC_COLL_TYPE_REDUCE) {
        s.vector = static_cast<int64_t>(b.count);
    }
    return s;
}

struct Where {
    uint32_t rank;
    uint32_t line;
};

std::string file_line(const Trace &t, const Where &w) {
    return t.ranks[w.rank].path + ":" + std::to_string(w.line);
}

std::string ranks_text(const std::vector<uint32_t> &ranks) {
    std::string s;
    for (size_t k = 0; k < ranks.size() && k < 8; ++k) {
        s += (k == 0 ? "" : ",") + std::to_string(ranks[k]);
    }
    if (ranks.size() > 8) {
        s += ",... (" + std::to_string(ranks.size()) + " ranks)";
    }
    return s;
}

}  // namespace

void find_desync(const Trace &t, std::vector<std::string> *problems, size_t max) {
    // Instance of a team: (membership, occurrence).
    using TeamKey = std::pair<Values, uint32_t>;
    // [team][key][shape] -> where each rank ran it.
    std::map<TeamKey, std::map<uint64_t, std::map<Shape, std::vector<Where>>>> runs;
    std::map<TeamKey, std::vector<uint32_t>> members_ranks;
    for (uint32_t r = 0; r < t.ranks.size(); ++r) {
        const RankTrace &rt = t.ranks[r];
        std::map<uint32_t, TeamKey> team_of;
        std::map<Values, uint32_t> seen;
        std::map<uint64_t, std::pair<const InitRec *, uint32_t>> inits;
        for (size_t k = 0; k < rt.records.size(); ++k) {
            const Record &rec = rt.records[k];
            if (const auto *tr = std::get_if<TeamRec>(&rec)) {
                if (tr->status == UCC_OK && tr->has_members) {
                    const TeamKey key{tr->members, seen[tr->members]++};
                    team_of[tr->team] = key;
                    if (members_ranks.count(key) == 0) {
                        std::vector<uint32_t> m;
                        for (int64_t e : tr->members) {
                            m.push_back(static_cast<uint32_t>(e));
                        }
                        members_ranks[key] = m;
                    }
                }
            } else if (const auto *i = std::get_if<InitRec>(&rec)) {
                if (i->req != 0) {
                    inits[i->req] = {i, rt.line_of[k]};
                }
            } else if (const auto *p = std::get_if<PostRec>(&rec)) {
                const auto it = inits.find(p->req);
                if (p->status != UCC_OK || it == inits.end()) {
                    continue;
                }
                const InitRec &i = *it->second.first;
                const auto team = team_of.find(i.team);
                if (team == team_of.end() || i.has_active_set) {
                    continue;  // membership unknown, or a subset of the team
                }
                runs[team->second][p->key][shape_of(i)].push_back({r, it->second.second});
            }
        }
    }
    auto add = [&](const std::string &line) {
        if (problems->size() < max) {
            problems->push_back(line);
        }
    };
    for (const auto &[team, keys] : runs) {
        const std::vector<uint32_t> &members = members_ranks[team];
        const std::string team_text =
            "team of ranks " + ranks_text(members) +
            (team.second > 0 ? " (#" + std::to_string(team.second + 1) + ")" : "");
        for (const auto &[key, shapes] : keys) {
            if (shapes.size() > 1) {
                std::ostringstream os;
                os << "desync: " << team_text << ", sequence " << key << ":";
                for (const auto &[shape, wheres] : shapes) {
                    std::vector<uint32_t> rs;
                    for (const Where &w : wheres) {
                        rs.push_back(w.rank);
                    }
                    os << " rank" << (rs.size() > 1 ? "s " : " ") << ranks_text(rs) << " ran "
                       << shape.describe() << " (" << file_line(t, wheres.front()) << ");";
                }
                std::string s = os.str();
                s.pop_back();
                add(s);
                continue;
            }
            std::set<uint32_t> ran;
            for (const Where &w : shapes.begin()->second) {
                ran.insert(w.rank);
            }
            std::vector<uint32_t> absent;
            for (uint32_t m : members) {
                if (m < t.ranks.size() && ran.count(m) == 0) {
                    absent.push_back(m);
                }
            }
            if (absent.empty()) {
                continue;
            }
            const RankTrace &first = t.ranks[absent.front()];
            add("missing: " + team_text + ", sequence " + std::to_string(key) + ": ranks " +
                ranks_text(std::vector<uint32_t>(ran.begin(), ran.end())) + " ran " +
                shapes.begin()->first.describe() + ", rank" + (absent.size() > 1 ? "s " : " ") +
                ranks_text(absent) + " never did (" + first.path + " ends at line " +
                std::to_string(first.last_line) +
                (first.truncated ? ", cut short: its rank was killed or crashed"
                 : first.ended   ? ""
                                 : ", without its end record: the rank stopped there") +
                ")");
            break;  // later keys of this team are missing for the same reason
        }
    }
}

}  // namespace ucc::traces
