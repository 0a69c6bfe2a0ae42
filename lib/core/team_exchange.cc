// Team membership and id agreement (see team_exchange.h).
#include "lib/core/team_exchange.h"

#include <algorithm>
#include <cstring>

#include "lib/util/common.h"

namespace ucc::core {

namespace {

struct OobRecord {
    uint64_t proposal;
    uint64_t has_user_id;
    uint64_t user_id;
};

}  // namespace

uint16_t internal_id(uint64_t agreed) {
    return static_cast<uint16_t>(0x8000 | (agreed % 0x7fff));
}

void finish_creation(Team *t, ucc_status_t st) {
    t->create_status = st;
    t->state = st == UCC_OK ? TeamState::kActive : TeamState::kFailed;
    t->ctx->team_create_in_progress = false;
    t->ctx->completions++;  // the program sees it (Context::drain)
    if (st == UCC_OK) {
        UCC_LOG(t->ctx->log, kDebug, "team %u created: rank %u of %u", t->id, t->rank, t->size);
    } else {
        UCC_LOG(t->ctx->log, kError, "team creation failed: %s", ucc_status_string(st));
    }
}

uint32_t hash32(const void *data, size_t n, uint32_t h) {
    const auto *p = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

ucc_status_t OobExchange::start() {
    Context &ctx = *t_->ctx;
    // The world's peer exchange where it offers one (an error other than
    // UCC_ERR_NOT_SUPPORTED is the exchange failing).
    const ucc_status_t xst =
        ctx.sim != nullptr ? ctx.sim->exchange_post(oob_, ctx.next_team_id,
                                                    t_->has_user_id ? (t_->user_id + 1) : 0, &req_)
                           : UCC_ERR_NOT_SUPPORTED;
    if (xst != UCC_OK && xst != UCC_ERR_NOT_SUPPORTED) {
        return xst;
    }
    if (xst == UCC_OK) {
        // The world shares the peer table: nothing O(n) per member.
        shared_ = true;
    } else {
        my_len_ = ctx.address.size();
        lens_.resize(oob_.n_oob_eps);
        UCC_TRY(oob_.allgather(&my_len_, lens_.data(), sizeof(my_len_), oob_.coll_info, &req_));
    }
    ctx.pollers.push_back(this);
    it_ = std::prev(ctx.pollers.end());
    listed_ = true;
    return UCC_OK;
}

ucc_status_t OobExchange::post_records() {
    Context &ctx = *t_->ctx;
    alen_ = 0;
    for (uint64_t l : lens_) {
        alen_ = std::max<size_t>(alen_, l);
    }
    rec_ = alen_ + sizeof(OobRecord);
    send_.assign(rec_, 0);
    recv_.resize(rec_ * oob_.n_oob_eps);
    std::memcpy(send_.data(), ctx.address.data(), ctx.address.size());
    OobRecord r{ctx.next_team_id, t_->has_user_id ? 1u : 0u, t_->user_id};
    std::memcpy(send_.data() + alen_, &r, sizeof(r));
    return oob_.allgather(send_.data(), recv_.data(), rec_, oob_.coll_info, &req_);
}

bool OobExchange::poll() {
    try {
        return shared_ ? poll_shared() : poll_oob();
    } catch (...) {
        // An allocation that failed on the way to the peer map: the creation
        // fails with its status (ucc_team_create_test reports it and the team
        // can be destroyed), never left half made.
        unlist();
        finish_creation(t_, status_of_current_exception());
        return true;
    }
}

bool OobExchange::poll_oob() {
    ucc_status_t st = oob_.req_test(req_);
    if (st == UCC_INPROGRESS) {
        return false;
    }
    oob_.req_free(req_);
    req_ = nullptr;
    if (st == UCC_OK && phase_ == 0) {
        phase_ = 1;
        st = post_records();
        if (st == UCC_OK) {
            return true;
        }
    }
    unlist();
    finish_creation(t_, st != UCC_OK ? st : conclude());
    return true;
}

bool OobExchange::poll_shared() {
    Context &ctx = *t_->ctx;
    SimulatedWorld::Exchange ex;
    ucc_status_t st = ctx.sim->exchange_test(req_, &ex);
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
        alloc_site(ctx.sim, AllocSite::kTeamPeers);
        t_->peers = PeerMap::from_exchange(ex, oob_.n_oob_eps);
        if (t_->peers.at(t_->rank) != ctx.transport->self()) {
            UCC_LOG(ctx.log, kError, "team OOB position %u does not hold this process's address",
                    t_->rank);
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

void OobExchange::unlist() {
    if (listed_) {
        t_->ctx->pollers.erase(it_);
        listed_ = false;
    }
}

ucc_status_t OobExchange::conclude() {
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
                    t_->has_user_id ? "" : "none/", static_cast<unsigned long long>(t_->user_id));
            return UCC_ERR_INVALID_PARAM;
        }
        max_proposal = std::max(max_proposal, r.proposal);
    }
    if (table[t_->rank] != ctx.transport->self()) {
        UCC_LOG(ctx.log, kError, "team OOB position %u does not hold this process's address",
                t_->rank);
        return UCC_ERR_INVALID_PARAM;
    }
    alloc_site(ctx.sim, AllocSite::kTeamPeers);
    t_->peers = PeerMap::from_table(std::move(table));
    ctx.next_team_id = max_proposal + 1;
    t_->id = (t_->has_user_id && t_->user_id <= kUserIdMax) ? static_cast<uint16_t>(t_->user_id)
                                                            : internal_id(max_proposal);
    return UCC_OK;
}

void IdAgreement::on_task_done(ucc_status_t st) {
    if (st == UCC_OK) {
        t->ctx->next_team_id = value + 1;
        t->id = internal_id(value);
    }
    finish_creation(t, st);
}

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
    // Only the type is known of a collective seen through its tags (a real
    // transport's unmatched messages): name just that.
    std::string their_desc = coll::describe_signature(theirs);
    if ((theirs & ((uint64_t{1} << 58) - 1)) == 0) {
        their_desc = their_desc.substr(0, their_desc.find('('));
    }
    UCC_LOG(ctx->log, kError,
            "DESYNC on team %u: rank %u posted %s, rank %u posted %s at the same sequence number "
            "(%s differs)",
            id, rank, coll::describe_signature(mine).c_str(), peer, their_desc.c_str(), field);
}

void Team::report_length(uint32_t peer, uint64_t mine, size_t expected, size_t got) {
    UCC_LOG(ctx->log, kError,
            "DESYNC on team %u: rank %u in %s expected %zu bytes from rank %u and received %zu "
            "(the ranks disagree on the collective, its counts or its datatype)",
            id, rank, coll::describe_signature(mine).c_str(), expected, peer, got);
}

void Team::report_inconsistent(const char *what) {
    UCC_LOG(ctx->log, kError,
            "UCC_CHECK_ASYMMETRIC_DT on team %u: the members' %s differs; the collective "
            "completes with UCC_ERR_NOT_SUPPORTED on every member",
            id, what);
}

ucc_status_t Team::remote_of(uint32_t team_rank, const void *local, size_t bytes, uint64_t *addr,
                             const std::vector<uint8_t> **key) {
    std::string why;
    const ucc_status_t st = ctx->mapped.remote(peer_of(team_rank), local, bytes, addr, key, &why);
    if (st != UCC_OK) {
        UCC_LOG(ctx->log, kError, "one-sided collective on team %u, rank %u to rank %u: %s", id,
                rank, team_rank, why.c_str());
    }
    return st;
}

}  // namespace ucc::core
