// C API: team creation (non-blocking, progressed by ucc_team_create_test alone),
// destruction and attributes.
//
// How a team learns its members:
//  * with a team OOB: one OOB allgather of {transport address, team-id proposal,
//    user id} per member;
//  * without one, on a context created with an OOB: the ep map (or, if none, the
//    whole context) names the members' context eps, so no exchange of addresses is
//    needed; the team id is the user's, or agreed by a max-reduction over the
//    transport on a reserved tag.
#include <algorithm>
#include <cstring>

#include "lib/core/core.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::Context;
using ucc::core::log_error;
using ucc::core::Team;
using ucc::core::TeamState;

namespace ucc::core {

namespace {

constexpr uint16_t kCreationTeamId = 0xffff;
constexpr uint64_t kUserIdMax = 0x7fff;

uint16_t internal_id(uint64_t agreed) {
    return static_cast<uint16_t>(0x8000 | (agreed % 0x7fff));
}

void finish_creation(Team *t, ucc_status_t st) {
    t->create_status = st;
    t->state = st == UCC_OK ? TeamState::kActive : TeamState::kFailed;
    t->ctx->team_create_in_progress = false;
    if (st == UCC_OK) {
        UCC_LOG(t->ctx->log, kDebug, "team %u created: rank %u of %u", t->id, t->rank, t->size);
    } else {
        UCC_LOG(t->ctx->log, kError, "team creation failed: %s", ucc_status_string(st));
    }
}

struct OobRecord {
    uint64_t proposal;
    uint64_t has_user_id;
    uint64_t user_id;
};

// Polls the team OOB allgather that carries addresses and id proposals.
class OobExchange final : public Poller {
  public:
    OobExchange(Team *t, const ucc_oob_coll_t &oob) : t_(t), oob_(oob) {}

    ucc_status_t start() {
        Context &ctx = *t_->ctx;
        if (ctx.transport->exchange_post(
                oob_, ctx.next_team_id, t_->has_user_id ? (t_->user_id + 1) : 0, &req_) == UCC_OK) {
            // The transport shares the peer table: nothing O(n) per member.
            shared_ = true;
            ctx.pollers.push_back(this);
            it_ = std::prev(ctx.pollers.end());
            listed_ = true;
            return UCC_OK;
        }
        alen_ = ctx.address.size();
        rec_ = alen_ + sizeof(OobRecord);
        send_.resize(rec_);
        recv_.resize(rec_ * oob_.n_oob_eps);
        std::memcpy(send_.data(), ctx.address.data(), alen_);
        OobRecord r{ctx.next_team_id, t_->has_user_id ? 1u : 0u, t_->user_id};
        std::memcpy(send_.data() + alen_, &r, sizeof(r));
        ucc_status_t st = oob_.allgather(send_.data(), recv_.data(), rec_, oob_.coll_info, &req_);
        if (st != UCC_OK) {
            return st;
        }
        ctx.pollers.push_back(this);
        it_ = std::prev(ctx.pollers.end());
        listed_ = true;
        return UCC_OK;
    }

    bool poll() override {
        if (shared_) {
            return poll_shared();
        }
        ucc_status_t st = oob_.req_test(req_);
        if (st == UCC_INPROGRESS) {
            return false;
        }
        oob_.req_free(req_);
        unlist();
        if (st != UCC_OK) {
            finish_creation(t_, st);
            return true;
        }
        finish_creation(t_, conclude());
        return true;
    }

    ~OobExchange() override { unlist(); }

