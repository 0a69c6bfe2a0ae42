// A trace of S ranks as a trace of N ranks (rescale.h).
#include "traces/rescale.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/datatypes.h"
#include "model/layout.h"
#include "traces/names.h"

namespace ucc::traces {

namespace {

// The recorded rank new rank r plays.
uint64_t origin(uint64_t r, uint64_t s, uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(r) * s) / n);
}

// A team at the new size: the new members (world ranks) and, for each, the
// recorded team rank of the member it plays.
struct NewTeam {
    Values members;
    std::vector<uint32_t> played;  // new team rank -> recorded team rank
};

NewTeam grow(const Values &old_members, uint64_t s, uint64_t n) {
    std::map<int64_t, uint32_t> team_rank_of;  // recorded world rank -> recorded team rank
    for (uint32_t i = 0; i < old_members.size(); ++i) {
        team_rank_of[old_members[i]] = i;
    }
    std::vector<std::pair<uint32_t, uint64_t>> order;  // (recorded team rank, new rank)
    for (uint64_t r = 0; r < n; ++r) {
        const auto it = team_rank_of.find(static_cast<int64_t>(origin(r, s, n)));
        if (it != team_rank_of.end()) {
            order.emplace_back(it->second, r);
        }
    }
    std::sort(order.begin(), order.end());
    NewTeam t;
    for (const auto &[tr, r] : order) {
        t.members.push_back(static_cast<int64_t>(r));
        t.played.push_back(tr);
    }
    return t;
}

uint32_t position(const NewTeam &t, uint64_t rank) {
    for (uint32_t i = 0; i < t.members.size(); ++i) {
        if (t.members[i] == static_cast<int64_t>(rank)) {
            return i;
        }
    }
    return 0;
}

Values packed_displs(const Values &counts) {
    Values d(counts.size());
    int64_t at = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
        d[i] = at;
        at += counts[i];
    }
    return d;
}

// The collective's arguments on new team rank `me` of team `nt`, built from
// the recorded ones of the member it plays (team of `old_n`). False when it
// cannot be (its root plays no one here).
bool regrow(const InitRec &old, uint32_t old_n, const NewTeam &nt, uint32_t me, InitRec *out) {
    *out = old;
    const uint64_t type = old.coll;
    const uint32_t n = static_cast<uint32_t>(nt.members.size());
    const bool inplace = old.has_flags && (old.flags & UCC_COLL_ARGS_FLAG_IN_PLACE) != 0;
    const uint32_t old_me = nt.played[me];
    const bool old_root = model::is_rooted(type) && old.root == old_me;
    bool is_root = false;
    if (model::is_rooted(type)) {
        const auto it = std::find(nt.played.begin(), nt.played.end(), old.root);
        if (it == nt.played.end()) {
            return false;
        }
        out->root = static_cast<uint64_t>(it - nt.played.begin());
        is_root = out->root == me;
    }
    const model::Layout was = model::layout_of(type, inplace, old_root);
    const model::Layout now = model::layout_of(type, inplace, is_root);
    // What the recorded member had: its vector or block, or the v-table.
    uint64_t unit = 0;              // vector length, or block
    const Buffer *table = nullptr;  // v: per recorded member (or per peer, alltoallv)
    const Buffer *peers_src = nullptr;
    const Buffer *peers_dst = nullptr;
    for (const auto &[b, l] :
         {std::make_pair(&old.src, was.src), std::make_pair(&old.dst, was.dst)}) {
        if (!b->used) {
            continue;
        }
        if (b->v) {
            if (l.holds == model::Holds::kPeerBlocks) {
                (b == &old.src ? peers_src : peers_dst) = b;
            } else {
                table = b;
            }
        } else if (l.holds == model::Holds::kAllBlocks || l.holds == model::Holds::kPeerBlocks) {
            unit = old_n > 0 ? b->count / old_n : 0;
        } else {
            unit = b->count;
        }
    }
    auto entries = [&](const Buffer *b) {
        Values v(n);
        for (uint32_t j = 0; j < n; ++j) {
            const uint32_t k = nt.played[j];
            v[j] = b != nullptr && k < b->counts.size() ? b->counts[k] : 0;
        }
        return v;
    };
    auto own = [&]() -> int64_t {
        if (table != nullptr && old_me < table->counts.size()) {
            return table->counts[old_me];
        }
        return static_cast<int64_t>(unit);  // a non-root of a v-collective: its own count
    };
    auto build = [&](const model::Buffer &l, const Buffer &recorded, const Buffer &other,
                     bool is_src) {
        Buffer b;
        if (!l.used()) {
            return b;
        }
        b.used = true;
        b.dt = recorded.used ? recorded.dt : other.dt;
        b.mem = recorded.used ? recorded.mem : other.mem;
        if (l.v()) {
            b.v = true;
            b.counts = l.holds == model::Holds::kPeerBlocks
                           ? entries(is_src ? peers_src : peers_dst)
                           : entries(table);
            b.has_displs = l.desc == model::Desc::kInfoV;
            if (b.has_displs) {
                b.displs = packed_displs(b.counts);
            }
            return b;
        }
        const bool v_type = model::is_v(type);
        switch (l.holds) {
            case model::Holds::kVector:
                b.count = unit;
                break;
            case model::Holds::kOwnBlock:
                b.count = static_cast<uint64_t>(v_type ? own() : static_cast<int64_t>(unit));
                break;
            case model::Holds::kAllBlocks:
            case model::Holds::kPeerBlocks:
                if (v_type) {
                    b.count = 0;
                    for (int64_t c : entries(table)) {
                        b.count += static_cast<uint64_t>(c);
                    }
                } else {
                    b.count = unit * n;
                }
                break;
            case model::Holds::kNothing:
                break;
        }
        return b;
    };
    if (model::is_v(type) && table == nullptr && peers_src == nullptr && peers_dst == nullptr) {
        // A non-root of gatherv/scatterv: its own count is its recorded buffer's.
        unit = old.src.used && !old.src.v ? old.src.count : old.dst.count;
    }
    out->src = build(now.src, old.src, old.dst, true);
    out->dst = build(now.dst, old.dst, old.src, false);
    return true;
}

}  // namespace

