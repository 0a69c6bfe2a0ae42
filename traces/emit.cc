// Records as JSON lines (emit.h).
#include "traces/emit.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "traces/names.h"

namespace ucc::traces {

namespace {

// A JSON object built field by field.
class Line {
  public:
    explicit Line(std::string *out) : out_(out) { out_->push_back('{'); }
    void end() { out_->append("}\n"); }
    // A nested object's end.
    void close() { out_->push_back('}'); }

    Line &key(const char *k) {
        if (!first_) {
            out_->push_back(',');
        }
        first_ = false;
        const size_t n = std::strlen(k);
        const size_t at = out_->size();
        out_->resize(at + n + 3);
        char *p = out_->data() + at;
        p[0] = '"';
        std::memcpy(p + 1, k, n);
        p[n + 1] = '"';
        p[n + 2] = ':';
        return *this;
    }
    Line &str(const char *k, std::string_view v) {
        key(k);
        quote(v);
        return *this;
    }
    Line &name(const char *k, const char *v, int64_t fallback) {
        // An enumerator without a name is written as its number.
        if (v != nullptr) {
            return str(k, v);
        }
        return num(k, fallback);
    }
    Line &num(const char *k, int64_t v) {
        key(k);
        append_int(v);
        return *this;
    }
    Line &unum(const char *k, uint64_t v) {
        key(k);
        char b[24];
        out_->append(b, std::to_chars(b, b + sizeof b, v).ptr);
        return *this;
    }
    Line &real(const char *k, double v) {
        key(k);
        char b[32];
        std::snprintf(b, sizeof b, "%.17g", v);
        out_->append(b);
        return *this;
    }
    // The program's time since the previous record, when there was any.
    Line &idle(int64_t v) { return v > 0 ? num("idle", v) : *this; }
    Line &boolean(const char *k, bool v) {
        key(k);
        out_->append(v ? "true" : "false");
        return *this;
    }
    Line &values(const char *k, const Values &v) {
        key(k);
        append_values(v);
        return *this;
    }
    std::string &raw() { return *out_; }

    void quote(std::string_view s) {
        out_->push_back('"');
        bool plain = true;
        for (const char c : s) {
            plain = plain && c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
        }
        if (plain) {
            out_->append(s);
            out_->push_back('"');
            return;
        }
        for (const char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                out_->push_back('\\');
                out_->push_back(c);
            } else if (u < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", u);
                out_->append(b);
            } else {
                out_->push_back(c);
            }
        }
        out_->push_back('"');
    }
    void append_int(int64_t v) {
        char b[24];
        out_->append(b, std::to_chars(b, b + sizeof b, v).ptr);
    }

    // Runs of equal values and arithmetic progressions of 3 or more entries
    // become run objects; everything else is a plain number.
    void append_values(const Values &v) {
        out_->push_back('[');
        size_t i = 0;
        bool first = true;
        while (i < v.size()) {
            size_t j = i + 1;
            int64_t step = 0;
            if (j < v.size()) {
                step =
                    static_cast<int64_t>(static_cast<uint64_t>(v[j]) - static_cast<uint64_t>(v[i]));
                while (j < v.size() &&
                       static_cast<int64_t>(static_cast<uint64_t>(v[j]) -
                                            static_cast<uint64_t>(v[j - 1])) == step) {
                    ++j;
                }
            }
            if (!first) {
                out_->push_back(',');
            }
            first = false;
            const size_t n = j - i;
            if (n >= 3 || (n == 2 && step == 0)) {
                out_->append("{\"v\":");
                append_int(v[i]);
                if (step != 0) {
                    out_->append(",\"d\":");
                    append_int(step);
                }
                out_->append(",\"n\":");
                append_int(static_cast<int64_t>(n));
                out_->push_back('}');
                i = j;
            } else {
                append_int(v[i]);
                ++i;
            }
        }
        out_->push_back(']');
    }

  private:
    std::string *out_;
    bool first_ = true;
};

void datatype(Line &l, const char *k, const Datatype &d) {
    if (!d.generic) {
        l.name(k, dt_name(d.predefined), static_cast<int64_t>(d.predefined));
        return;
    }
    l.key(k);
    std::string &o = l.raw();
    o.append("{\"generic\":{\"size\":");
    l.append_int(static_cast<int64_t>(d.size));
    o.append(d.contig ? ",\"contig\":true" : ",\"contig\":false");
    o.append(d.reduce ? ",\"reduce\":true}}" : ",\"reduce\":false}}");
}

void buffer(Line &l, const char *k, const Buffer &b) {
    if (!b.used) {
        return;
    }
    l.key(k);
    Line in(&l.raw());
    if (b.v) {
        in.values("counts", b.counts);
        if (b.has_displs) {
            in.values("displs", b.displs);
        }
    } else {
        in.unum("count", b.count);
    }
    datatype(in, "dt", b.dt);
    in.name("mem", mem_name(b.mem), b.mem);
    in.close();
}

void flags(Line &l, uint64_t f) {
    l.key("flags");
    std::string &o = l.raw();
    o.push_back('[');
    bool first = true;
    for (unsigned bit = 0; bit < 64; ++bit) {
        if ((f >> bit & 1) == 0) {
            continue;
        }
        if (!first) {
            o.push_back(',');
        }
        first = false;
        const char *n = flag_name(bit);
        l.quote(n != nullptr ? n : "bit" + std::to_string(bit));
    }
    o.push_back(']');
}

const char *status(ucc_status_t st) {
    const char *n = status_name(st);
    return n != nullptr ? n : "UCC_ERR_NO_MESSAGE";
}

struct Emitter {
    std::string *out;