  private:
    bool poll_shared() {
        Context &ctx = *t_->ctx;
        Transport::Exchange ex;
        ucc_status_t st = ctx.transport->exchange_test(req_, &ex);
        if (st == UCC_INPROGRESS) {
            return false;
        }
        unlist();
        if (st == UCC_OK && !ex.checks_agree) {
            UCC_LOG(ctx.log, kError, "team members disagree on the team id (this one has %s%llu)",
                    t_->has_user_id ? "" : "none/", static_cast<unsigned long long>(t_->user_id));
            st = UCC_ERR_INVALID_PARAM;
        }
        if (st == UCC_OK) {
            t_->peers = PeerMap::from_exchange(ex, oob_.n_oob_eps);
            if (t_->peers.at(t_->rank) != ctx.transport->self()) {
                UCC_LOG(ctx.log, kError,
                        "team OOB position %u does not hold this process's address", t_->rank);
                st = UCC_ERR_INVALID_PARAM;
            } else {
                ctx.next_team_id = ex.max_value + 1;
                t_->id = (t_->has_user_id && t_->user_id <= kUserIdMax)
                             ? static_cast<uint16_t>(t_->user_id)
                             : internal_id(ex.max_value);
            }
        }
        finish_creation(t_, st);
        return true;
    }

    void unlist() {
        if (listed_) {
            t_->ctx->pollers.erase(it_);
            listed_ = false;
        }
    }

    ucc_status_t conclude() {
        Context &ctx = *t_->ctx;
        uint32_t n = oob_.n_oob_eps;
        std::vector<Peer> table(n);
        uint64_t max_proposal = 0;
        for (uint32_t i = 0; i < n; ++i) {
            const uint8_t *p = recv_.data() + static_cast<size_t>(i) * rec_;
            ucc_status_t st = ctx.transport->resolve(p, &table[i]);
            if (st != UCC_OK) {
                UCC_LOG(ctx.log, kError, "team member %u is not reachable by the %s transport", i,
                        ctx.transport->name());
                return UCC_ERR_NO_RESOURCE;
            }
            OobRecord r;
            std::memcpy(&r, p + alen_, sizeof(r));
            if ((r.has_user_id != 0) != t_->has_user_id ||
                (t_->has_user_id && r.user_id != t_->user_id)) {
                UCC_LOG(ctx.log, kError,
                        "team members disagree on the team id (member %u has %s%llu, this one "
                        "%s%llu)",
                        i, r.has_user_id ? "" : "none/", static_cast<unsigned long long>(r.user_id),
                        t_->has_user_id ? "" : "none/",
                        static_cast<unsigned long long>(t_->user_id));
                return UCC_ERR_INVALID_PARAM;
            }
            max_proposal = std::max(max_proposal, r.proposal);
        }
        if (table[t_->rank] != ctx.transport->self()) {
            UCC_LOG(ctx.log, kError, "team OOB position %u does not hold this process's address",
                    t_->rank);
            return UCC_ERR_INVALID_PARAM;
        }
        t_->peers = PeerMap::from_table(std::move(table));
        ctx.next_team_id = max_proposal + 1;
        t_->id = (t_->has_user_id && t_->user_id <= kUserIdMax) ? static_cast<uint16_t>(t_->user_id)
                                                                : internal_id(max_proposal);
        return UCC_OK;
    }

