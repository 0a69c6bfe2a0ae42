// C API: team creation (non-blocking, progressed by ucc_team_create_test alone),
// destruction and attributes.
//
// How a team learns its members and its id: lib/core/team_exchange.h; the
// split (ucc_team_create_from_parent): team_split.cc.
#include <algorithm>
#include <cstring>

#include "lib/core/context_peers.h"
#include "lib/core/core.h"
#include "lib/core/ee.h"
#include "lib/core/team_exchange.h"
#include "lib/core/trace_record.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::Context;
using ucc::core::log_error;
using ucc::core::Team;
using ucc::core::TeamState;

namespace {

using ucc::core::IdAgreement;
using ucc::core::OobExchange;

// Resolves team eps to context eps per the ep map.
ucc_status_t map_ep(const ucc_ep_map_t &m, uint64_t i, uint64_t *ctx_ep) {
    switch (m.type) {
        case UCC_EP_MAP_FULL:
            *ctx_ep = i;
            return UCC_OK;
        case UCC_EP_MAP_STRIDED:
            *ctx_ep = static_cast<uint64_t>(static_cast<int64_t>(m.strided.start) +
                                            static_cast<int64_t>(i) * m.strided.stride);
            return UCC_OK;
        case UCC_EP_MAP_ARRAY:
            if (m.array.elem_size == 4) {
                *ctx_ep = static_cast<const uint32_t *>(m.array.map)[i];
            } else if (m.array.elem_size == 8) {
                *ctx_ep = static_cast<const uint64_t *>(m.array.map)[i];
            } else if (m.array.elem_size == 2) {
                *ctx_ep = static_cast<const uint16_t *>(m.array.map)[i];
            } else if (m.array.elem_size == 1) {
                *ctx_ep = static_cast<const uint8_t *>(m.array.map)[i];
            } else {
                return UCC_ERR_INVALID_PARAM;
            }
            return UCC_OK;
        case UCC_EP_MAP_CB:
            *ctx_ep = m.cb.cb(i, m.cb.cb_ctx);
            return UCC_OK;
    }
    return UCC_ERR_INVALID_PARAM;
}

}  // namespace

namespace ucc::core {
// Owned by the team while it is being created.
struct TeamCreation {
    std::unique_ptr<OobExchange> oob;
    std::unique_ptr<IdAgreement> agreement;
    // A team posted while its context learns its peers (context_peers.h).
    struct Deferred {
        ucc_team_params_t params{};
        bool has_map = false;
        std::vector<uint64_t> eps;  // an ARRAY or CB ep map, resolved at the post
    };
    std::unique_ptr<Deferred> deferred;
};
}  // namespace ucc::core