    void operator()(const TeamCreateRec &r) {
        Line l(out);
        l.str("ev", "team_create").num("t", r.t).idle(r.idle).num("team", r.team);
        l.str("status", status(r.status)).str("how", r.how);
        if (r.how == "split") {
            l.num("parent", r.parent).boolean("included", r.included);
        }
        l.unum("ep", r.ep).name("ordering", ordering_name(r.ordering), r.ordering);
        l.str("sync", r.sync ? "sync" : "none");
        if (r.has_id) {
            l.unum("id", r.id);
        }
        l.end();
    }
    void operator()(const TeamRec &r) {
        Line l(out);
        l.str("ev", "team")
            .num("t", r.t)
            .idle(r.idle)
            .num("team", r.team)
            .str("status", status(r.status));
        l.num("rank", r.rank).num("size", r.size);
        if (r.has_members) {
            l.values("members", r.members);
        }
        l.end();
    }
    void operator()(const InitRec &r) {
        Line l(out);
        l.str("ev", "init").num("t", r.t).idle(r.idle);
        if (r.req != 0) {
            l.unum("req", r.req);
        }
        if (r.team != 0) {
            l.num("team", r.team);
        }
        l.str("status", status(r.status));
        if (r.has_coll) {
            l.name("coll", coll_name(r.coll), r.coll);
        }
        if (!r.alg.empty()) {
            l.str("alg", r.alg);
        }
        if (r.has_flags) {
            flags(l, r.flags);
        }
        buffer(l, "src", r.src);
        buffer(l, "dst", r.dst);
        if (r.has_op) {
            l.name("op", op_name(r.op), r.op);
        }
        if (r.has_root) {
            l.unum("root", r.root);
        }
        if (r.has_tag) {
            l.unum("tag", r.tag);
        }
        if (r.has_active_set) {
            l.key("active_set");
            Line in(&l.raw());
            in.unum("start", r.as_start).num("stride", r.as_stride).unum("size", r.as_size);
            in.close();
        }
        if (r.has_flags && (r.flags & UCC_COLL_ARGS_FLAG_TIMEOUT) != 0) {
            l.real("timeout", r.timeout);
        }
        if (r.cb) {
            l.boolean("cb", true);
        }
        l.end();
    }
    void operator()(const PostRec &r) {
        Line l(out);
        l.str("ev", "post")
            .num("t", r.t)
            .idle(r.idle)
            .unum("req", r.req)
            .str("status", status(r.status));
        l.unum("key", r.key).end();
    }
    void operator()(const DoneRec &r) {
        Line l(out);
        l.str("ev", "done")
            .num("t", r.t)
            .idle(r.idle)
            .unum("req", r.req)
            .str("status", status(r.status))
            .end();
    }
    void operator()(const FinRec &r) {
        Line l(out);
        l.str("ev", "fin").num("t", r.t).idle(r.idle).unum("req", r.req).end();
    }
    void operator()(const TeamDestroyRec &r) {
        Line l(out);
        l.str("ev", "team_destroy").num("t", r.t).idle(r.idle).num("team", r.team).end();
    }
    void operator()(const EndRec &r) {
        Line l(out);
        l.str("ev", "end").num("t", r.t).idle(r.idle).end();
    }
};

}  // namespace

void emit(const Header &h, std::string *out) {
    Line l(out);
    l.str("ev", "header").num("t", 0).str("format", "ucc-trace").num("version", h.version);
    l.str("library", h.library).str("revision", h.revision);
    l.unum("rank", h.rank).unum("size", h.size).str("host", h.host).num("pid", h.pid);
    l.str("transport", h.transport).str("clock", h.clock);
    l.real("clock_resolution_ns", h.clock_resolution_ns).str("thread_mode", h.thread_mode);
    l.key("context");
    {
        Line in(&l.raw());
        in.str("type", h.context_type).str("sync", h.context_sync ? "sync" : "none");
        in.boolean("oob", h.context_oob);
        in.close();
    }
    l.key("config");
    {
        Line in(&l.raw());
        for (const auto &[name, value] : h.config) {
            in.str(name.c_str(), value);
        }
        in.key("TUNE");
        l.raw().push_back('[');
        for (size_t i = 0; i < h.tune.size(); ++i) {
            if (i > 0) {
                l.raw().push_back(',');
            }
            in.quote(h.tune[i]);
        }
        l.raw().append("]}");
    }
    l.end();
}

void emit(const Record &r, std::string *out) {
    std::visit(Emitter{out}, r);
}

}  // namespace ucc::traces
