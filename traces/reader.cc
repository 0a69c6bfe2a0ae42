// The trace reader (reader.h).
#include "traces/reader.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "traces/json.h"
#include "traces/names.h"

namespace ucc::traces {

namespace {

using json::Value;

// Reads the fields of one record; the first problem is kept in `why`.
class Fields {
  public:
    explicit Fields(const Value &v) : v_(v) {}
    const std::string &why() const { return why_; }
    bool ok() const { return why_.empty(); }
    bool has(const char *key) const { return v_.get(key) != nullptr; }

    bool fail(const std::string &why) {
        if (why_.empty()) {
            why_ = why;
        }
        return false;
    }

    const Value *need(const char *key, bool required) {
        const Value *f = v_.get(key);
        if (f == nullptr && required) {
            fail(std::string("missing field \"") + key + "\"");
        }
        return f;
    }

    bool u64(const char *key, uint64_t *out, bool required = true,
             uint64_t max = std::numeric_limits<uint64_t>::max()) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kNumber || !f->integer || f->negative || f->u > max) {
            return fail(std::string("\"") + key + "\" must be an integer in [0, " +
                        std::to_string(max) + "]");
        }
        *out = f->u;
        return true;
    }
    bool u32(const char *key, uint32_t *out, bool required = true,
             uint64_t max = std::numeric_limits<uint32_t>::max()) {
        uint64_t v = *out;
        const bool r = u64(key, &v, required, max);
        *out = static_cast<uint32_t>(v);
        return r;
    }
    bool i64(const char *key, int64_t *out, bool required = true) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kNumber || !f->integer ||
            (!f->negative && f->u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
            return fail(std::string("\"") + key + "\" must be a 64-bit integer");
        }
        *out = f->negative ? f->i : static_cast<int64_t>(f->u);
        return true;
    }
    bool real(const char *key, double *out, bool required = true) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kNumber) {
            return fail(std::string("\"") + key + "\" must be a number");
        }
        *out = f->d;
        return true;
    }
    bool str(const char *key, std::string *out, bool required = true) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kString) {
            return fail(std::string("\"") + key + "\" must be a string");
        }
        *out = f->str;
        return true;
    }
    bool boolean(const char *key, bool *out, bool required = true) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kBool) {
            return fail(std::string("\"") + key + "\" must be true or false");
        }
        *out = f->boolean;
        return true;
    }
    // A string among `choices`.
    bool choice(const char *key, std::string *out, std::initializer_list<const char *> choices,
                bool required = true) {
        std::string s;
        if (!str(key, &s, required)) {
            return false;
        }
        if (!has(key)) {
            return true;
        }
        for (const char *c : choices) {
            if (s == c) {
                *out = s;
                return true;
            }
        }
        return fail(std::string("\"") + key + "\": unknown value \"" + s + "\"");
    }
    // An enumerator, by its name in the format.
    template <class T>
    bool named(const char *key, T *out, std::optional<T> (*of)(std::string_view),
               bool required = true) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        if (f->type != Value::Type::kString) {
            return fail(std::string("\"") + key + "\" must be a name");
        }
        const std::optional<T> v = of(f->str);
        if (!v) {
            return fail(std::string("\"") + key + "\": unknown name \"" + f->str + "\"");
        }
        *out = *v;
        return true;
    }
    bool values(const char *key, Values *out, bool required, int64_t min_value) {
        const Value *f = need(key, required);
        if (f == nullptr) {
            return !required;
        }
        return expand(*f, key, out, min_value);
    }

    bool expand(const Value &a, const char *key, Values *out, int64_t min_value) {
        const std::string k = std::string("\"") + key + "\"";
        if (a.type != Value::Type::kArray) {
            return fail(k + " must be an array");
        }
        out->clear();
        auto push = [&](int64_t x) {
            if (x < min_value) {
                return fail(k + ": entry " + std::to_string(x) + " below " +
                            std::to_string(min_value));
            }
            out->push_back(x);
            return true;
        };
        for (const Value &e : a.items) {
            if (e.type == Value::Type::kNumber) {
                int64_t x = 0;
                if (!e.integer || (!e.negative && e.u > static_cast<uint64_t>(
                                                            std::numeric_limits<int64_t>::max()))) {
                    return fail(k + ": entries must be 64-bit integers");
                }
                x = e.negative ? e.i : static_cast<int64_t>(e.u);
                if (out->size() >= kMaxArrayEntries || !push(x)) {
                    return fail(k + ": more than " + std::to_string(kMaxArrayEntries) + " entries");
                }
                continue;
            }
            if (e.type != Value::Type::kObject) {
                return fail(k + ": entries are numbers or runs {\"v\",\"n\"[,\"d\"]}");
            }
            Fields run(e);
            int64_t v = 0;
            int64_t d = 0;
            uint64_t n = 0;
            if (!run.i64("v", &v) || !run.i64("d", &d, false) ||
                !run.u64("n", &n, true, kMaxArrayEntries)) {
                return fail(k + ": a run: " + run.why());
            }
            if (n == 0) {
                return fail(k + ": a run of 0 entries");
            }
            if (out->size() + n > kMaxArrayEntries) {
                return fail(k + ": more than " + std::to_string(kMaxArrayEntries) + " entries");
            }
            // The last entry must stay in 64 bits.
            __int128 last = static_cast<__int128>(v) + static_cast<__int128>(d) * (n - 1);
            if (last > std::numeric_limits<int64_t>::max() ||
                last < std::numeric_limits<int64_t>::min()) {
                return fail(k + ": a run leaves the 64-bit range");
            }
            for (uint64_t j = 0; j < n; ++j) {
                if (!push(static_cast<int64_t>(v + static_cast<int64_t>(j) * d))) {
                    return false;
                }
            }
        }
        return true;
    }

  private:
    const Value &v_;
    std::string why_;
};