    Team *t_;
    ucc_oob_coll_t oob_;
    void *req_ = nullptr;
    size_t alen_ = 0;
    size_t rec_ = 0;
    std::vector<uint8_t> send_;
    std::vector<uint8_t> recv_;
    std::list<Poller *>::iterator it_;
    bool listed_ = false;
    bool shared_ = false;
};

// Agrees on a team id without an OOB: max-reduction by recursive doubling with
// fold-in of the ranks beyond the largest power of two.
struct IdAgreement final : TaskOwner {
    Team *t = nullptr;
    uint64_t value = 0;
    std::unique_ptr<coll::Coll> coll;
    void on_task_done(ucc_status_t st) override {
        if (st == UCC_OK) {
            t->ctx->next_team_id = value + 1;
            t->id = internal_id(value);
        }
        finish_creation(t, st);
    }
};

Task agree_max(coll::Coll &c, uint64_t *value) {
    uint32_t n = c.size();
    uint32_t r = c.rank();
    uint32_t p = 1;
    while (p * 2 <= n) {
        p *= 2;
    }
    uint64_t in = 0;
    if (r >= p) {
        auto s = c.send(r - p, 0, value, sizeof(*value));
        auto q = c.recv(r - p, 1000, value, sizeof(*value));
        co_return co_await c.wait(s, q);
    }
    if (r + p < n) {
        auto q = c.recv(r + p, 0, &in, sizeof(in));
        UCC_CO_TRY(co_await c.wait(q));
        *value = std::max(*value, in);
    }
    for (uint32_t d = 1, step = 1; d < p; d *= 2, ++step) {
        auto s = c.send(r ^ d, step, value, sizeof(*value));
        auto q = c.recv(r ^ d, step, &in, sizeof(in));
        UCC_CO_TRY(co_await c.wait(s, q));
        *value = std::max(*value, in);
    }
    if (r + p < n) {
        auto s = c.send(r + p, 1000, value, sizeof(*value));
        UCC_CO_TRY(co_await c.wait(s));
    }
    co_return UCC_OK;
}

uint32_t hash32(const void *data, size_t n, uint32_t h) {
    const auto *p = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

}  // namespace

Team::~Team() = default;

bool team_destroyed(const ucc_team *team, const char *fn) {
    if (team->team.state != TeamState::kDestroyed) {
        return false;
    }
    UCC_LOG(team->team.ctx->log, kError, "%s: the team was destroyed", fn);
    return true;
}

void Team::report_desync(uint32_t peer, uint64_t mine, uint64_t theirs) {
    const char *field = "bytes per rank";
    if (((mine ^ theirs) >> 58) & 0x1f) {
        field = "coll_type";
    } else if (((mine ^ theirs) >> 32) & 0x3fffff) {
        field = "root";
    } else if (((mine ^ theirs) >> 54) & 0xf) {
        field = "op";
    }
    UCC_LOG(ctx->log, kError,
            "DESYNC on team %u: rank %u posted %s, rank %u posted %s at the same sequence number "
            "(%s differs)",
            id, rank, coll::describe_signature(mine).c_str(), peer,
            coll::describe_signature(theirs).c_str(), field);
}

}  // namespace ucc::core

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

}  // namespace

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
        const ucc_team_params_t &p = *team_params;
        if (ctx.team_create_in_progress) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_post: another team creation on this context is still in "
                    "progress");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ctx.type == UCC_CONTEXT_EXCLUSIVE && ctx.n_teams > 0) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_post: an exclusive context holds one team at a time");
            return UCC_ERR_INVALID_PARAM;
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
            if (!ctx.has_oob) {
                log_error("ucc_team_create_post: an ep_map needs a context created with an OOB");
                return UCC_ERR_INVALID_PARAM;
            }
            if (!agree(p.ep_map.ep_num, "ep_map.ep_num")) {
                return UCC_ERR_INVALID_PARAM;
            }
        }
        if (!has_oob && !has_map && ctx.has_oob && size == 0) {
            size = ctx.peers.size();  // the whole context
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

        std::unique_ptr<ucc_team> h(new ucc_team{Team(&ctx)});
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
            t.id = (t.has_user_id && t.user_id <= 0x7fff)
                       ? static_cast<uint16_t>(t.user_id)
                       : static_cast<uint16_t>(0x8000 | (ctx.next_team_id++ % 0x7fff));
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
        } else {
            UCC_TRY(create_via_ep_map(&t, &p, has_map));
            if (t.has_user_id && t.user_id <= 0x7fff) {
                t.id = static_cast<uint16_t>(t.user_id);
                t.state = TeamState::kActive;
                t.create_status = UCC_OK;
            } else {
                // Creation traffic uses a reserved team id and a key that every
                // member derives from the same parameters.
                uint32_t key = 2166136261u;
                uint64_t words[3] = {size, static_cast<uint64_t>(has_map ? p.ep_map.type : 0),
                                     t.peers.at(0)};
                key = ucc::core::hash32(words, sizeof(words), key);
                auto ag = std::make_unique<IdAgreement>();
                ag->t = &t;
                ag->value = ctx.next_team_id;
                ucc::coll::Args a;
                a.type = UCC_COLL_TYPE_ALLREDUCE;
                ag->coll = std::make_unique<ucc::coll::Coll>(
                    t, a, t.rank, t.size,
                    (static_cast<ucc::Tag>(ucc::core::kCreationTeamId) << 48) |
                        (static_cast<ucc::Tag>(key) << 16));
                ctx.team_create_in_progress = true;
                t.create_task = ucc::core::agree_max(*ag->coll, &ag->value);
                IdAgreement *raw = ag.get();
                creation->state.agreement = std::move(ag);
                t.create_task.start(raw);
            }
        }
        t.create_poller = std::move(creation);
        ctx.n_teams++;
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
        if (t.state == TeamState::kCreating) {
            // Progress the context here, so looping on this call alone is enough.
            t.ctx->progress();
            if (t.state == TeamState::kCreating && t.ctx->transport->aborted()) {
                // The world gave up (simulated deadlock): the creation fails.
                t.create_task.reset();
                t.create_poller.reset();
                ucc::core::finish_creation(&t, UCC_ERR_NO_MESSAGE);
            }
        }
        if (t.state != TeamState::kCreating && !t.creation_recorded) {
            t.creation_recorded = true;
            if (t.ctx->transport->recording()) {
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
        if (t.state == TeamState::kCreating) {
            UCC_LOG(t.ctx->log, kError,
                    "ucc_team_destroy: team creation is still in progress; call "
                    "ucc_team_create_test until it completes");
            return UCC_ERR_INVALID_PARAM;
        }
        if (t.n_outstanding != 0) {
            UCC_LOG(t.ctx->log, kError,
                    "ucc_team_destroy: %llu collective requests on this team are not finalized",
                    static_cast<unsigned long long>(t.n_outstanding));
            return UCC_ERR_INVALID_PARAM;
        }
        Context *ctx = t.ctx;
        const uint16_t id = t.id;
        const uint64_t team_hash = t.trace_hash;
        const bool created = t.creation_recorded && t.create_status == UCC_OK;
        ctx->n_teams--;
        // Keep a tombstone: later calls on this handle fail cleanly (P36).
        t.state = TeamState::kDestroyed;
        t.peers = ucc::core::PeerMap();
        t.eps_cache = {};
        t.mem_segments = {};
        t.create_task.reset();
        t.create_poller.reset();
        ctx->dead_teams.emplace_back(team);
        if (created) {
            ucc::TraceEvent e;
            e.kind = ucc::TraceKind::kTeamDestroyed;
            e.team = id;
            e.team_hash = team_hash;
            e.resources = ctx->resources(id);
            ctx->record(e);
        }
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

// ---- team split: ucc_team_create_from_parent ----
//
// Every parent member calls it. The parent runs one internal allgather (on its
// own next sequence number, like any collective) of {included, id proposal};
// the new team is the included members in parent-rank order. Excluded callers
// get a placeholder handle: create_test reports UCC_OK once their part of the
// exchange is done, collectives on it are invalid, destroy is local.
namespace ucc::core {

namespace {

struct SplitRecord {
    uint64_t included;
    uint64_t proposal;
};

struct Split final : TaskOwner {
    Team *parent = nullptr;
    Team *child = nullptr;
    SplitRecord mine{};
    std::vector<SplitRecord> all;
    std::unique_ptr<coll::Coll> coll;

    void on_task_done(ucc_status_t st) override {
        if (st == UCC_OK) {
            st = conclude();
        }
        finish_creation(child, st);
    }

    ucc_status_t conclude() {
        std::vector<Peer> members;
        uint64_t max_proposal = 0;
        for (uint32_t i = 0; i < parent->size; ++i) {
            max_proposal = std::max(max_proposal, all[i].proposal);
            if (all[i].included != 0) {
                if (i == parent->rank) {
                    child->rank = static_cast<uint32_t>(members.size());
                }
                members.push_back(parent->peers.at(i));
            }
        }
        child->ctx->next_team_id = max_proposal + 1;
        child->id = internal_id(max_proposal);
        if (child->placeholder) {
            child->size = static_cast<uint32_t>(members.size());
            return UCC_OK;
        }
        child->size = static_cast<uint32_t>(members.size());
        child->peers = PeerMap::from_table(std::move(members));
        return UCC_OK;
    }
};

class SplitHolder final : public Poller {
  public:
    bool poll() override { return false; }
    std::unique_ptr<Split> split;
};

}  // namespace

}  // namespace ucc::core

UCC_EXPORT ucc_status_t ucc_team_create_from_parent(uint64_t my_ep, uint32_t included,
                                                    ucc_team_h parent_team, ucc_team_h *new_team) {
    return api_guard(__func__, [&]() -> ucc_status_t {
        if (parent_team == nullptr || new_team == nullptr) {
            log_error("ucc_team_create_from_parent: %s is NULL",
                      parent_team == nullptr ? "parent_team" : "new_team");
            return UCC_ERR_INVALID_PARAM;
        }
        if (ucc::core::team_destroyed(parent_team, "ucc_team_create_from_parent")) {
            return UCC_ERR_INVALID_PARAM;
        }
        Team &p = parent_team->team;
        Context &ctx = *p.ctx;
        if (p.state != TeamState::kActive || p.placeholder) {
            UCC_LOG(ctx.log, kError, "ucc_team_create_from_parent: the parent team is not active");
            return UCC_ERR_INVALID_PARAM;
        }
        if (p.error != UCC_OK) {
            UCC_LOG(ctx.log, kError, "ucc_team_create_from_parent: the parent team failed: %s",
                    ucc_status_string(p.error));
            return p.error;
        }
        if (my_ep != p.rank) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_from_parent: my_ep %llu is not this member's parent ep %u",
                    static_cast<unsigned long long>(my_ep), p.rank);
            return UCC_ERR_INVALID_PARAM;
        }
        if (ctx.team_create_in_progress) {
            UCC_LOG(ctx.log, kError,
                    "ucc_team_create_from_parent: another team creation on this context is in "
                    "progress");
            return UCC_ERR_INVALID_PARAM;
        }
        std::unique_ptr<ucc_team> h(new ucc_team{Team(&ctx)});
        Team &t = h->team;
        t.placeholder = included == 0;
        t.sync_type = p.sync_type;
        t.ordering = p.ordering;
        t.outstanding_colls = p.outstanding_colls;
        t.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
        t.mem_segments = p.mem_segments;

        auto holder = std::make_unique<ucc::core::SplitHolder>();
        holder->split = std::make_unique<ucc::core::Split>();
        ucc::core::Split &sp = *holder->split;
        sp.parent = &p;
        sp.child = &t;
        sp.mine = {included != 0 ? 1u : 0u, ctx.next_team_id};
        sp.all.resize(p.size);
        ucc::coll::Args a;
        a.type = UCC_COLL_TYPE_ALLGATHER;
        a.dt = UCC_DT_UINT8;
        a.esize = 1;
        a.src = &sp.mine;
        a.dst = sp.all.data();
        a.count = sizeof(ucc::core::SplitRecord);
        a.src_count = a.count;
        a.dst_count = a.count * p.size;
        sp.coll = std::make_unique<ucc::coll::Coll>(p, a, p.rank, p.size, p.tag_base(p.seq++));
        ctx.team_create_in_progress = true;
        const ucc::coll::Algorithm *ag = nullptr;
        for (const ucc::coll::Algorithm &alg : ucc::coll::algorithms(UCC_COLL_TYPE_ALLGATHER)) {
            if (std::string(alg.name) == "bruck") {
                ag = &alg;
            }
        }
        UCC_ASSERT(ag != nullptr);
        t.create_task = ag->run(*sp.coll);
        ucc::core::Split *raw = holder->split.get();
        t.create_poller = std::move(holder);
        ctx.n_teams++;
        t.create_task.start(raw);
        *new_team = h.release();
        return UCC_OK;
    });
}
