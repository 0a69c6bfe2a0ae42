// Importing SimGrid's time-independent traces (simgrid.h).
#include "traces/simgrid.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "traces/names.h"

namespace ucc::traces {

namespace {

constexpr uint64_t kMaxCount = uint64_t{1} << 40;

struct Action {
    std::vector<std::string> tok;  // action and its arguments (the rank removed)
    std::string where;             // file:line
};

bool is_dir(const std::string &p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> split(const std::string &line) {
    std::vector<std::string> t;
    std::istringstream in(line);
    std::string w;
    while (in >> w) {
        t.push_back(w);
    }
    return t;
}

// "12" or "p12" (older SMPI traces name processes so).
bool parse_rank(const std::string &s, uint64_t *out) {
    const char *p = s.c_str() + (s.size() > 1 && s[0] == 'p' ? 1 : 0);
    if (*p == '\0') {
        return false;
    }
    uint64_t v = 0;
    for (; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9' || v > kMaxRanks) {
            return false;
        }
        v = v * 10 + static_cast<uint64_t>(*p - '0');
    }
    *out = v;
    return v < kMaxRanks;
}

// The first non-empty, non-comment line of a file.
std::string first_line(const std::string &path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!split(line).empty() && line[line.find_first_not_of(" \t")] != '#') {
            return line;
        }
    }
    return "";
}

bool is_action_line(const std::string &line) {
    const std::vector<std::string> t = split(line);
    uint64_t r = 0;
    return t.size() >= 2 && parse_rank(t[0], &r) &&
           std::isalpha(static_cast<unsigned char>(t[1][0]));
}

// SMPI's datatype ids (simgrid::smpi::Datatype::encode) and ours.
bool datatype_of(const std::string &id, ucc_datatype_t *out) {
    static const std::map<std::string, ucc_datatype_t> kIds = {{"0", UCC_DT_FLOAT64},
                                                               {"1", UCC_DT_INT32},
                                                               {"2", UCC_DT_INT8},
                                                               {"3", UCC_DT_INT16},
                                                               {"4", UCC_DT_INT64},
                                                               {"5", UCC_DT_FLOAT32},
                                                               {"6", UCC_DT_UINT8},
                                                               {"7", UCC_DT_INT64},
                                                               {"8", UCC_DT_INT8},
                                                               {"9", UCC_DT_UINT8},
                                                               {"10", UCC_DT_UINT16},
                                                               {"11", UCC_DT_UINT32},
                                                               {"12", UCC_DT_UINT64},
                                                               {"13", UCC_DT_UINT64},
                                                               {"14", UCC_DT_FLOAT128},
                                                               {"16", UCC_DT_UINT8},
                                                               {"17", UCC_DT_INT8},
                                                               {"18", UCC_DT_INT16},
                                                               {"19", UCC_DT_INT32},
                                                               {"20", UCC_DT_INT64},
                                                               {"21", UCC_DT_UINT8},
                                                               {"22", UCC_DT_UINT16},
                                                               {"23", UCC_DT_UINT32},
                                                               {"24", UCC_DT_UINT64},
                                                               {"25", UCC_DT_FLOAT32_COMPLEX},
                                                               {"26", UCC_DT_FLOAT64_COMPLEX},
                                                               {"27", UCC_DT_FLOAT128_COMPLEX},
                                                               {"28", UCC_DT_INT64},
                                                               {"29", UCC_DT_INT64},
                                                               {"38", UCC_DT_FLOAT32},
                                                               {"39", UCC_DT_FLOAT32},
                                                               {"40", UCC_DT_FLOAT64},
                                                               {"41", UCC_DT_FLOAT128},
                                                               {"42", UCC_DT_FLOAT32_COMPLEX},
                                                               {"43", UCC_DT_FLOAT64_COMPLEX},
                                                               {"45", UCC_DT_INT32},
                                                               {"46", UCC_DT_INT16},
                                                               {"47", UCC_DT_INT32},
                                                               {"48", UCC_DT_INT64},
                                                               {"49", UCC_DT_INT128},
                                                               {"51", UCC_DT_UINT8},
                                                               {"52", UCC_DT_FLOAT32_COMPLEX},
                                                               {"53", UCC_DT_FLOAT64_COMPLEX},
                                                               {"54", UCC_DT_FLOAT128_COMPLEX},
                                                               {"57", UCC_DT_UINT8},
                                                               {"59", UCC_DT_INT64}};
    const auto it = kIds.find(id);
    if (it == kIds.end()) {
        return false;
    }
    *out = it->second;
    return true;
}

