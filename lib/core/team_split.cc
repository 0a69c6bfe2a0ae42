// C API: ucc_team_create_from_parent (team split).
//
// Every parent member calls it. The parent runs one internal allgather (on its
// own next sequence number, like any collective) of {included, id proposal};
// the new team is the included members in parent-rank order. Excluded callers
// get a placeholder handle: create_test reports UCC_OK once their part of the
// exchange is done, collectives on it are invalid, destroy is local.
#include <string>

#include "lib/core/core.h"
#include "lib/core/team_exchange.h"
#include "lib/core/trace_record.h"
#include "lib/util/common.h"

using ucc::api_guard;
using ucc::core::Context;
using ucc::core::log_error;
using ucc::core::Team;
using ucc::core::TeamState;

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
    coll::Args args;  // coll's
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
        ucc::core::ContextGuard guard(ctx);
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
        std::unique_ptr<ucc_team> h(ucc::core::new_team_handle(ctx));
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
        ucc::coll::Args &a = sp.args;
        a.type = UCC_COLL_TYPE_ALLGATHER;
        a.dt = UCC_DT_UINT8;
        a.esize = 1;
        a.src = &sp.mine;
        a.dst = sp.all.data();
        a.count = sizeof(ucc::core::SplitRecord);
        a.src_count = a.count;
        a.dst_count = a.count * p.size;
        sp.coll = std::make_unique<ucc::coll::Coll>(p, a, p.rank, p.size, p.tag_base(p.seq++));
        sp.coll->set_carry();  // membership must arrive in a timing-only run too
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
        ctx.live_teams.push_back(h.get());
        if (ctx.trace) [[unlikely]] {
            ucc::core::trace_team_create(t, UCC_OK, "split", &p, included != 0);
        }
        t.create_task.start(raw);
        *new_team = h.release();
        return UCC_OK;
    });
}