bool datatype(Fields &f, const Value &buf, Datatype *out) {
    const Value *dt = buf.get("dt");
    if (dt == nullptr) {
        return f.fail("a buffer without \"dt\"");
    }
    if (dt->type == Value::Type::kString) {
        const auto p = dt_of(dt->str);
        if (!p) {
            return f.fail("unknown datatype \"" + dt->str + "\"");
        }
        out->predefined = *p;
        return true;
    }
    const Value *g = dt->type == Value::Type::kObject ? dt->get("generic") : nullptr;
    if (g == nullptr || g->type != Value::Type::kObject) {
        return f.fail("\"dt\" must be a datatype name or {\"generic\":{...}}");
    }
    Fields gf(*g);
    out->generic = true;
    if (!gf.u64("size", &out->size, true, uint64_t{1} << 32) ||
        !gf.boolean("contig", &out->contig) || !gf.boolean("reduce", &out->reduce)) {
        return f.fail("generic datatype: " + gf.why());
    }
    return true;
}

bool buffer(Fields &f, const Value &rec, const char *key, Buffer *out) {
    const Value *b = rec.get(key);
    if (b == nullptr) {
        return true;  // unused
    }
    if (b->type != Value::Type::kObject) {
        return f.fail(std::string("\"") + key + "\" must be an object");
    }
    Fields bf(*b);
    out->used = true;
    out->v = bf.has("counts");
    if (out->v) {
        out->has_displs = bf.has("displs");
        if (!bf.values("counts", &out->counts, true, 0) ||
            !bf.values("displs", &out->displs, false, std::numeric_limits<int64_t>::min())) {
            return f.fail(std::string(key) + ": " + bf.why());
        }
    } else if (!bf.u64("count", &out->count, true, uint64_t{1} << 62)) {
        return f.fail(std::string(key) + ": " + bf.why());
    }
    if (!datatype(bf, *b, &out->dt) || !bf.named<ucc_memory_type_t>("mem", &out->mem, mem_of)) {
        return f.fail(std::string(key) + ": " + bf.why());
    }
    return true;
}