// Turns one rank's actions into records.
class Converter {
  public:
    Converter(uint64_t rank, uint64_t n, std::map<std::string, uint64_t> *skipped)
        : rank_(rank), n_(n), skipped_(skipped) {}

    bool run(const std::vector<Action> &actions, RankTrace *out, std::string *error);

  private:
    bool fail(const Action &a, const std::string &why) {
        error_ = a.where + ": " + a.tok[0] + ": " + why;
        return false;
    }
    // A size: a non-negative whole number (SMPI writes doubles).
    bool count(const Action &a, size_t i, uint64_t *out) {
        if (i >= a.tok.size()) {
            return fail(a, "missing argument " + std::to_string(i));
        }
        char *end = nullptr;
        const double v = std::strtod(a.tok[i].c_str(), &end);
        if (end == a.tok[i].c_str() || *end != '\0' || !std::isfinite(v) || v < 0 ||
            v != std::floor(v) || v > static_cast<double>(kMaxCount)) {
            return fail(a, "\"" + a.tok[i] + "\" is not a count");
        }
        *out = static_cast<uint64_t>(v);
        return true;
    }
    bool root(const Action &a, size_t i, uint64_t *out) {
        *out = 0;
        if (i >= a.tok.size()) {
            return true;
        }
        if (!count(a, i, out)) {
            return false;
        }
        if (*out >= n_) {
            return fail(a,
                        "root " + a.tok[i] + " is not below the " + std::to_string(n_) + " ranks");
        }
        return true;
    }
    bool dt(const Action &a, size_t i, Datatype *out) {
        out->predefined = default_dt_;
        if (i >= a.tok.size()) {
            return true;
        }
        if (!datatype_of(a.tok[i], &out->predefined)) {
            return fail(a, "unknown SMPI datatype id " + a.tok[i]);
        }
        return true;
    }
    bool counts(const Action &a, size_t first, Values *out) {
        out->clear();
        for (uint64_t j = 0; j < n_; ++j) {
            uint64_t c = 0;
            if (!count(a, first + j, &c)) {
                return false;
            }
            out->push_back(static_cast<int64_t>(c));
        }
        return true;
    }
    static Buffer info(uint64_t count, const Datatype &d) {
        Buffer b;
        b.used = true;
        b.count = count;
        b.dt = d;
        return b;
    }
    static Buffer info_v(const Values &counts, const Datatype &d, bool displs) {
        Buffer b;
        b.used = b.v = true;
        b.counts = counts;
        b.dt = d;
        b.has_displs = displs;
        if (displs) {
            int64_t at = 0;
            for (int64_t c : counts) {
                b.displs.push_back(at);
                at += c;
            }
        }
        return b;
    }
    // The collective of one action; false when the action is not one.
    bool collective(const Action &a, InitRec *r, bool *is_coll);

    uint64_t rank_;
    uint64_t n_;
    std::map<std::string, uint64_t> *skipped_;
    ucc_datatype_t default_dt_ = UCC_DT_UINT8;  // MPI_BYTE; MPI_DOUBLE after `init <x>`
    std::string error_;
};

