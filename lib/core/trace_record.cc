// The core's side of the trace recorder (trace_record.h).
#include "lib/core/trace_record.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <string>
#include <unordered_map>

#include "lib/core/core.h"
#include "lib/dt/dt.h"
#include "traces/recorder.h"

namespace ucc::core {

namespace {

// Variables that shape a collective (the header's `config`).
bool shapes_collectives(const std::string &name) {
    auto ends_with = [&](const char *suffix) {
        const size_t n = std::strlen(suffix);
        return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
    };
    return ends_with("_ALG") || ends_with("_LARGE_MSG") || ends_with("_RADIX") ||
           ends_with("_SEGMENT") || name == "REDUCE_CHUNK";
}

int64_t now_ns(const Context &ctx) {
    return std::llround((ctx.transport->now() - ctx.trace->t0) * 1e9);
}

// Stamps the record with the time and the program's own time since the
// previous record (that time minus the library's), and writes it.
void write(Context &ctx, traces::Record r) {
    const int64_t t = now_ns(ctx);
    int64_t lib = ctx.trace->lib_ns;
    if (ctx.trace->depth > 0) {
        lib += t - ctx.trace->enter_ns;  // the current call, so far
        ctx.trace->enter_ns = t;
    }
    const int64_t idle =
        ctx.trace->program_waits ? std::max<int64_t>(t - ctx.trace->prev_ns - lib, 0) : 0;
    ctx.trace->prev_ns = t;
    ctx.trace->lib_ns = 0;
    std::visit(
        [&](auto &x) {
            x.t = t;
            x.idle = idle;
        },
        r);
    if (!ctx.trace->recorder->write(r)) {
        UCC_LOG(ctx.log, kError,
                "trace %s: a record could not be written (disk full?); "
                "the rest of this context's calls are not recorded",
                ctx.trace->recorder->path().c_str());
    }
}

traces::Datatype datatype_of(ucc_datatype_t dt, size_t esize) {
    traces::Datatype d;
    if (dt::is_generic(dt)) {
        const dt::Generic *g = dt::generic_of(dt);
        d.generic = true;
        d.size = esize;
        d.contig = g != nullptr && (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0;
        d.reduce = g != nullptr && (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) != 0;
    } else {
        d.predefined = dt;
    }
    return d;
}

traces::Values read_array(const void *a, bool wide, uint32_t n) {
    traces::Values v(n);
    for (uint32_t i = 0; i < n; ++i) {
        v[i] = static_cast<int64_t>(coll::Args::read_array(a, wide, i));
    }
    return v;
}

traces::Buffer info(const ucc_coll_buffer_info_t &b, size_t esize) {
    traces::Buffer out;
    out.used = true;
    out.count = b.count;
    out.dt = datatype_of(b.datatype, esize);
    out.mem = b.mem_type;
    return out;
}

traces::Buffer info_v(const ucc_coll_buffer_info_v_t &b, const coll::Args &x, uint32_t n,
                      bool displs) {
    traces::Buffer out;
    out.used = true;
    out.v = true;
    out.counts = read_array(b.counts, x.counts64, n);
    out.has_displs = displs;
    if (displs) {
        out.displs = read_array(b.displacements, x.displs64, n);
    }
    out.dt = datatype_of(b.datatype, x.esize);
    out.mem = b.mem_type;
    return out;
}

}  // namespace

void trace_open(Context &ctx, const ucc_oob_coll_t *oob) {
    const std::string &dir = ctx.config.get("TRACE");
    if (dir.empty()) {
        return;
    }
    traces::Header h;
    h.library = UCC_VERSION_STRING;
    h.revision = UCC_GIT_REVISION;
    h.rank = oob != nullptr ? oob->oob_ep : 0;
    h.size = oob != nullptr ? oob->n_oob_eps : 1;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) {
        h.host = host;
    }
    h.pid = getpid();
    h.transport = ctx.transport->name();
    if (ctx.sim != nullptr) {
        h.clock = "virtual";
        h.clock_resolution_ns = 0.001;
    } else {
        h.clock = "monotonic";
        timespec res{};
        clock_getres(CLOCK_MONOTONIC, &res);
        h.clock_resolution_ns = static_cast<double>(res.tv_sec) * 1e9 + res.tv_nsec;
    }
    const char *mode = ctx.lib->thread_mode == UCC_THREAD_MULTIPLE   ? "multiple"
                       : ctx.lib->thread_mode == UCC_THREAD_FUNNELED ? "funneled"
                                                                     : "single";
    h.thread_mode = mode;
    h.context_type = ctx.type == UCC_CONTEXT_EXCLUSIVE ? "exclusive" : "shared";
    h.context_sync = ctx.sync_type == UCC_SYNC_COLLECTIVES;
    h.context_oob = oob != nullptr;
    for (const ConfigVar &v : ctx.config.table()) {
        if (shapes_collectives(v.name)) {
            h.config.emplace_back(v.name, ctx.config.get(v.name));
        }
    }
    for (const Config::Setting &s : ctx.config.settings("TUNE")) {
        h.tune.push_back(s.source + "=" + s.value);
    }
    std::string error;
    // Without an OOB nothing tells the context its rank yet: its file is
    // named when its first team over an OOB is posted (trace_team_create).
    auto trace = std::make_unique<TraceState>();
    trace->recorder = oob != nullptr ? traces::Recorder::open(dir, h, &error)
                                     : traces::Recorder::open_unnamed(dir, h);
    if (!trace->recorder) {
        UCC_LOG(ctx.log, kError, "TRACE: %s; this context is not recorded", error.c_str());
        return;
    }
    trace->program_waits = ctx.sim == nullptr || ctx.sim->can_wait();
    ctx.trace = std::move(trace);
    ctx.trace->t0 = ctx.transport->now();
    // The rest of the context's creation is the library's time (it ends in
    // ucc_context_create).
    ctx.trace->depth = 1;
    ctx.trace->enter_ns = 0;
    UCC_LOG(ctx.log, kDebug, "recording this context's calls into %s",
            ctx.trace->recorder->path().c_str());
}

void trace_close(Context &ctx) {
    if (ctx.trace) {
        if (ctx.transport) {
            write(ctx, traces::EndRec{});
        }
        ctx.trace->recorder->close();
        ctx.trace.reset();
    }
}

void Context::trace_enter() {
    if (trace->depth++ == 0) {
        trace->enter_ns = now_ns(*this);
    }
}

void Context::trace_exit() {
    if (trace->depth > 0 && --trace->depth == 0) {
        trace->lib_ns += now_ns(*this) - trace->enter_ns;
    }
}

void trace_team_create(Team &t, ucc_status_t st, const char *how, const Team *parent,
                       bool included) {
    Context &ctx = *t.ctx;
    t.trace_number = ++ctx.trace->teams;
    traces::TeamCreateRec r;
    r.t = now_ns(ctx);
    r.team = t.trace_number;
    r.status = st;
    r.how = how;
    if (parent != nullptr) {
        r.parent = parent->trace_number;
        r.included = included;
        r.ep = parent->rank;
    } else {
        r.ep = t.rank;
        if (!ctx.trace->recorder->named() && std::strcmp(how, "oob") == 0) {
            ctx.trace->world_team = t.trace_number;
            std::string error;
            if (!ctx.trace->recorder->name(t.rank, t.size, &error)) {
                UCC_LOG(ctx.log, kError, "TRACE: %s; this context is not recorded", error.c_str());
            }
        }
    }
    r.ordering = t.ordering;
    r.sync = t.sync_type == UCC_SYNC_COLLECTIVES;
    r.has_id = t.has_user_id;
    r.id = t.user_id;
    write(ctx, r);
}

void trace_team(Team &t) {
    Context &ctx = *t.ctx;
    traces::TeamRec r;
    r.t = now_ns(ctx);
    r.team = t.trace_number;
    r.status = t.create_status;
    r.rank = t.rank;
    r.size = t.size;
    TraceState &tr = *ctx.trace;
    if (!ctx.has_oob && t.trace_number == tr.world_team && t.create_status == UCC_OK) {
        tr.world = t.peers;  // its ranks are the trace's
    }
    // The members as the trace's ranks: the context's endpoints, or without
    // an OOB the ranks of the team that named the trace.
    const PeerMap &world = ctx.has_oob ? ctx.peers : tr.world;
    if ((ctx.has_oob || tr.world_team != 0) && world.size() > 0 && t.create_status == UCC_OK &&
        t.peers.size() == t.size) {
        r.has_members = true;
        r.members.resize(t.size);
        std::unordered_map<Peer, int64_t> ep_of;  // only for a map that is not arithmetic
        if (!world.is_strided()) {
            for (uint64_t e = 0; e < world.size(); ++e) {
                ep_of.emplace(world.at(e), static_cast<int64_t>(e));
            }
        }
        for (uint32_t i = 0; i < t.size; ++i) {
            const Peer p = t.peers.at(i);
            if (world.is_strided()) {
                r.members[i] = world.index_of(p);
            } else {
                const auto it = ep_of.find(p);
                r.members[i] = it != ep_of.end() ? it->second : -1;
            }
        }
    }
    write(ctx, r);
}

void trace_team_destroy(Team &t) {
    write(*t.ctx, traces::TeamDestroyRec{now_ns(*t.ctx), 0, t.trace_number});
}

void trace_init(Context &ctx, const Team *team, const ucc_coll_args_t *args, const CollRequest *r,
                ucc_status_t st) {
    traces::InitRec rec;
    rec.t = now_ns(ctx);
    rec.status = st;
    rec.team = team != nullptr ? team->trace_number : 0;
    if (args != nullptr) {
        uint64_t type = 0;
        std::memcpy(&type, &args->coll_type, sizeof(args->coll_type));  // may hold anything
        rec.has_coll = true;
        rec.coll = static_cast<ucc_coll_type_t>(type);
    }
    if (r == nullptr || args == nullptr) {
        write(ctx, rec);  // a failed init: its arguments are not read (FORMAT.md)
        return;
    }
    const coll::Args &x = r->nargs;
    const ucc_coll_type_t type = args->coll_type;
    rec.req = r->number;
    rec.alg = r->trivial ? "none" : (r->alg != nullptr ? r->alg->name : "");
    if (args->mask & UCC_COLL_ARGS_FIELD_FLAGS) {
        rec.has_flags = true;
        rec.flags = args->flags;
    }
    const bool is_root = is_rooted(type) && x.root == r->view_rank;
    const BufferUse u = buffers_used(type, x.inplace, is_root);
    if (u.src) {
        rec.src = info(args->src.info, x.esize);
    } else if (u.src_v) {
        rec.src = info_v(args->src.info_v, x, r->view_size, true);
    }
    if (u.dst) {
        rec.dst = info(args->dst.info, x.esize);
    } else if (u.dst_v || u.dst_v_nodispl) {
        rec.dst = info_v(args->dst.info_v, x, r->view_size, u.dst_v);
    }
    if (is_reduction(type)) {
        rec.has_op = true;
        rec.op = args->op;
    }
    if (is_rooted(type)) {
        rec.has_root = true;
        rec.root = args->root;
    }
    if (args->mask & UCC_COLL_ARGS_FIELD_TAG) {
        rec.has_tag = true;
        rec.tag = args->tag;
    }
    if (args->mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) {
        rec.has_active_set = true;
        rec.as_start = args->active_set.start;
        rec.as_stride = args->active_set.stride;
        rec.as_size = args->active_set.size;
    }
    rec.timeout = r->timeout;
    rec.cb = r->has_cb;
    write(ctx, rec);
}

void trace_post(const CollRequest &r, uint32_t key, ucc_status_t st) {
    Context &ctx = *r.team->ctx;
    write(ctx, traces::PostRec{now_ns(ctx), 0, r.number, st, key});
}

void trace_done(const CollRequest &r, ucc_status_t st) {
    Context &ctx = *r.team->ctx;
    write(ctx, traces::DoneRec{now_ns(ctx), 0, r.number, st});
}

void trace_fin(const CollRequest &r) {
    Context &ctx = *r.team->ctx;
    write(ctx, traces::FinRec{now_ns(ctx), 0, r.number});
}

}  // namespace ucc::core