namespace {

// Keeps the creation machinery alive exactly as long as the team.
class CreationPoller final : public ucc::core::Poller {
  public:
    bool poll() override { return false; }
    ucc::core::TeamCreation state;
};

ucc_status_t create_via_ep_map(Team *t, const ucc_team_params_t *params, bool has_map) {
    Context &ctx = *t->ctx;
    ucc_ep_map_t full{};
    full.type = UCC_EP_MAP_FULL;
    full.ep_num = ctx.peers.size();
    const ucc_ep_map_t &m = has_map ? params->ep_map : full;
    // Team rank -> context ep -> transport peer, kept arithmetic where possible.
    if (m.type == UCC_EP_MAP_FULL && ctx.peers.is_strided()) {
        if (t->size != ctx.peers.size()) {
            log_error("ucc_team_create_post: a FULL ep map needs ep_num == the context's %llu eps",
                      static_cast<unsigned long long>(ctx.peers.size()));
            return UCC_ERR_INVALID_PARAM;
        }
        t->peers = ctx.peers;
    } else if (m.type == UCC_EP_MAP_STRIDED && ctx.peers.is_strided()) {
        // Strided over strided stays arithmetic: O(1) per member.
        const int64_t first = static_cast<int64_t>(m.strided.start);
        const int64_t last = first + static_cast<int64_t>(t->size - 1) * m.strided.stride;
        const auto n_ctx = static_cast<int64_t>(ctx.peers.size());
        if (first < 0 || first >= n_ctx || last < 0 || last >= n_ctx ||
            (m.strided.stride == 0 && t->size > 1)) {
            log_error(
                "ucc_team_create_post: strided ep_map {start %llu, stride %lld, %u eps} "
                "leaves the context's %lld eps or repeats one",
                static_cast<unsigned long long>(m.strided.start),
                static_cast<long long>(m.strided.stride), t->size, static_cast<long long>(n_ctx));
            return UCC_ERR_INVALID_PARAM;
        }
        const int64_t ctx_stride = static_cast<int64_t>(ctx.peers.at(1 % ctx.peers.size())) -
                                   static_cast<int64_t>(ctx.peers.at(0));
        t->peers = ucc::core::PeerMap::strided(t->size, ctx.peers.at(first),
                                               ctx_stride * m.strided.stride);
    } else {
        std::vector<ucc::Peer> table(t->size);
        for (uint64_t i = 0; i < t->size; ++i) {
            uint64_t e = 0;
            if (map_ep(m, i, &e) != UCC_OK || e >= ctx.peers.size()) {
                log_error("ucc_team_create_post: ep_map entry %llu is not a context ep (< %llu)",
                          static_cast<unsigned long long>(i),
                          static_cast<unsigned long long>(ctx.peers.size()));
                return UCC_ERR_INVALID_PARAM;
            }
            table[i] = ctx.peers.at(e);
        }
        // Each team ep names one participant: no context ep twice.
        std::vector<ucc::Peer> sorted = table;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
            log_error("ucc_team_create_post: ep_map names a context ep twice");
            return UCC_ERR_INVALID_PARAM;
        }
        t->peers = ucc::core::PeerMap::from_table(std::move(table));
    }
    int64_t pos = t->peers.index_of(ctx.transport->self());
    if (pos < 0) {
        log_error("ucc_team_create_post: this context (ep %u) is not in the team's ep map",
                  ctx.oob.oob_ep);
        return UCC_ERR_INVALID_PARAM;
    }
    if ((params->mask & UCC_TEAM_PARAM_FIELD_EP) && params->ep != static_cast<uint64_t>(pos)) {
        log_error("ucc_team_create_post: params->ep %llu but this context is team ep %lld",
                  static_cast<unsigned long long>(params->ep), static_cast<long long>(pos));
        return UCC_ERR_INVALID_PARAM;
    }
    t->rank = static_cast<uint32_t>(pos);
    return UCC_OK;
}

// Resolves the ep map and starts agreeing on the team id (or takes the
// user's): the creation of a team without an OOB of its own.
ucc_status_t start_via_ep_map(Team *t, const ucc_team_params_t &p, bool has_map,
                              ucc::core::TeamCreation &creation) {
    Context &ctx = *t->ctx;
    UCC_TRY(create_via_ep_map(t, &p, has_map));
    if (t->has_user_id && t->user_id <= ucc::core::kUserIdMax) {
        t->id = static_cast<uint16_t>(t->user_id);
        t->state = TeamState::kActive;
        t->create_status = UCC_OK;
        return UCC_OK;
    }
    // Creation traffic uses a reserved team id and a key that every member
    // derives from the same parameters.
    uint32_t key = 2166136261u;
    uint64_t words[3] = {t->size, static_cast<uint64_t>(has_map ? p.ep_map.type : 0),
                         t->peers.at(0)};
    key = ucc::core::hash32(words, sizeof(words), key);
    auto ag = std::make_unique<IdAgreement>();
    ag->t = t;
    ag->value = ctx.next_team_id;
    ucc::coll::Args &a = ag->args;
    a.type = UCC_COLL_TYPE_ALLREDUCE;
    ag->coll = std::make_unique<ucc::coll::Coll>(*t, a, t->rank, t->size,
                                                 ucc::tag::make(ucc::tag::kCreationTeamId, key));
    ctx.team_create_in_progress = true;
    t->create_task = ucc::core::agree_max(*ag->coll, &ag->value);
    IdAgreement *raw = ag.get();
    creation.agreement = std::move(ag);
    t->create_task.start(raw);
    return UCC_OK;
}

// Keeps a team's parameters until its context has its peers: the ep map
// resolved to context eps now (the caller's array need not outlive the post).
ucc_status_t defer(ucc::core::TeamCreation &creation, const ucc_team_params_t &p, bool has_map) {
    auto d = std::make_unique<ucc::core::TeamCreation::Deferred>();
    d->params = p;
    d->has_map = has_map;
    const ucc_ep_map_t &m = p.ep_map;
    if (has_map && (m.type == UCC_EP_MAP_ARRAY || m.type == UCC_EP_MAP_CB)) {
        d->eps.resize(m.ep_num);
        for (uint64_t i = 0; i < m.ep_num; ++i) {
            if (map_ep(m, i, &d->eps[i]) != UCC_OK) {
                log_error("ucc_team_create_post: ep_map.array.elem_size %zu is not 1, 2, 4 or 8",
                          static_cast<size_t>(m.array.elem_size));
                return UCC_ERR_INVALID_PARAM;
            }
        }
        d->params.ep_map.type = UCC_EP_MAP_ARRAY;
        d->params.ep_map.array.map = d->eps.data();
        d->params.ep_map.array.elem_size = sizeof(uint64_t);
    }
    creation.deferred = std::move(d);
    return UCC_OK;
}

}  // namespace