bool Converter::collective(const Action &a, InitRec *r, bool *is_coll) {
    const std::string &act = a.tok[0];
    *is_coll = true;
    r->has_coll = true;
    const uint64_t n = n_;
    Datatype d1;
    Datatype d2;
    uint64_t c1 = 0;
    uint64_t c2 = 0;
    uint64_t rt = 0;
    Values v1;
    Values v2;
    auto set_root = [&](uint64_t x) {
        r->has_root = true;
        r->root = x;
    };
    auto set_sum = [&]() {
        r->has_op = true;
        r->op = UCC_OP_SUM;
    };
    if (act == "barrier") {
        r->coll = UCC_COLL_TYPE_BARRIER;
    } else if (act == "bcast") {
        r->coll = UCC_COLL_TYPE_BCAST;
        if (!count(a, 1, &c1) || !root(a, 2, &rt) || !dt(a, 3, &d1)) {
            return false;
        }
        set_root(rt);
        r->src = info(c1, d1);
    } else if (act == "reduce" || act == "allreduce") {
        const bool all = act == "allreduce";
        r->coll = all ? UCC_COLL_TYPE_ALLREDUCE : UCC_COLL_TYPE_REDUCE;
        if (!count(a, 1, &c1) || !count(a, 2, &c2) || (!all && !root(a, 3, &rt)) ||
            !dt(a, all ? 3 : 4, &d1)) {
            return false;
        }
        set_sum();
        r->src = info(c1, d1);
        if (!all) {
            set_root(rt);
        }
        if (all || rt == rank_) {
            r->dst = info(c1, d1);
        }
    } else if (act == "alltoall" || act == "allgather") {
        r->coll = act == "alltoall" ? UCC_COLL_TYPE_ALLTOALL : UCC_COLL_TYPE_ALLGATHER;
        if (!count(a, 1, &c1) || !count(a, 2, &c2) || !dt(a, 3, &d1) || !dt(a, 4, &d2)) {
            return false;
        }
        if (a.tok.size() <= 4) {
            d2 = d1;
        }
        r->src = info(act == "alltoall" ? c1 * n : c1, d1);
        r->dst = info(c2 * n, d2);
    } else if (act == "gather" || act == "scatter") {
        const bool gather = act == "gather";
        r->coll = gather ? UCC_COLL_TYPE_GATHER : UCC_COLL_TYPE_SCATTER;
        if (!count(a, 1, &c1) || !count(a, 2, &c2) || !root(a, 3, &rt) || !dt(a, 4, &d1) ||
            !dt(a, 5, &d2)) {
            return false;
        }
        if (a.tok.size() <= 5) {
            d2 = d1;
        }
        set_root(rt);
        if (gather) {
            r->src = info(c1, d1);
            if (rt == rank_) {
                r->dst = info(c2 * n, d2);
            }
        } else {
            if (rt == rank_) {
                r->src = info(c1 * n, d1);
            }
            r->dst = info(c2, d2);
        }
    } else if (act == "gatherv" || act == "allgatherv") {
        const bool all = act == "allgatherv";
        r->coll = all ? UCC_COLL_TYPE_ALLGATHERV : UCC_COLL_TYPE_GATHERV;
        if (!count(a, 1, &c1) || !counts(a, 2, &v1)) {
            return false;
        }
        const size_t rest = 2 + n;
        if (!all) {
            if (!root(a, rest, &rt) || !dt(a, rest + 1, &d1) || !dt(a, rest + 2, &d2)) {
                return false;
            }
            if (a.tok.size() <= rest + 2) {
                d2 = d1;
            }
            set_root(rt);
        } else {
            // SMPI: a datatype, or displacements, or a datatype then displacements.
            // (more than n tokens: a datatype, then n displacements; 3 to n: the
            // displacements alone; 1 or 2: a datatype alone). Displacements
            // are replayed contiguous.
            const size_t extra = a.tok.size() - std::min(a.tok.size(), rest);
            const bool has_dt = extra > n || (extra >= 1 && extra <= 2);
            if (has_dt && !dt(a, rest, &d1)) {
                return false;
            }
            d2 = d1;
        }
        r->src = info(c1, d1);
        if (all || rt == rank_) {
            r->dst = info_v(v1, d2, true);
        }
    } else if (act == "scatterv") {
        r->coll = UCC_COLL_TYPE_SCATTERV;
        if (!counts(a, 1, &v1) || !count(a, 1 + n, &c2) || !root(a, 2 + n, &rt) ||
            !dt(a, 3 + n, &d1) || !dt(a, 4 + n, &d2)) {
            return false;
        }
        if (a.tok.size() <= 4 + n) {
            d2 = d1;
        }
        set_root(rt);
        if (rt == rank_) {
            r->src = info_v(v1, d1, true);
        }
        r->dst = info(c2, d2);
    } else if (act == "reducescatter") {
        r->coll = UCC_COLL_TYPE_REDUCE_SCATTERV;
        if (!counts(a, 1, &v1) || !count(a, 1 + n, &c2) || !dt(a, 2 + n, &d1)) {
            return false;
        }
        set_sum();
        uint64_t total = 0;
        for (int64_t c : v1) {
            total += static_cast<uint64_t>(c);
        }
        r->src = info(total, d1);
        r->dst = info_v(v1, d1, false);
    } else if (act == "alltoallv") {
        r->coll = UCC_COLL_TYPE_ALLTOALLV;
        if (!count(a, 1, &c1) || !counts(a, 2, &v1) || !count(a, 2 + n, &c2) ||
            !counts(a, 3 + n, &v2) || !dt(a, 3 + 2 * n, &d1) || !dt(a, 4 + 2 * n, &d2)) {
            return false;
        }
        if (a.tok.size() <= 4 + 2 * n) {
            d2 = d1;
        }
        r->src = info_v(v1, d1, true);
        r->dst = info_v(v2, d2, true);
    } else {
        *is_coll = false;
    }
    return true;
}