Trace rescale(const Trace &t, uint32_t n, std::vector<std::string> *notes) {
    Trace out;
    out.dir = t.dir;
    out.size = n;
    out.ranks.resize(n);
    const uint64_t s = t.size;
    std::set<std::string> said;
    auto note = [&](const std::string &what) {
        if (said.insert(what).second) {
            notes->push_back(what);
        }
    };
    for (uint32_t r = 0; r < n; ++r) {
        const RankTrace &old = t.ranks[origin(r, s, n)];
        RankTrace &rt = out.ranks[r];
        rt.path = old.path;
        rt.header = old.header;
        rt.header.rank = r;
        rt.header.size = n;
        rt.ended = old.ended;
        rt.truncated = old.truncated;
        rt.last_line = old.last_line;
        rt.line_of = old.line_of;
        rt.records.reserve(old.records.size());
        // Each team of this rank, at the new size, with the recorded size.
        std::map<uint32_t, std::pair<NewTeam, uint32_t>> teams;
        for (const Record &rec : old.records) {
            Record nr = rec;
            if (auto *tc = std::get_if<TeamCreateRec>(&nr); tc != nullptr && tc->how == "split") {
                // The split's caller names itself by its rank in the parent.
                if (const auto parent = teams.find(tc->parent); parent != teams.end()) {
                    tc->ep = position(parent->second.first, r);
                }
            } else if (auto *tr = std::get_if<TeamRec>(&nr)) {
                if (tr->has_members && tr->status == UCC_OK) {
                    NewTeam nt = grow(tr->members, s, n);
                    tr->rank = position(nt, r);
                    tr->size = static_cast<uint32_t>(nt.members.size());
                    tr->members = nt.members;
                    teams[tr->team] = {std::move(nt), static_cast<uint32_t>(
                                                          std::get<TeamRec>(rec).members.size())};
                }
            } else if (auto *i = std::get_if<InitRec>(&nr)) {
                const auto team = teams.find(i->team);
                if (i->req == 0 || i->status != UCC_OK || team == teams.end()) {
                    // failed when recorded, or on a team without membership: as is
                } else if (i->has_active_set) {
                    note("collectives with an active set are not replayed at another size");
                    i->req = 0;
                    i->status = UCC_ERR_NOT_SUPPORTED;
                } else {
                    const NewTeam &nt = team->second.first;
                    InitRec grown;
                    if (regrow(*i, team->second.second, nt, position(nt, r), &grown)) {
                        *i = std::move(grown);
                    } else {
                        note(std::string(coll_name(i->coll)) +
                             ": a collective whose recorded root plays no rank at this size is "
                             "not replayed");
                        i->req = 0;
                        i->status = UCC_ERR_NOT_SUPPORTED;
                    }
                }
            }
            rt.records.push_back(std::move(nr));
        }
    }
    return out;
}

}  // namespace ucc::traces
