// The core's side of selection: a context's tuning from its configuration,
// and the choice for a team's collective or a level of one, on the network
// as the team sees it.
#include <strings.h>

#include <algorithm>
#include <string>

#include "lib/coll/topology.h"
#include "lib/core/core.h"
#include "lib/core/transport_select.h"
#include "lib/net/network_arg.h"
#include "lib/net/network_model.h"
#include "lib/select/select.h"

namespace ucc::core {

void load_tuning(const Config &config, const Logger &log, Tuning *out) {
    load_radixes(config, log, &out->radixes);
    out->by_cost = config.get("SELECT") == "cost";
    out->thresholds.allreduce_large_msg =
        static_cast<uint64_t>(config.get_int("ALLREDUCE_LARGE_MSG"));
    out->thresholds.allgather_large_msg =
        static_cast<uint64_t>(config.get_int("ALLGATHER_LARGE_MSG"));
    auto segment = [&](const char *name) {
        return strcasecmp(config.get(name).c_str(), "auto") == 0
                   ? coll::kSegmentAuto
                   : static_cast<uint64_t>(config.get_int(name));
    };
    out->reduce_chunk = segment("REDUCE_CHUNK");
    out->bcast_segment = segment("BCAST_SEGMENT");
    out->reduce_segment = segment("REDUCE_SEGMENT");
    out->device_pipeline = static_cast<uint32_t>(
        std::min<int64_t>(config.get_int("DEVICE_PIPELINE"), int64_t{1} << 30));
    out->device_ipc = config.get_bool("DEVICE_IPC");
    out->node_size = static_cast<uint32_t>(config.get_int("NODE_SIZE"));
    // The reference's value types: inf the largest, auto the default.
    auto number = [&](const char *name, uint64_t inf, uint64_t dflt) -> uint64_t {
        const std::string &v = config.get(name);
        if (strcasecmp(v.c_str(), "inf") == 0) {
            return inf;
        }
        return strcasecmp(v.c_str(), "auto") == 0 ? dflt
                                                  : static_cast<uint64_t>(config.get_int(name));
    };
    const coll::HybridSettings d;
    coll::HybridSettings h;
    h.buff_bytes = number("ALLTOALLV_HYBRID_BUFF_SIZE", UINT64_MAX, d.buff_bytes);
    h.scratch_sends = static_cast<uint32_t>(
        number("ALLTOALLV_HYBRID_NUM_SCRATCH_SENDS", UINT32_MAX, d.scratch_sends));
    h.scratch_recvs = static_cast<uint32_t>(
        number("ALLTOALLV_HYBRID_NUM_SCRATCH_RECVS", UINT32_MAX, d.scratch_recvs));
    h.posts =
        static_cast<uint32_t>(number("ALLTOALLV_HYBRID_PAIRWISE_NUM_POSTS", UINT32_MAX, d.posts));
    h.chunk_bytes = number("ALLTOALLV_HYBRID_CHUNK_BYTE_LIMIT", UINT64_MAX, d.chunk_bytes);
    out->hybrid_set.reset();
    if (!(h == d)) {
        out->hybrid_set = std::make_unique<const coll::HybridSettings>(h);
    }
    auto pipeline = [&](const char *name, coll::PipelineSetting *p) {
        std::string error;
        if (!select::parse_pipeline(config.get(name), p, &error)) {
            // The configuration's check refuses these; never reached.
            UCC_LOG(log, kError, "%s: %s; not pipelined", name, error.c_str());
            *p = coll::PipelineSetting();
        }
    };
    coll::Pipelines pipes;
    pipeline("ALLREDUCE_RAB_PIPELINE", &pipes.rab);
    pipeline("ALLREDUCE_SPLIT_RAIL_PIPELINE", &pipes.split_rail);
    pipeline("BCAST_2STEP_PIPELINE", &pipes.bcast_2step);
    pipeline("REDUCE_2STEP_PIPELINE", &pipes.reduce_2step);
    out->pipelines_set.reset();
    if (!(pipes == coll::Pipelines())) {
        out->pipelines_set = std::make_unique<const coll::Pipelines>(pipes);
    }
    out->net_reduce_levels = 0;
    if (list_allows(config.get("NODE_LEADERS_SBGP_TLS"), "sharp")) {
        out->net_reduce_levels |= coll::Args::kNetReduceLeaders;
    }
    if (list_allows(config.get("NET_SBGP_TLS"), "sharp")) {
        out->net_reduce_levels |= coll::Args::kNetReduceRails;
    }
    out->forced_algs.clear();
    for (uint32_t bit = 0; bit < 16; ++bit) {
        const std::string &v = config.get(select::alg_var(static_cast<ucc_coll_type_t>(1u << bit)));
        if (!v.empty() && v != "auto") {
            out->forced_algs.emplace_back(bit, &v);
        }
    }
    out->rules.clear();
    for (const Config::Setting &s : config.settings("TUNE")) {
        std::string error;
        if (select::parse_tune(s.source, s.value, &out->rules, &error) != UCC_OK) {
            UCC_LOG(log, kError, "%s; the string is ignored", error.c_str());
        }
    }
}

void load_radixes(const Config &config, const Logger &log, coll::Radixes *out) {
    coll::RadixSetting fallback;  // auto: kRadixAuto (0)
    std::string bad;
    if (!select::parse_radix(config.get("KNOMIAL_RADIX"), false, &fallback, &bad)) {
        // The configuration's check refuses these; never reached.
        UCC_LOG(log, kError, "KNOMIAL_RADIX: %s; auto instead", bad.c_str());
    }
    out->fallback = fallback.value;
    out->set.clear();
    const int64_t kn = config.get_int("KN_RADIX");
    const std::span<const coll::RadixVar> vars = coll::radix_vars();
    for (uint32_t i = 0; i < vars.size(); ++i) {
        coll::RadixSetting s;
        std::string error;
        if (vars[i].kn && kn > 0) {
            s.value = static_cast<uint32_t>(kn);
        } else if (!select::parse_radix(config.get(vars[i].var), vars[i].ranged, &s, &error)) {
            // The configuration's check refuses these; never reached.
            UCC_LOG(log, kError, "%s: %s; auto instead", vars[i].var, error.c_str());
            continue;
        }
        if (s.value != 0 || !s.ranges.empty()) {
            out->set.push_back({i, std::move(s)});
        }
    }
}

namespace {

ucc_status_t find_network(Context &ctx) {
    ctx.net = nullptr;
    if (!ctx.tuning.by_cost) {
        return UCC_OK;
    }
    ctx.net = ctx.transport->cost_params();
    const std::string &named = ctx.config.get("NETWORK");
    if (named.empty()) {
        return UCC_OK;
    }
    if (ctx.net != nullptr) {
        // The simulator runs its own network: the one its ranks are on.
        UCC_LOG(ctx.log, kDebug, "UCC_NETWORK=%s: the %s transport's own network instead",
                named.c_str(), ctx.transport->name());
        return UCC_OK;
    }
    net::NetworkArg arg;
    std::string error;
    net::NetworkModel model;
    if (!net::resolve_network(named, &arg, &error, &model)) {
        UCC_LOG(ctx.log, kError, "ucc_context_create: UCC_NETWORK=%s: %s", named.c_str(),
                error.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    ctx.own_net = std::make_unique<cost::Params>(net::cost_params(model));
    ctx.net = ctx.own_net.get();
    UCC_LOG(ctx.log, kDebug, "selection by cost on UCC_NETWORK=%s (%s)", named.c_str(),
            arg.spec.c_str());
    return UCC_OK;
}

}  // namespace

ucc_status_t context_network(Context &ctx) {
    ctx.memo = nullptr;
    if (const ucc_status_t st = find_network(ctx); st != UCC_OK || ctx.net == nullptr) {
        return st;
    }
    select::MemoBook *book = ctx.sim != nullptr ? ctx.sim->memo_book() : nullptr;
    if (book == nullptr) {
        ctx.own_memos = std::make_unique<select::MemoBook>();
        book = ctx.own_memos.get();
    }
    const select::MemoSettings settings{*ctx.net, ctx.tuning.radixes, ctx.tuning.pipelines(),
                                        ctx.tuning.hybrid()};
    ctx.memo = book->memo_for(settings);
    return UCC_OK;
}

namespace {

// The context's network as `size` members of `t` see it: the ranks per node
// of the team's layout (its largest node) where it is known without a table
// (the simulator's regular worlds), built already (the hierarchical
// algorithms') or on real hosts (from their keys), else the world's; a
// level's link alone (Args::span).
cost::Params team_cost_params(const Context &ctx, Team &t, const coll::Args &a, uint32_t size) {
    cost::Params p = *ctx.net;
    if (a.span == coll::Args::Span::kNode) {
        p.ppn = 0;
        return p;
    }
    if (a.span == coll::Args::Span::kNet) {
        p.ppn = 1;
        return p;
    }
    uint64_t first = 0;
    uint32_t world_ppn = 0;
    uint32_t nodes = 0;
    uint32_t largest = 0;
    const coll::Topology *topo = t.topo.get();
    if (topo == nullptr && ctx.sim == nullptr) {
        topo = team_topology(t);  // real hosts: from the host keys, built once per team
    }
    if (topo != nullptr) {
        nodes = topo->nodes();
        largest = topo->max_node_size();
    } else if (t.peers.is_strided() && t.peers.stride() == 1 && t.size > 0 &&
               ctx.transport->regular_nodes(t.peers.at(0), t.size, &first, &world_ppn)) {
        // Arithmetic, kept nowhere: a million simulated ranks keep nothing.
        const coll::Topology topo = coll::Topology::regular(t.size, first, world_ppn);
        nodes = topo.nodes();
        largest = topo.max_node_size();
    }
    if (nodes != 0) {
        // The formulas put rank r on node r / ppn: the largest node's size
        // (64 ranks on nodes of 40 are 40 + 24, not 32 + 32).
        p.ppn = nodes == 1 ? 0 : std::min(largest, std::max(size, 1u));
    }
    return p;
}

}  // namespace

const coll::Algorithm *select_algorithm(const Context &ctx, Team &t, const coll::Args &a,
                                        uint32_t size, std::string *why) {
    select::Query q{a.type, a.count, a.esize, size, a.src_mem, a.topo, a.net_reduce};
    cost::Params net;
    if (ctx.net != nullptr) {
        net = team_cost_params(ctx, t, a, size);
        q.net = &net;
        q.memo = ctx.memo;
    }
    select::Choice c = select::choose(q, ctx.tuning.thresholds, ctx.tuning.forced(a.type),
                                      ctx.tuning.rules, &a, false);
    if (c.alg == nullptr) {
        *why = c.error;
    }
    return c.alg;
}

uint64_t segment_for(const Context &ctx, Team &t, const coll::Algorithm &alg, const coll::Args &a,
                     uint32_t size) {
    if (a.segment_bytes != coll::kSegmentAuto || alg.hierarchical) {
        return a.segment_bytes;
    }
    if (ctx.net == nullptr || !cost::reads_segment(alg)) {
        return coll::kDefaultSegment;
    }
    const cost::Params net = team_cost_params(ctx, t, a, size);
    select::Query q{a.type, a.count, a.esize, size, a.src_mem, a.topo, a.net_reduce};
    q.net = &net;
    coll::Args same = a;  // as every member passes it (cost::segment_for)
    same.inplace = false;
    const select::MemoKey key = select::memo_key(q, same);
    uint64_t s = 0;
    if (ctx.memo == nullptr || !ctx.memo->find_segment(key, &s)) {
        s = cost::segment_for(alg, a, size, net);
        if (ctx.memo != nullptr) {
            ctx.memo->remember_segment(key, s);
        }
    }
    return s;
}

uint64_t Team::segment_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t size) {
    return core::segment_for(*ctx, *this, alg, a, size);
}

uint32_t radix_for(const Context &ctx, Team &t, const coll::Algorithm &alg, const coll::Args &a,
                   uint32_t size) {
    const uint32_t set = coll::radix_for(alg, a, size);
    if (set != coll::kRadixAuto || alg.hierarchical) {
        return set;  // a hierarchical algorithm's levels choose their own
    }
    if (ctx.net == nullptr || !coll::reads_radix(alg)) {
        return coll::kDefaultRadix;
    }
    const cost::Params net = team_cost_params(ctx, t, a, size);
    select::Query q{a.type, a.count, a.esize, size, a.src_mem, a.topo, a.net_reduce};
    q.net = &net;
    coll::Args same = a;  // as every member passes it (a root alone may be in place)
    same.inplace = false;
    const select::MemoKey key = select::memo_key(q, same);
    uint32_t k = 0;
    if (ctx.memo == nullptr || !ctx.memo->find_radix(key, alg, &k)) {
        k = cost::radix_for(alg, same, size, net);
        if (ctx.memo != nullptr) {
            ctx.memo->remember_radix(key, alg, k);
        }
    }
    return k;
}

uint32_t Team::radix_for(const coll::Algorithm &alg, const coll::Args &a, uint32_t size) {
    const uint32_t k = core::radix_for(*ctx, *this, alg, a, size);
    return k == coll::kRadixAuto ? coll::kDefaultRadix : k;
}

// A level of a hierarchical collective: the context's choice (TUNE rules
// included, <COLL>_ALG not: it names the top level's algorithm), flat and
// two-sided; else the first such algorithm that can run them.
const coll::Algorithm *Team::select_flat(const coll::Args &a, uint32_t size) {
    select::Query q{a.type, a.count, a.esize, size, a.src_mem, nullptr, a.net_reduce};
    cost::Params net;
    if (ctx->net != nullptr) {
        net = team_cost_params(*ctx, *this, a, size);
        q.net = &net;
        q.memo = ctx->memo;
    }
    select::Choice c =
        select::choose(q, ctx->tuning.thresholds, nullptr, ctx->tuning.rules, &a, false);
    if (c.alg != nullptr && !c.alg->hierarchical && !c.alg->onesided) {
        return c.alg;
    }
    return CollEnv::select_flat(a, size);
}

}  // namespace ucc::core