bool Converter::run(const std::vector<Action> &actions, RankTrace *out, std::string *error) {
    Header &h = out->header;
    h.rank = rank_;
    h.size = n_;
    h.transport = "simgrid-ti";
    h.clock = "virtual";
    h.context_oob = true;
    TeamCreateRec tc;
    tc.team = 1;
    tc.how = "oob";
    tc.ep = rank_;
    out->records.push_back(tc);
    TeamRec team;
    team.team = 1;
    team.rank = static_cast<uint32_t>(rank_);
    team.size = static_cast<uint32_t>(n_);
    team.has_members = true;
    for (uint64_t j = 0; j < n_; ++j) {
        team.members.push_back(static_cast<int64_t>(j));
    }
    out->records.push_back(team);
    const uint32_t first_line = actions.empty() ? 0 : 1;
    out->line_of.assign(2, first_line);
    uint64_t req = 0;
    for (const Action &a : actions) {
        const uint32_t line = static_cast<uint32_t>(
            std::strtoul(a.where.substr(a.where.rfind(':') + 1).c_str(), nullptr, 10));
        const std::string &act = a.tok[0];
        if (act == "init") {
            default_dt_ = a.tok.size() > 1 ? UCC_DT_FLOAT64 : UCC_DT_UINT8;
            continue;
        }
        if (act == "finalize" || act == "comm_size" || act == "comm_split" || act == "comm_dup") {
            continue;  // SMPI's replay does nothing for these either
        }
        InitRec r;
        bool is_coll = false;
        if (!collective(a, &r, &is_coll)) {
            *error = error_;
            return false;
        }
        if (!is_coll) {
            ++(*skipped_)[act];  // point-to-point, compute, sleep, location, ...
            continue;
        }
        r.req = ++req;
        r.team = 1;
        r.t = -1;
        out->records.push_back(r);
        out->records.push_back(PostRec{-1, 0, req, UCC_OK, req - 1});
        out->records.push_back(DoneRec{-1, 0, req, UCC_OK});
        out->records.push_back(FinRec{-1, 0, req});
        for (int k = 0; k < 4; ++k) {
            out->line_of.push_back(line);
        }
    }
    out->records.push_back(TeamDestroyRec{-1, 0, 1});
    out->records.push_back(EndRec{-1, 0});
    out->line_of.push_back(out->line_of.back());
    out->line_of.push_back(out->line_of.back());
    out->ended = true;
    out->last_line = out->line_of.back();
    return true;
}