namespace ucc::core {

void start_deferred_team(Context &ctx) {
    ucc_team *h = ctx.deferred_team;
    if (h == nullptr) {
        return;
    }
    ctx.deferred_team = nullptr;
    Team &t = h->team;
    // Set by ucc_team_create_post with a CreationPoller only.
    TeamCreation &creation = static_cast<CreationPoller *>(t.create_poller.get())->state;
    const std::unique_ptr<TeamCreation::Deferred> d = std::move(creation.deferred);
    ucc_status_t st = ctx.join_status;
    if (st == UCC_OK) {
        try {
            st = start_via_ep_map(&t, d->params, d->has_map, creation);
        } catch (...) {
            st = status_of_current_exception();
        }
    }
    if (st != UCC_OK || t.state == TeamState::kActive) {
        finish_creation(&t, st);  // failed, or a user id: nothing to agree on
    }
}

void retire_team(ucc_team *team) {
    Team &t = team->team;
    Context *ctx = t.ctx;
    const uint16_t id = t.id;
    const uint64_t team_hash = t.trace_hash;
    const bool created = t.creation_recorded && t.create_status == UCC_OK;
    std::erase(ctx->live_teams, team);
    // Its execution engines outlive it (the reference lets a team go first):
    // ucc_ee_destroy still frees them.
    for (Ee *e = ctx->ees, *next = nullptr; e != nullptr; e = next) {
        next = e->next;
        if (e->team == &t) {
            e->unlink();
            e->orphan();
        }
    }
    // Keep a tombstone: later calls on this handle fail cleanly (P36).
    t.state = TeamState::kDestroyed;
    t.peers = PeerMap();
    ucc::free_storage(t.eps_cache);
    ucc::free_storage(t.mem_segments);
    t.topo.reset();  // no request of the team is left to read it
    t.create_task.reset();
    t.create_poller.reset();
    ctx->rare().dead_teams.emplace_back(team);
    if (created && ctx->trace && t.trace_number != 0) [[unlikely]] {
        trace_team_destroy(t);
    }
    if (created) {
        ucc::TraceEvent e;
        e.kind = ucc::TraceKind::kTeamDestroyed;
        e.team = id;
        e.team_hash = team_hash;
        e.resources = ctx->resources(id);
        ctx->record(e);
    }
}

}  // namespace ucc::core