bool header(const Value &v, Header *h, std::string *why) {
    Fields f(v);
    std::string format;
    uint64_t version = 0;
    if (!f.str("format", &format) || format != "ucc-trace") {
        *why = f.ok() ? "not a UCC trace (format \"" + format + "\")" : f.why();
        return false;
    }
    if (!f.u64("version", &version)) {
        *why = f.why();
        return false;
    }
    if (version != kFormatVersion) {
        *why = "trace format version " + std::to_string(version) + ": this reader knows version " +
               std::to_string(kFormatVersion) + " (traces/FORMAT.md)";
        return false;
    }
    h->version = static_cast<uint32_t>(version);
    f.str("library", &h->library, false);
    f.str("revision", &h->revision, false);
    f.u64("size", &h->size, true, kMaxRanks);
    f.u64("rank", &h->rank, true, kMaxRanks - 1);
    f.str("host", &h->host, false);
    f.i64("pid", &h->pid, false);
    f.str("transport", &h->transport, false);
    f.choice("clock", &h->clock, {"monotonic", "virtual"});
    f.real("clock_resolution_ns", &h->clock_resolution_ns, false);
    f.choice("thread_mode", &h->thread_mode, {"single", "funneled", "multiple"}, false);
    if (f.ok() && (h->size == 0 || h->rank >= h->size)) {
        f.fail("rank " + std::to_string(h->rank) + " is not below size " + std::to_string(h->size));
    }
    if (const Value *c = v.get("context"); c != nullptr && c->type == Value::Type::kObject) {
        Fields cf(*c);
        std::string sync = "none";
        cf.choice("type", &h->context_type, {"shared", "exclusive"}, false);
        cf.choice("sync", &sync, {"none", "sync"}, false);
        cf.boolean("oob", &h->context_oob, false);
        h->context_sync = sync == "sync";
        if (!cf.ok()) {
            f.fail("context: " + cf.why());
        }
    }
    if (const Value *c = v.get("config"); c != nullptr && c->type == Value::Type::kObject) {
        for (const auto &[name, value] : c->fields) {
            if (name == "TUNE" && value.type == Value::Type::kArray) {
                for (const Value &t : value.items) {
                    if (t.type == Value::Type::kString) {
                        h->tune.push_back(t.str);
                    }
                }
            } else if (value.type == Value::Type::kString) {
                h->config.emplace_back(name, value.str);
            }
        }
    }
    *why = f.why();
    return f.ok();
}

// One record (not the header); `ev` is its kind.
bool record(const Value &v, const std::string &ev, Record *out, std::string *why) {
    Fields f(v);
    int64_t t = 0;
    int64_t idle = 0;
    f.i64("t", &t);
    f.i64("idle", &idle, false);
    if (idle < 0) {
        f.fail("\"idle\" must not be negative");
    }
    if (ev == "team_create") {
        TeamCreateRec r;
        r.t = t;
        std::string sync = "none";
        f.u32("team", &r.team, true);
        f.named<ucc_status_t>("status", &r.status, status_of);
        f.choice("how", &r.how, {"oob", "ep_map", "split"});
        f.u32("parent", &r.parent, r.how == "split");
        f.boolean("included", &r.included, false);
        f.u64("ep", &r.ep, true, kMaxRanks - 1);
        f.named<ucc_post_ordering_t>("ordering", &r.ordering, ordering_of, false);
        f.choice("sync", &sync, {"none", "sync"}, false);
        r.sync = sync == "sync";
        r.has_id = f.has("id");
        f.u64("id", &r.id, false);
        *out = r;
    } else if (ev == "team") {
        TeamRec r;
        r.t = t;
        f.u32("team", &r.team);
        f.named<ucc_status_t>("status", &r.status, status_of);
        f.u32("rank", &r.rank, true, kMaxRanks - 1);
        f.u32("size", &r.size, true, kMaxRanks);
        r.has_members = f.has("members");
        f.values("members", &r.members, false, 0);
        if (f.ok() && r.status == UCC_OK && (r.size == 0 || r.rank >= r.size)) {
            f.fail("team rank " + std::to_string(r.rank) + " is not below its size " +
                   std::to_string(r.size));
        }
        if (f.ok() && r.has_members && r.members.size() != r.size) {
            f.fail("\"members\" has " + std::to_string(r.members.size()) +
                   " entries for a team of " + std::to_string(r.size));
        }
        *out = std::move(r);
    } else if (ev == "init") {
        InitRec r;
        r.t = t;
        f.u64("req", &r.req, false);
        f.u32("team", &r.team, false);
        f.named<ucc_status_t>("status", &r.status, status_of);
        r.has_coll = f.has("coll");
        f.named<ucc_coll_type_t>("coll", &r.coll, coll_of, false);
        f.str("alg", &r.alg, false);
        if (const Value *fl = v.get("flags"); fl != nullptr) {
            r.has_flags = true;
            if (fl->type != Value::Type::kArray) {
                f.fail("\"flags\" must be an array of names");
            } else {
                for (const Value &n : fl->items) {
                    const uint64_t bit = n.type == Value::Type::kString ? flag_of(n.str) : 0;
                    if (bit == 0) {
                        f.fail("\"flags\": unknown flag " +
                               (n.type == Value::Type::kString ? "\"" + n.str + "\"" : "entry"));
                        break;
                    }
                    r.flags |= bit;
                }
            }
        }
        if (r.req != 0 && r.status == UCC_OK) {
            if (!r.has_coll) {
                f.fail("an init with a request has no \"coll\"");
            }
            buffer(f, v, "src", &r.src);
            buffer(f, v, "dst", &r.dst);
            r.has_op = f.has("op");
            f.named<ucc_reduction_op_t>("op", &r.op, op_of, false);
            r.has_root = f.has("root");
            f.u64("root", &r.root, false, kMaxRanks - 1);
            r.has_tag = f.has("tag");
            f.u64("tag", &r.tag, false);
            if (const Value *as = v.get("active_set"); as != nullptr) {
                r.has_active_set = true;
                if (as->type != Value::Type::kObject) {
                    f.fail("\"active_set\" must be an object");
                } else {
                    Fields af(*as);
                    if (!af.u64("start", &r.as_start, true, kMaxRanks) ||
                        !af.i64("stride", &r.as_stride) ||
                        !af.u64("size", &r.as_size, true, kMaxRanks)) {
                        f.fail("active_set: " + af.why());
                    }
                }
            }
            f.real("timeout", &r.timeout, false);
            f.boolean("cb", &r.cb, false);
        }
        *out = std::move(r);
    } else if (ev == "post") {
        PostRec r;
        r.t = t;
        f.u64("req", &r.req);
        f.named<ucc_status_t>("status", &r.status, status_of);
        f.u64("key", &r.key, false);
        *out = r;
    } else if (ev == "done") {
        DoneRec r;
        r.t = t;
        f.u64("req", &r.req);
        f.named<ucc_status_t>("status", &r.status, status_of);
        *out = r;
    } else if (ev == "fin") {
        FinRec r;
        r.t = t;
        f.u64("req", &r.req);
        *out = r;
    } else if (ev == "team_destroy") {
        TeamDestroyRec r;
        r.t = t;
        f.u32("team", &r.team);
        *out = r;
    } else if (ev == "end") {
        *out = EndRec{t, 0};
    } else {
        f.fail("unknown record \"" + ev + "\"");
    }
    std::visit([idle](auto &r) { r.idle = idle; }, *out);
    *why = f.why();
    return f.ok();
}