// Reads `path`'s action lines into per-rank lists.
bool read_actions(const std::string &path, std::map<uint64_t, std::vector<Action>> *by_rank,
                  std::string *error) {
    std::ifstream in(path);
    if (!in) {
        *error = path + ": " + std::strerror(errno);
        return false;
    }
    std::string line;
    for (uint32_t no = 1; std::getline(in, line); ++no) {
        std::vector<std::string> t = split(line);
        if (t.empty() || t[0][0] == '#') {
            continue;
        }
        uint64_t rank = 0;
        if (t.size() < 2 || !parse_rank(t[0], &rank)) {
            *error = path + ":" + std::to_string(no) + ": not \"<rank> <action> [args]\"";
            return false;
        }
        Action a;
        a.tok.assign(t.begin() + 1, t.end());
        a.where = path + ":" + std::to_string(no);
        (*by_rank)[rank].push_back(std::move(a));
    }
    return true;
}

}  // namespace

bool looks_like_simgrid(const std::string &path) {
    if (is_dir(path)) {
        DIR *d = opendir(path.c_str());
        if (d == nullptr) {
            return false;
        }
        bool ours = false;
        bool ti = false;
        while (const dirent *e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 6 && n.compare(n.size() - 6, 6, ".jsonl") == 0) {
                ours = true;
            } else if (n[0] != '.' && is_action_line(first_line(path + "/" + n))) {
                ti = true;
            }
        }
        closedir(d);
        return ti && !ours;
    }
    return !first_line(path).empty();
}

bool import_simgrid(const std::string &path, Trace *out, std::vector<std::string> *notes,
                    std::string *error) {
    *out = Trace{};
    out->dir = path;
    std::vector<std::string> files;
    if (is_dir(path)) {
        DIR *d = opendir(path.c_str());
        if (d == nullptr) {
            *error = path + ": " + std::strerror(errno);
            return false;
        }
        while (const dirent *e = readdir(d)) {
            const std::string f = path + "/" + e->d_name;
            if (e->d_name[0] != '.' && !is_dir(f) && is_action_line(first_line(f))) {
                files.push_back(f);
            }
        }
        closedir(d);
        std::sort(files.begin(), files.end());
    } else if (is_action_line(first_line(path))) {
        files.push_back(path);  // every rank's actions in one file
    } else {
        // An index: one per-rank file per line.
        std::ifstream in(path);
        const std::string base = path.find('/') == std::string::npos
                                     ? std::string(".")
                                     : path.substr(0, path.rfind('/'));
        std::string line;
        while (std::getline(in, line)) {
            const std::vector<std::string> t = split(line);
            if (!t.empty() && t[0][0] != '#') {
                files.push_back(t[0][0] == '/' ? t[0] : base + "/" + t[0]);
            }
        }
    }
    if (files.empty()) {
        *error = path + ": no SimGrid time-independent trace (lines \"<rank> <action> ...\")";
        return false;
    }
    std::map<uint64_t, std::vector<Action>> by_rank;
    for (const std::string &f : files) {
        if (!read_actions(f, &by_rank, error)) {
            return false;
        }
    }
    const uint64_t n = by_rank.rbegin()->first + 1;
    if (by_rank.size() != n) {
        std::string missing;
        for (uint64_t r = 0; r < n && missing.size() < 80; ++r) {
            if (by_rank.count(r) == 0) {
                missing += (missing.empty() ? "" : ", ") + std::to_string(r);
            }
        }
        *error = path + ": ranks " + missing + " have no actions (" + std::to_string(n) +
                 " ranks by the highest rank named)";
        return false;
    }
    out->size = n;
    out->ranks.resize(n);
    std::map<std::string, uint64_t> skipped;
    for (uint64_t r = 0; r < n; ++r) {
        const std::vector<Action> &acts = by_rank[r];
        out->ranks[r].path = acts.front().where.substr(0, acts.front().where.rfind(':'));
        if (!Converter(r, n, &skipped).run(acts, &out->ranks[r], error)) {
            return false;
        }
    }
    for (const auto &[act, k] : skipped) {
        notes->push_back(std::to_string(k) + " \"" + act +
                         "\" actions are not collectives: skipped");
    }
    return true;
}

}  // namespace ucc::traces