UCC_EXPORT ucc_status_t ucc_team_create_post(ucc_context_h *contexts, uint32_t num_contexts,
                                             const ucc_team_params_t *team_params,
                                             ucc_team_h *new_team) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (contexts == nullptr || team_params == nullptr || new_team == nullptr) {
            log_error("ucc_team_create_post: %s is NULL",
                      contexts == nullptr ? "contexts"
                                          : (team_params == nullptr ? "team_params" : "new_team"));
            return UCC_ERR_INVALID_PARAM;
        }
        if (num_contexts < 1) {
            log_error("ucc_team_create_post: num_contexts is 0");
            return UCC_ERR_INVALID_PARAM;
        }
        if (num_contexts > 1) {
            log_error("ucc_team_create_post: num_contexts %u > 1 is not supported", num_contexts);
            return UCC_ERR_NOT_SUPPORTED;
        }
        if (contexts[0] == nullptr) {
            log_error("ucc_team_create_post: contexts[0] is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::context_destroyed(contexts[0], "ucc_team_create_post")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Context &ctx = contexts[0]->ctx;
        ucc::core::ContextGuard guard(ctx);
        const ucc_team_params_t &p = *team_params;
        if (ctx.team_create_in_progress) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_post: another team creation on this context is still in "
                    "progress");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ctx.join_status != UCC_OK && ctx.join_status != UCC_INPROGRESS) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_post: the context's OOB peer exchange failed (%s)",
                    ucc_status_string(ctx.join_status));
            return ctx.join_status;
        }
        bool has_oob = (p.mask & UCC_TEAM_PARAM_FIELD_OOB) != 0;
        bool has_map = (p.mask & UCC_TEAM_PARAM_FIELD_EP_MAP) != 0;
        bool has_size = (p.mask & UCC_TEAM_PARAM_FIELD_TEAM_SIZE) != 0;
        bool has_ep = (p.mask & UCC_TEAM_PARAM_FIELD_EP) != 0;
        // Team size from every source that gives one; they must agree.
        uint64_t size = 0;
        auto agree = [&](uint64_t v, const char *what) -> bool {
            if (size != 0 && v != size) {
                log_error("ucc_team_create_post: %s %llu disagrees with team size %llu", what,
                          static_cast<unsigned long long>(v),
                          static_cast<unsigned long long>(size));
                return false;
            }
            size = v;
            return true;
        };
        if (has_size && !agree(p.team_size, "team_size")) {
            return UCC_ERR_INVALID_PARAM;
        }
        if (has_oob) {
            if (p.oob.allgather == nullptr || p.oob.req_test == nullptr ||
                p.oob.req_free == nullptr) {
                log_error("ucc_team_create_post: team_params->oob has a NULL callback");
                return UCC_ERR_INVALID_PARAM;
            }
            if (!agree(p.oob.n_oob_eps, "oob.n_oob_eps")) {
                return UCC_ERR_INVALID_PARAM;
            }
        }
        if (has_map) {
            if ((p.ep_map.type == UCC_EP_MAP_CB && p.ep_map.cb.cb == nullptr) ||
                (p.ep_map.type == UCC_EP_MAP_ARRAY && p.ep_map.array.map == nullptr)) {
                log_error("ucc_team_create_post: ep_map has a NULL %s",
                          p.ep_map.type == UCC_EP_MAP_CB ? "cb.cb" : "array.map");
                return UCC_ERR_INVALID_PARAM;
            }
            if (p.ep_map.type < UCC_EP_MAP_FULL || p.ep_map.type > UCC_EP_MAP_CB) {
                log_error("ucc_team_create_post: invalid ep_map.type %d",
                          static_cast<int>(p.ep_map.type));
                return UCC_ERR_INVALID_PARAM;
            }
            // With a team OOB the members are found through it (as the
            // reference: the map resolves through the context's addresses).
            if (!ctx.has_oob && !has_oob) {
                log_error(
                    "ucc_team_create_post: an ep_map needs a context created with an OOB, or a "
                    "team OOB");
                return UCC_ERR_INVALID_PARAM;
            }
            if (!agree(p.ep_map.ep_num, "ep_map.ep_num")) {
                return UCC_ERR_INVALID_PARAM;
            }
        }
        if (!has_oob && !has_map && ctx.has_oob && size == 0) {
            size = ctx.oob.n_oob_eps;  // the whole context
        }
        if (size == 0 && has_ep && !has_oob) {
            size = 1;
        }
        if (size < 1) {
            log_error(
                "ucc_team_create_post: the team size is unknown (give team_size, oob or "
                "ep_map)");
            return UCC_ERR_INVALID_PARAM;
        }
        if (size > UINT32_MAX) {
            log_error("ucc_team_create_post: team size %llu is too large",
                      static_cast<unsigned long long>(size));
            return UCC_ERR_INVALID_PARAM;
        }
        if (has_oob && p.oob.oob_ep >= p.oob.n_oob_eps) {
            log_error("ucc_team_create_post: oob.oob_ep %u is not in [0, %u)", p.oob.oob_ep,
                      p.oob.n_oob_eps);
            return UCC_ERR_INVALID_PARAM;
        }
        if (has_ep && has_oob && p.ep != p.oob.oob_ep) {
            log_error("ucc_team_create_post: ep %llu differs from oob.oob_ep %u",
                      static_cast<unsigned long long>(p.ep), p.oob.oob_ep);
            return UCC_ERR_INVALID_PARAM;
        }
        if (has_ep && p.ep >= size) {
            log_error("ucc_team_create_post: ep %llu is not in [0, %llu)",
                      static_cast<unsigned long long>(p.ep), static_cast<unsigned long long>(size));
            return UCC_ERR_INVALID_PARAM;
        }
        if ((p.mask & UCC_TEAM_PARAM_FIELD_ORDERING) &&
            (p.ordering < UCC_COLLECTIVE_POST_ORDERED ||
             p.ordering > UCC_COLLECTIVE_INIT_AND_POST_UNORDERED)) {
            log_error("ucc_team_create_post: invalid ordering %d", static_cast<int>(p.ordering));
            return UCC_ERR_INVALID_PARAM;
        }
        if ((p.mask & UCC_TEAM_PARAM_FIELD_SYNC_TYPE) && p.sync_type != UCC_NO_SYNC_COLLECTIVES &&
            p.sync_type != UCC_SYNC_COLLECTIVES) {
            log_error("ucc_team_create_post: invalid sync_type %d", static_cast<int>(p.sync_type));
            return UCC_ERR_INVALID_PARAM;
        }
        if (size > 1 && !has_oob && !ctx.has_oob) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_post: a team of %llu needs a team OOB or a context created "
                    "with an OOB",
                    static_cast<unsigned long long>(size));
            return UCC_ERR_NO_RESOURCE;
        }

        ucc::alloc_site(ctx.sim, ucc::AllocSite::kTeamHandle);
        std::unique_ptr<ucc_team> h(ucc::core::new_team_handle(ctx));
        Team &t = h->team;
        t.size = static_cast<uint32_t>(size);
        t.sync_type = ctx.sync_type;
        if (p.mask & UCC_TEAM_PARAM_FIELD_SYNC_TYPE) {
            t.sync_type = p.sync_type;
        }
        if (p.mask & UCC_TEAM_PARAM_FIELD_ORDERING) {
            t.ordering = p.ordering;
        }
        if (p.mask & UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS) {
            t.outstanding_colls = p.outstanding_colls;
        }
        if (p.mask & UCC_TEAM_PARAM_FIELD_EP_RANGE) {
            t.ep_range = p.ep_range;
        }
        if (p.mask & UCC_TEAM_PARAM_FIELD_MEM_PARAMS) {
            if (p.mem_params.n_segments > 0 && p.mem_params.segments == nullptr) {
                log_error("ucc_team_create_post: mem_params.segments is NULL");
                return UCC_ERR_INVALID_PARAM;
            }
            t.mem_segments.assign(p.mem_params.segments,
                                  p.mem_params.segments + p.mem_params.n_segments);
        }
        if (p.mask & UCC_TEAM_PARAM_FIELD_ID) {
            t.has_user_id = true;
            t.user_id = p.id;
        }

        auto creation = std::make_unique<CreationPoller>();
        ucc_status_t st = UCC_OK;
        if (size == 1 && !has_map) {
            t.rank = 0;
            t.peers = ucc::core::PeerMap::strided(1, ctx.transport->self(), 1);
            t.id = (t.has_user_id && t.user_id <= ucc::core::kUserIdMax)
                       ? static_cast<uint16_t>(t.user_id)
                       : ucc::core::internal_id(ctx.next_team_id++);
            t.state = TeamState::kActive;
            t.create_status = UCC_OK;
        } else if (has_oob) {
            t.rank = p.oob.oob_ep;
            creation->state.oob = std::make_unique<OobExchange>(&t, p.oob);
            ctx.team_create_in_progress = true;
            st = creation->state.oob->start();
            if (st != UCC_OK) {
                ctx.team_create_in_progress = false;
                log_error("ucc_team_create_post: the team OOB allgather failed to start: %s",
                          ucc_status_string(st));
                return st;
            }
        } else if (ctx.join_status == UCC_INPROGRESS) {
            // The context still learns its peers (a rank without a fiber):
            // the ep map resolves once it has them (start_deferred_team).
            UCC_TRY(defer(creation->state, p, has_map));
            ctx.team_create_in_progress = true;
            ctx.deferred_team = h.get();
        } else {
            UCC_TRY(start_via_ep_map(&t, p, has_map, creation->state));
        }
        t.create_poller = std::move(creation);
        ctx.live_teams.push_back(h.get());
        if (ctx.trace) [[unlikely]] {
            ucc::core::trace_team_create(t, UCC_OK, has_oob ? "oob" : "ep_map");
        }
        *new_team = h.release();
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_team_create_test(ucc_team_h team) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (team == nullptr) {
            log_error("ucc_team_create_test: team is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::team_destroyed(team, "ucc_team_create_test")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Team &t = team->team;
        ucc::core::ContextGuard guard(*t.ctx);
        if (t.state == TeamState::kCreating) {
            // Progress the context here, so looping on this call alone is enough.
            t.ctx->progress();
            if (t.state == TeamState::kCreating && t.ctx->sim != nullptr && t.ctx->sim->aborted()) {
                // The world gave up (simulated deadlock): the creation fails.
                t.create_task.reset();
                t.create_poller.reset();
                ucc::core::finish_creation(&t, UCC_ERR_NO_MESSAGE);
            }
        }
        if (t.state != TeamState::kCreating && !t.creation_recorded) {
            t.creation_recorded = true;
            if (t.ctx->trace && t.trace_number != 0) [[unlikely]] {
                ucc::core::trace_team(t);
            }
            if (t.ctx->tl_recording) {
                uint64_t h = 0xcbf29ce484222325ull;
                for (uint64_t i = 0; i < t.peers.size(); ++i) {
                    h = (h ^ t.peers.at(i)) * 0x100000001b3ull;
                }
                t.trace_hash = h;
            }
            ucc::TraceEvent e;
            e.kind = ucc::TraceKind::kTeamCreated;
            e.team = t.id;
            e.team_hash = t.trace_hash;
            e.team_rank = t.rank;
            e.team_size = t.size;
            e.status = t.create_status;
            e.offset = t.ctx->has_oob ? t.ctx->oob.oob_ep : t.rank;
            e.ordered = t.ordering != UCC_COLLECTIVE_POST_UNORDERED;
            e.sync = t.sync_type;
            t.ctx->record(e);
        }
        return t.create_status;
    });
}