// References: every team and request a record names was introduced before.
struct Refs {
    std::set<uint32_t> teams;
    std::set<uint64_t> reqs;

    bool check(const Record &r, std::string *why) {
        auto team = [&](uint32_t t) {
            if (teams.count(t) == 0) {
                *why = "team " + std::to_string(t) + " has no team_create before";
                return false;
            }
            return true;
        };
        auto req = [&](uint64_t q) {
            if (reqs.count(q) == 0) {
                *why = "request " + std::to_string(q) + " has no init before";
                return false;
            }
            return true;
        };
        if (const auto *c = std::get_if<TeamCreateRec>(&r)) {
            if (c->how == "split" && !team(c->parent)) {
                return false;
            }
            if (!teams.insert(c->team).second) {
                *why = "team " + std::to_string(c->team) + " is created twice";
                return false;
            }
            return true;
        }
        if (const auto *t = std::get_if<TeamRec>(&r)) {
            return team(t->team);
        }
        if (const auto *i = std::get_if<InitRec>(&r)) {
            if (i->team != 0 && !team(i->team)) {
                return false;
            }
            if (i->req != 0 && !reqs.insert(i->req).second) {
                *why = "request " + std::to_string(i->req) + " is initialised twice";
                return false;
            }
            return true;
        }
        if (const auto *p = std::get_if<PostRec>(&r)) {
            return req(p->req);
        }
        if (const auto *d = std::get_if<DoneRec>(&r)) {
            return req(d->req);
        }
        if (const auto *f = std::get_if<FinRec>(&r)) {
            return req(f->req);
        }
        if (const auto *d = std::get_if<TeamDestroyRec>(&r)) {
            return team(d->team);
        }
        return true;
    }
};

}  // namespace

