// A context's peers (context_peers.h): the OOB address exchange, the
// simulated world's shared exchange, and the join of a rank without a fiber.
#include "lib/core/context_peers.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "lib/util/common.h"

namespace ucc::core {

namespace {

ucc_status_t oob_allgather_blocking(const ucc_oob_coll_t &oob, void *src, void *dst, size_t size) {
    void *req = nullptr;
    ucc_status_t st = oob.allgather(src, dst, size, oob.coll_info, &req);
    if (st != UCC_OK) {
        return st;
    }
    do {
        st = oob.req_test(req);
    } while (st == UCC_INPROGRESS);
    oob.req_free(req);
    return st;
}

// The end of the world's shared exchange (the request is released).
ucc_status_t conclude_shared(Context &ctx, ucc_status_t st, const SimulatedWorld::Exchange &ex) {
    if (st != UCC_OK) {
        UCC_LOG(ctx.log, kError, "ucc_context_create: OOB peer exchange failed: %s",
                ucc_status_string(st));
        return st;
    }
    alloc_site(ctx.sim, AllocSite::kContextPeers);
    ctx.peers = PeerMap::from_exchange(ex, ctx.oob.n_oob_eps);
    return UCC_OK;
}

// The shared exchange of a rank without a fiber, tested at each pass of its
// context's progress until it completes. Owned by the context (join); a
// context destroyed first gives its request up.
class PeerJoin final : public Poller {
  public:
    PeerJoin(Context &ctx, void *req) : ctx_(ctx), req_(req) {
        ctx.pollers.push_back(this);
        it_ = std::prev(ctx.pollers.end());
    }
    ~PeerJoin() override {
        if (req_ != nullptr) {
            ctx_.sim->exchange_cancel(req_);
            ctx_.pollers.erase(it_);
        }
    }
    PeerJoin(const PeerJoin &) = delete;
    PeerJoin &operator=(const PeerJoin &) = delete;

    bool poll() override {
        SimulatedWorld::Exchange ex;
        ucc_status_t st = ctx_.sim->exchange_test(req_, &ex);
        if (st == UCC_INPROGRESS) {
            return false;
        }
        req_ = nullptr;
        ctx_.pollers.erase(it_);
        try {
            st = conclude_shared(ctx_, st, ex);
        } catch (...) {
            st = status_of_current_exception();  // the peer map's allocation
        }
        ctx_.join_status = st;
        start_deferred_team(ctx_);
        return true;
    }

  private:
    Context &ctx_;
    void *req_;
    std::list<Poller *>::iterator it_;
};

}  // namespace

ucc_status_t exchange_peers(Context &ctx) {
    const uint32_t n = ctx.oob.n_oob_eps;
    if (n <= 1) {
        // Alone in the OOB: nothing to exchange, and no OOB call (as the
        // reference: a client may hand a one-process OOB that cannot run).
        ctx.peers = PeerMap::from_table(std::vector<Peer>{ctx.transport->self()});
        return ctx.mapped.learn(ctx.transport->self(), ctx.address.data(), ctx.address.size());
    }
    void *xreq = nullptr;
    // The world's peer exchange where it offers one (an error other than
    // UCC_ERR_NOT_SUPPORTED is the exchange failing).
    // Not for a context with mapped memory: its peers' segments travel with
    // their addresses (every member maps, or none).
    const ucc_status_t xst = ctx.sim != nullptr && ctx.mapped.empty()
                                 ? ctx.sim->exchange_post(ctx.oob, 0, 0, &xreq)
                                 : UCC_ERR_NOT_SUPPORTED;
    if (xst != UCC_OK && xst != UCC_ERR_NOT_SUPPORTED) {
        log_error("ucc_context_create: OOB peer exchange failed: %s", ucc_status_string(xst));
        return xst;
    }
    if (xst == UCC_OK && !ctx.sim->can_wait()) {
        ctx.join_status = UCC_INPROGRESS;
        ctx.join = std::make_unique<PeerJoin>(ctx, xreq);
        return UCC_OK;
    }
    if (xst == UCC_OK) {
        SimulatedWorld::Exchange ex;
        ucc_status_t st;
        while ((st = ctx.sim->exchange_test(xreq, &ex)) == UCC_INPROGRESS) {
        }
        return conclude_shared(ctx, st, ex);
    }
    if (ctx.sim != nullptr && !ctx.sim->can_wait()) {
        // The allgathers are collective: this call would have to wait for
        // the other ranks, and a rank without a fiber cannot.
        log_error(
            "ucc_context_create: params->oob: a simulated rank without a fiber cannot wait for "
            "an OOB of its own (use ucc_sim_oob(), or give the team the OOB)");
        return UCC_ERR_NOT_SUPPORTED;
    }
    uint64_t my_len = ctx.address.size();
    std::vector<uint64_t> lens(n);
    ucc_status_t st = oob_allgather_blocking(ctx.oob, &my_len, lens.data(), sizeof(my_len));
    size_t alen = ctx.address.size();
    for (uint64_t l : lens) {
        alen = std::max<size_t>(alen, l);
    }
    std::vector<uint8_t> mine(alen);
    std::memcpy(mine.data(), ctx.address.data(), ctx.address.size());
    std::vector<uint8_t> all(alen * n);
    if (st == UCC_OK) {
        st = oob_allgather_blocking(ctx.oob, mine.data(), all.data(), alen);
    }
    if (st != UCC_OK) {
        log_error("ucc_context_create: OOB address exchange failed: %s", ucc_status_string(st));
        return st;
    }
    std::vector<Peer> table(n);
    for (uint32_t i = 0; i < n; ++i) {
        st = ctx.transport->resolve(all.data() + i * alen, &table[i]);
        if (st == UCC_OK && !ctx.mapped.empty() && lens[i] <= alen &&
            ctx.mapped.learn(table[i], all.data() + i * alen, lens[i]) != UCC_OK) {
            log_error("ucc_context_create: OOB ep %u sent a malformed list of mapped segments", i);
            return UCC_ERR_INVALID_PARAM;
        }
        if (st != UCC_OK) {
            log_error(
                "ucc_context_create: the %s transport cannot reach OOB ep %u (%u processes); run "
                "inside ucc_sim_run or use a network transport",
                ctx.transport->name(), i, n);
            return UCC_ERR_NO_RESOURCE;
        }
    }
    ctx.peers = PeerMap::from_table(std::move(table));
    if (ctx.peers.at(ctx.oob.oob_ep) != ctx.transport->self()) {
        log_error("ucc_context_create: OOB ep %u does not hold this process's address",
                  ctx.oob.oob_ep);
        return UCC_ERR_NO_MESSAGE;
    }
    return UCC_OK;
}

}  // namespace ucc::core