UCC_EXPORT ucc_status_t ucc_team_destroy(ucc_team_h team) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (team == nullptr) {
            log_error("ucc_team_destroy: team is NULL");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::team_destroyed(team, "ucc_team_destroy")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Team &t = team->team;
        ucc::core::ContextGuard guard(*t.ctx);
        if (t.state == TeamState::kCreating) {
            UCC_LOG(t.ctx->log, kError,
                    "ucc_team_destroy: team creation is still in progress; call "
                    "ucc_team_create_test until it completes");
            return UCC_ERR_INVALID_PARAM;
        }
        // A program can always tear down: collectives still in progress are
        // cancelled; every request stays valid until finalized.
        if (const uint64_t n = t.ctx->cancel_requests(&t); n != 0) {
            UCC_LOG(t.ctx->log, kInfo,
                    "ucc_team_destroy: team %u: %llu collectives in progress completed with "
                    "UCC_ERR_CANCELED",
                    t.id, static_cast<unsigned long long>(n));
        }
        ucc::core::retire_team(team);
        return UCC_OK;
    });
}

UCC_EXPORT ucc_status_t ucc_team_get_attr(ucc_team_h team, ucc_team_attr_t *team_attr) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (team == nullptr || team_attr == nullptr) {
            log_error("ucc_team_get_attr: %s is NULL", team == nullptr ? "team" : "team_attr");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::team_destroyed(team, "ucc_team_get_attr")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Team &t = team->team;
        ucc::core::ContextGuard guard(*t.ctx);
        if (t.state != TeamState::kActive) {
            UCC_LOG(t.ctx->log, kError, "ucc_team_get_attr: the team is not active");
            return UCC_ERR_INVALID_PARAM;
        }
        uint64_t m = team_attr->mask;
        if (m & UCC_TEAM_ATTR_FIELD_POST_ORDERING) {
            team_attr->ordering = t.ordering;
        }
        if (m & UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS) {
            team_attr->outstanding_colls = t.outstanding_colls;
        }
        if (m & UCC_TEAM_ATTR_FIELD_EP) {
            team_attr->ep = t.rank;
        }
        if (m & UCC_TEAM_ATTR_FIELD_EP_RANGE) {
            team_attr->ep_range = t.ep_range;
        }
        if (m & UCC_TEAM_ATTR_FIELD_SYNC_TYPE) {
            team_attr->sync_type = t.sync_type;
        }
        if (m & UCC_TEAM_ATTR_FIELD_MEM_PARAMS) {
            team_attr->mem_params.segments = t.mem_segments.data();
            team_attr->mem_params.n_segments = t.mem_segments.size();
        }
        if (m & UCC_TEAM_ATTR_FIELD_SIZE) {
            team_attr->size = t.size;
        }
        if (m & UCC_TEAM_ATTR_FIELD_EPS) {
            // Team eps are contiguous; the list is built only when asked for.
            if (t.eps_cache.size() != t.size) {
                t.eps_cache.resize(t.size);
                for (uint32_t i = 0; i < t.size; ++i) {
                    t.eps_cache[i] = i;
                }
            }
            team_attr->eps = t.eps_cache.data();
        }
        return UCC_OK;
    });
}