bool read_text(std::string_view text, const std::string &name, RankTrace *out, std::string *error) {
    *out = RankTrace{};
    out->path = name;
    // NUL padding of a file still being written (or of a killed writer).
    while (!text.empty() && text.back() == '\0') {
        text.remove_suffix(1);
    }
    Refs refs;
    uint32_t line_no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        ++line_no;
        if (nl == std::string_view::npos) {
            out->truncated = true;  // cut short: the trace ends before it
            break;
        }
        const std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        auto fail = [&](const std::string &why) {
            *error = name + ":" + std::to_string(line_no) + ": " + why;
            return false;
        };
        if (line.size() > kMaxLineBytes) {
            return fail("a line of more than " + std::to_string(kMaxLineBytes) + " bytes");
        }
        if (out->ended) {
            return fail("a record after \"end\"");
        }
        json::Value v;
        std::string why;
        if (!json::parse(line, &v, &why)) {
            return fail("not JSON: " + why);
        }
        if (v.type != json::Value::Type::kObject) {
            return fail("a record must be a JSON object");
        }
        const json::Value *ev = v.get("ev");
        if (ev == nullptr || ev->type != json::Value::Type::kString) {
            return fail("a record needs \"ev\", its kind");
        }
        if (line_no == 1) {
            if (ev->str != "header") {
                return fail("the first line must be the header, not \"" + ev->str + "\"");
            }
            if (!header(v, &out->header, &why)) {
                return fail(why);
            }
            out->last_line = line_no;
            continue;
        }
        if (ev->str == "header") {
            return fail("a second header");
        }
        Record r;
        if (!record(v, ev->str, &r, &why) || !refs.check(r, &why)) {
            return fail(why);
        }
        out->ended = std::holds_alternative<EndRec>(r);
        out->records.push_back(std::move(r));
        out->line_of.push_back(line_no);
        out->last_line = line_no;
    }
    if (out->last_line == 0) {
        *error = name + ": no header (an empty or cut-short trace)";
        return false;
    }
    return true;
}

bool read_file(const std::string &path, RankTrace *out, std::string *error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = path + ": " + std::strerror(errno);
        return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return read_text(ss.str(), path, out, error);
}

bool read_dir(const std::string &dir, Trace *out, std::string *error) {
    *out = Trace{};
    out->dir = dir;
    DIR *d = opendir(dir.c_str());
    if (d == nullptr) {
        *error = dir + ": " + std::strerror(errno);
        return false;
    }
    std::vector<std::string> names;
    while (const dirent *e = readdir(d)) {
        const std::string n = e->d_name;
        if (n.size() > 10 && n.rfind("rank", 0) == 0 && n.compare(n.size() - 6, 6, ".jsonl") == 0) {
            names.push_back(n);
        }
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    if (names.empty()) {
        *error = dir + ": no trace files (rank<R>.jsonl)";
        return false;
    }
    std::map<uint64_t, RankTrace> by_rank;
    for (const std::string &n : names) {
        RankTrace t;
        if (!read_file(dir + "/" + n, &t, error)) {
            return false;
        }
        if (out->size == 0) {
            out->size = t.header.size;
        } else if (t.header.size != out->size) {
            *error = t.path + ": size " + std::to_string(t.header.size) + ", but " +
                     by_rank.begin()->second.path + " says " + std::to_string(out->size) +
                     " (traces of different runs in one directory?)";
            return false;
        }
        const uint64_t rank = t.header.rank;
        if (auto it = by_rank.find(rank); it != by_rank.end()) {
            *error = "rank " + std::to_string(rank) + " has two traces, " + it->second.path +
                     " and " + t.path + " (two contexts, or two runs): keep one";
            return false;
        }
        by_rank.emplace(rank, std::move(t));
    }
    std::string missing;
    size_t n_missing = 0;
    for (uint64_t r = 0; r < out->size; ++r) {
        if (by_rank.count(r) == 0) {
            if (++n_missing <= 16) {
                missing += (missing.empty() ? "" : ", ") + std::to_string(r);
            }
        }
    }
    if (n_missing > 0) {
        *error = dir + ": " + std::to_string(n_missing) + " of " + std::to_string(out->size) +
                 " ranks have no trace (" + missing + (n_missing > 16 ? ", ..." : "") + ")";
        return false;
    }
    for (auto &[rank, t] : by_rank) {
        out->ranks.push_back(std::move(t));
    }
    return true;
}

}  // namespace ucc::traces
