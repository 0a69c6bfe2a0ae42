// The simulated cluster's OOB over all ranks: the allgather behind oob() (its
// C callbacks included) and the peer exchange (exchange_start), both kept in
// cluster memory and completed by a kOobDone event after a log-depth delay;
// an exchange that a crashed rank never joins fails.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "transports/sim/cluster_internal.h"

namespace ucc::sim {

ucc_status_t Cluster::oob_allgather(const void *src, void *recv, size_t size, void **request) {
    uint32_t r = running_rank();
    if (r == kNoRank || request == nullptr || (size > 0 && (src == nullptr || recv == nullptr))) {
        return UCC_ERR_INVALID_PARAM;
    }
    RankState &rs = ranks_[r];
    const int64_t late_ps = oob_fault_late_ps(r);
    uint64_t id = rs.oob_calls++;
    if (late_ps < 0) {
        return UCC_ERR_NO_MESSAGE;  // a failed OOB exchange (faults.h)
    }
    auto it = oob_rounds_.find(id);
    if (it == oob_rounds_.end()) {
        auto round = std::make_unique<OobRound>();
        round->id = id;
        round->size = size;
        round->data.resize(static_cast<size_t>(n_) * size);
        round->reqs.assign(n_, nullptr);
        it = oob_rounds_.emplace(id, std::move(round)).first;
    }
    OobRound *round = it->second.get();
    if (size != round->size) {
        if (!round->mismatch) {
            note("ucc_sim: OOB allgather #" + std::to_string(id) + ": rank " + std::to_string(r) +
                 " gives " + std::to_string(size) + " bytes, others " +
                 std::to_string(round->size));
        }
        round->mismatch = true;
    } else if (size > 0) {
        std::memcpy(round->data.data() + static_cast<size_t>(r) * size, src, size);
    }
    auto *req = new OobRequest();
    req->recv_buf = recv;
    req->size = size;
    *request = req;
    if (!join_oob_round(r, round, req, late_ps)) {
        return UCC_OK;
    }
    // Everyone has called: the data lands now, completion after a log-depth
    // exchange of inter-node latencies.
    if (!round->mismatch) {
        for (OobRequest *q : round->reqs) {
            if (q != nullptr && size > 0) {
                std::memcpy(q->recv_buf, round->data.data(), round->data.size());
            }
        }
    }
    std::vector<uint8_t>().swap(round->data);
    schedule_oob_done(*round);
    return UCC_OK;
}

ucc_status_t Cluster::exchange_start(uint64_t endpoint, uint64_t value, uint64_t check,
                                     OobRequest **request) {
    uint32_t r = running_rank();
    if (r == kNoRank || request == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    RankState &rs = ranks_[r];
    const int64_t late_ps = oob_fault_late_ps(r);
    const uint64_t id = (uint64_t{1} << 63) | rs.exchange_calls++;
    if (late_ps < 0) {
        return UCC_ERR_NO_MESSAGE;  // a failed OOB exchange (faults.h)
    }
    auto it = oob_rounds_.find(id);
    if (it == oob_rounds_.end()) {
        auto round = std::make_unique<OobRound>();
        round->id = id;
        round->exchange = true;
        round->endpoints.assign(n_, 0);
        round->reqs.assign(n_, nullptr);
        it = oob_rounds_.emplace(id, std::move(round)).first;
    }
    OobRound *round = it->second.get();
    round->endpoints[r] = endpoint;
    round->max_value = std::max(round->max_value, value);
    round->min_check = std::min(round->min_check, check);
    round->max_check = std::max(round->max_check, check);
    // Owned here until the end: if publishing the result fails (out of
    // memory), the caller never sees the request and it must not stay behind.
    auto owned = std::make_unique<OobRequest>();
    if (!join_oob_round(r, round, owned.get(), late_ps)) {
        *request = owned.release();
        return UCC_OK;
    }
    try {
        publish_exchange(round);
    } catch (...) {
        round->reqs[r] = nullptr;
        rs.oob = nullptr;
        --round->arrived;
        throw;
    }
    *request = owned.release();
    return UCC_OK;
}

// Everyone is in: publish the table once (or just its progression).
void Cluster::publish_exchange(OobRound *round) {
    bool arithmetic = true;
    const uint64_t first = round->endpoints[0];
    const int64_t stride =
        n_ > 1 ? static_cast<int64_t>(round->endpoints[1] - round->endpoints[0]) : 1;
    for (uint32_t i = 0; i < n_ && arithmetic; ++i) {
        arithmetic =
            round->endpoints[i] == static_cast<uint64_t>(static_cast<int64_t>(round->endpoints[0]) +
                                                         static_cast<int64_t>(i) * stride);
    }
    std::shared_ptr<const std::vector<uint64_t>> table;
    if (!arithmetic) {
        table = std::make_shared<const std::vector<uint64_t>>(std::move(round->endpoints));
    }
    for (OobRequest *q : round->reqs) {
        if (q == nullptr) {
            continue;  // given up by a rank that joined (exchange_cancel)
        }
        q->table = table;
        q->start = first;
        q->stride = stride;
        q->max_value = round->max_value;
        q->checks_agree = round->min_check == round->max_check;
    }
    std::vector<uint64_t>().swap(round->endpoints);
    schedule_oob_done(*round);
}

int64_t Cluster::oob_fault_late_ps(uint32_t r) {
    const OobFault *f = oob_fault(r);
    if (f == nullptr) {
        return 0;
    }
    ++faults_injected_;
    const RankState &rs = ranks_[r];
    note("ucc_sim: rank " + std::to_string(r) + ": OOB exchange " +
         std::to_string(rs.oob_calls + rs.exchange_calls) +
         (f->stall_s > 0 ? " stalls " + seconds(static_cast<int64_t>(f->stall_s * 1e12))
                         : std::string(" fails")) +
         " (fault plan)");
    return f->stall_s > 0 ? static_cast<int64_t>(f->stall_s * 1e12) : -1;
}

bool Cluster::join_oob_round(uint32_t r, OobRound *round, OobRequest *req, int64_t late_ps) {
    req->round = round;
    req->round_id = round->id;
    req->rank = r;
    round->reqs[r] = req;
    ranks_[r].oob = req;
    round->max_entry_ps = std::max(round->max_entry_ps, clock_ps(r) + late_ps);
    return ++round->arrived >= n_;
}

void Cluster::schedule_oob_done(const OobRound &round) {
    int64_t depth = 0;
    while ((uint64_t{1} << depth) < n_) {
        ++depth;
    }
    push_event(Event{round.max_entry_ps + depth * params_.net.lat_inter_ps, 0, 0, nullptr, round.id,
                     0, EventKind::kOobDone});
}

void Cluster::complete_oob_round(uint64_t id) {
    auto it = oob_rounds_.find(id);
    if (it == oob_rounds_.end()) {
        return;
    }
    OobRound *round = it->second.get();
    fold(round->size);
    for (uint32_t r = 0; r < n_; ++r) {
        OobRequest *q = round->reqs[r];
        if (q == nullptr) {
            continue;
        }
        q->status = round->mismatch ? UCC_ERR_INVALID_PARAM : UCC_OK;
        q->done = true;
        q->round = nullptr;
        if (ranks_[r].oob == q) {
            ranks_[r].oob = nullptr;
        }
        wake(r);
    }
    if (round->mismatch && status_ == UCC_OK) {
        status_ = UCC_ERR_INVALID_PARAM;
    }
    oob_rounds_.erase(it);
}

bool Cluster::oob_round_lost(const OobRound &round) const {
    if (crashed_ == 0) {
        return false;
    }
    for (uint32_t r = 0; r < n_; ++r) {
        if (ranks_[r].crashed && round.reqs[r] == nullptr) {
            return true;  // a crashed rank never joined it (one that did never freed it)
        }
    }
    return false;
}

ucc_status_t Cluster::oob_test(OobRequest *req) {
    if (req == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (req->done) {
        return req->status;
    }
    if (aborted_) {
        return UCC_ERR_NO_MESSAGE;
    }
    uint32_t r = running_rank();
    if (r == kNoRank) {
        return UCC_INPROGRESS;
    }
    // An exchange that a crashed rank will never join fails, as an OOB over a
    // failed process does (faults.h).
    if (req->round != nullptr && oob_round_lost(*req->round)) {
        return UCC_ERR_NO_MESSAGE;
    }
    // Lazy: only the round's completion (or a lost round's dry world) wakes
    // it, with no timer at its own clock, as a rank without a fiber waits.
    idle(r, INFINITY, /*lazy=*/true);
    if (req->done) {
        return req->status;
    }
    if (req->round != nullptr && oob_round_lost(*req->round)) {
        return UCC_ERR_NO_MESSAGE;
    }
    return aborted_ ? UCC_ERR_NO_MESSAGE : UCC_INPROGRESS;
}

ucc_status_t Cluster::oob_free(OobRequest *req) {
    if (req == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (req->round != nullptr) {
        req->round->reqs[req->rank] = nullptr;
    }
    if (ranks_[req->rank].oob == req) {
        ranks_[req->rank].oob = nullptr;
    }
    delete req;
    return UCC_OK;
}

namespace {

ucc_status_t oob_allgather_cb(void *src_buf, void *recv_buf, size_t size, void *allgather_info,
                              void **request) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c != allgather_info) {
        return UCC_ERR_INVALID_PARAM;
    }
    return c->oob_allgather(src_buf, recv_buf, size, request);
}

ucc_status_t oob_test_cb(void *request) {
    Cluster *c = Cluster::current();
    if (c == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    return c->oob_test(static_cast<OobRequest *>(request));
}

ucc_status_t oob_free_cb(void *request) {
    Cluster *c = Cluster::current();
    if (c == nullptr) {
        // The cluster is gone; the request is no longer referenced by it.
        delete static_cast<OobRequest *>(request);
        return UCC_OK;
    }
    return c->oob_free(static_cast<OobRequest *>(request));
}

}  // namespace

bool Cluster::is_cluster_oob(const ucc_oob_coll_t &oob) const {
    return oob.allgather == oob_allgather_cb && oob.req_test == oob_test_cb &&
           oob.coll_info == this && oob.n_oob_eps == n_ && oob.oob_ep == running_rank();
}

ucc_status_t oob(ucc_oob_coll_t *out) {
    Cluster *c = Cluster::current();
    if (out == nullptr || c == nullptr || c->running_rank() == kNoRank) {
        return UCC_ERR_INVALID_PARAM;
    }
    out->allgather = oob_allgather_cb;
    out->req_test = oob_test_cb;
    out->req_free = oob_free_cb;
    out->coll_info = c;
    out->n_oob_eps = c->size();
    out->oob_ep = c->running_rank();
    return UCC_OK;
}

}  // namespace ucc::sim
