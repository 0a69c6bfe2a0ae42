// The simulator's transport: matching, RMA and time for one endpoint.
#include "transports/sim/sim_transport.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>

#include "transports/sim/timeline.h"

namespace ucc::sim {

namespace {

constexpr size_t kRkeyBytes = 4 * sizeof(uint64_t);
constexpr size_t kWaitLinesMax = 16;

void put_u64(uint8_t *p, uint64_t v) {
    std::memcpy(p, &v, sizeof(v));
}
uint64_t get_u64(const uint8_t *p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

// [addr, addr + bytes) inside [base, base + length), overflow-safe.
bool inside(uint64_t addr, uint64_t bytes, uint64_t base, uint64_t length) {
    return addr >= base && addr - base <= length && bytes <= length - (addr - base);
}

// The rank's local time as it would read now, without touching its state (the
// timeline observes the run, it never changes it).
int64_t peek_clock_ps(Cluster *c, uint32_t r) {
    return std::max(c->rank_state(r).clock_ps, c->now_ps());
}

std::string endpoint_name(const Cluster *c, uint64_t id) {
    std::string s = "endpoint " + std::to_string(id);
    uint32_t r = c == nullptr ? kNoRank : c->rank_of_endpoint(id);
    if (r != kNoRank) {
        s += " (rank " + std::to_string(r) + ")";
    }
    return s;
}

}  // namespace

std::string describe_tag(Tag tag) {
    char buf[96];
    std::snprintf(
        buf, sizeof(buf), "0x%016" PRIx64 " (team=%" PRIu64 " seq=%" PRIu64 " step=%" PRIu64 ")",
        tag, uint64_t{tag::team_of(tag)}, uint64_t{tag::key_of(tag)}, uint64_t{tag::step_of(tag)});
    return buf;
}

std::unique_ptr<ucc::Transport> make_transport() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return nullptr;
    }
    return c->create_endpoint(c->running_rank());
}

namespace {

bool in_simulated_rank(const TransportParams &, std::string *why) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        *why = "not inside a simulated rank (ucc_sim_run)";
        return false;
    }
    return true;
}

std::unique_ptr<RunShare> *run_share() {
    Cluster *c = Cluster::current();
    return c != nullptr && c->running_rank() != kNoRank ? &c->run_share() : nullptr;
}

ucc_status_t create(const TransportParams &p, std::unique_ptr<Transport> *out, std::string *why) {
    if (!in_simulated_rank(p, why)) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    Cluster *c = Cluster::current();
    if (c->fail_allocation(c->running_rank(), AllocSite::kTransport)) {
        *why = "out of memory";
        return UCC_ERR_NO_MEMORY;
    }
    *out = make_transport();
    return UCC_OK;
}

}  // namespace

SimTransport::SimTransport(Cluster *cluster, uint32_t rank, uint64_t id)
    : cluster_(cluster), rank_(rank), id_(id) {}

SimTransport::~SimTransport() {
    if (cluster_ != nullptr) {
        cluster_->remove_endpoint(this);
        release_all();
    }
}

void SimTransport::detach_cluster() {
    if (cluster_ == nullptr) {
        return;
    }
    release_all();
    cluster_ = nullptr;
}

// Returns every queued record to the cluster's pools. Pending Xfers are
// abandoned, never touched again.
void SimTransport::release_all() {
    while (inbox_head_ != nullptr) {
        Message *m = inbox_head_;
        inbox_head_ = m->next;
        cluster_->free_message(m);
    }
    inbox_tail_ = nullptr;
    posted_.for_each([this](const Key &, const RecvQueue &q) {
        for (RecvOp *op = q.head; op != nullptr;) {
            RecvOp *next = op->next;
            if (op->claim != nullptr) {
                op->claim->claim = nullptr;  // it arrives at no endpoint: dropped
            }
            cluster_->recv_ops().put(op);
            op = next;
        }
    });
    posted_.clear();
    unexpected_.for_each([this](const Key &, const MsgQueue &q) {
        for (Message *m = q.head; m != nullptr;) {
            Message *next = m->next;
            cluster_->free_message(m);
            m = next;
        }
    });
    unexpected_.clear();
    for (auto &[peer, p] : rma_) {
        for (FlushOp *op = p.head; op != nullptr;) {
            FlushOp *next = op->next;
            cluster_->flush_ops().put(op);
            op = next;
        }
    }
    rma_.clear();
    regions_.clear();
    posted_count_ = 0;
    unexpected_count_ = 0;
}

// ---- addressing ----

void SimTransport::address(void *out) const {
    std::memcpy(out, &id_, sizeof(id_));
}

ucc_status_t SimTransport::resolve(const void *address, Peer *peer) {
    if (address == nullptr || peer == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    uint64_t id;
    std::memcpy(&id, address, sizeof(id));
    if (cluster_ == nullptr || !cluster_->endpoint_id_valid(id)) {
        return UCC_ERR_NOT_FOUND;
    }
    *peer = id;
    return UCC_OK;
}

// ---- topology: rank r is on node r / ppn (the network model) ----

uint64_t SimTransport::node_key(Peer peer) const {
    if (cluster_ == nullptr || !cluster_->endpoint_id_valid(peer)) {
        return UINT64_MAX;
    }
    return cluster_->net().node_of(cluster_->rank_of_endpoint(peer));
}

bool SimTransport::regular_nodes(Peer first, uint64_t count, uint64_t *world_first,
                                 uint32_t *ppn) const {
    if (cluster_ == nullptr || count == 0 || !cluster_->endpoint_id_valid(first) ||
        !cluster_->endpoint_id_valid(first + count - 1)) {
        return false;
    }
    // Endpoint ids are (context index) * n + rank: one context's ids in a row.
    const uint32_t r = cluster_->rank_of_endpoint(first);
    if (r + count > cluster_->size()) {
        return false;
    }
    *world_first = r;
    *ppn = cluster_->net().ranks_per_node == 0 ? 1 : cluster_->net().ranks_per_node;
    return true;
}

// ---- tagged point-to-point ----

ucc_status_t SimTransport::isend(Peer peer, Tag tag, const void *buf, size_t bytes,
                                 ucc_memory_type_t /*mem*/, Xfer *x) {
    if (x == nullptr || (bytes > 0 && buf == nullptr && !timing_only())) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (cluster_ == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    if (!cluster_->endpoint_id_valid(peer)) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (!dead_.empty() && peer_dead(peer)) [[unlikely]] {
        x->bytes = 0;
        x->status = UCC_ERR_NO_MESSAGE;  // the peer's rank crashed
        return UCC_ERR_NO_MESSAGE;
    }
    Message *m = cluster_->alloc_message();
    m->kind = PacketKind::kTagged;
    m->channel = Channel::kTagged;
    m->src = id_;
    m->dst = peer;
    m->tag = tag;
    m->bytes = bytes;
    m->signature = x->signature;
    m->carried = x->carry;
    m->input = x->input;
    if (bytes > 0 && (!cluster_->timing_only() || m->carried) && !send_into_posted(m, buf)) {
        if (!copy_payload(m, buf)) {
            return UCC_ERR_NO_MEMORY;
        }
        m->counted = true;
        ++cluster_->rank_state(rank_).unclaimed_sends;
    }
    if (Timeline *tl = cluster_->timeline(); tl != nullptr) [[unlikely]] {
        m->flow = tl->on_send(rank_, id_, cluster_->rank_of_endpoint(peer), tag, bytes,
                              peek_clock_ps(cluster_, rank_));
    }
    if (x->trace_req != 0 && cluster_->recording()) [[unlikely]] {
        record_message(*x, true, peer, bytes);
    }
    // A rendezvous send is done when its receiver acknowledges it
    // (kSendAck; a cancel goes kGet's way).
    const uint32_t to = cluster_->rank_of_endpoint(peer);
    const bool rndv = to != kNoRank && cluster_->net().rendezvous(rank_, to, bytes);
    m->xfer = rndv ? x : nullptr;
    launch(m, false);
    const ucc_status_t st = sent(x, bytes);
    if (rndv) {
        x->transport_priv = m;
        x->status = UCC_INPROGRESS;
    }
    return st;
}

bool SimTransport::copy_payload(Message *m, const void *buf) {
    const auto *p = static_cast<const uint8_t *>(buf);
    try {
        m->payload.assign(p, p + m->bytes);  // eager: the simulated wire holds a copy
    } catch (const std::bad_alloc &) {
        cluster_->free_message(m);
        return false;
    }
    return true;
}

void SimTransport::launch(Message *m, bool to_switch) {
    try {
        if (to_switch) {
            cluster_->send_to_switch(rank_, m);
        } else {
            cluster_->send_packet(rank_, m, m->bytes);
        }
    } catch (...) {
        cluster_->free_message(m);  // not scheduled: nobody else holds it
        throw;
    }
}

void SimTransport::taken(Message *m) {
    if (m->xfer != nullptr) {
        cluster_->send_ack(rank_, m);  // a rendezvous: its sender waits for this
    } else {
        cluster_->free_message(m);
    }
}

ucc_status_t SimTransport::sent(Xfer *x, size_t bytes) {
    ++stats_.msgs_sent;
    stats_.bytes_sent += bytes;
    x->transport_priv = nullptr;
    x->bytes = bytes;
    x->status = UCC_OK;
    return UCC_OK;
}

bool SimTransport::reduces_in_network() const {
    return cluster_ != nullptr && cluster_->net().reduces_in_network();
}

ucc_status_t SimTransport::reduce_in_network(Peer first, Tag tag, uint32_t member, uint32_t members,
                                             const void *buf, uint64_t count, size_t bytes,
                                             Combine combine, Xfer *x) {
    if (x == nullptr || member >= members || (bytes > 0 && buf == nullptr && !timing_only())) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (cluster_ == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    if (!cluster_->net().reduces_in_network()) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    if (!cluster_->endpoint_id_valid(first)) {
        return UCC_ERR_INVALID_PARAM;
    }
    Message *m = cluster_->alloc_message();
    m->kind = PacketKind::kSwitch;
    m->channel = Channel::kTagged;
    m->src = id_;
    m->dst = first;
    m->tag = tag;
    m->bytes = bytes;
    m->value = count;
    m->member = member;
    m->members = members;
    m->combine = combine;
    if (bytes > 0 && !cluster_->timing_only() && !copy_payload(m, buf)) {
        return UCC_ERR_NO_MEMORY;
    }
    if (x->trace_req != 0 && cluster_->recording()) [[unlikely]] {
        record_message(*x, true, id_, bytes);  // out to the switches and back to itself
    }
    launch(m, true);
    return sent(x, bytes);
}

// The receive a message will match is the first one posted for its key that
// no earlier message claimed, provided no earlier message on that key is on
// its way unclaimed (messages on one key arrive in order): the sender's rank
// has none of those at all when its count of unclaimed sends is 0. Writing the
// bytes now instead of at the arrival changes nothing the program may look at:
// a receive's buffer is the transport's until the receive completes, and the
// arrival, its time and its trace stay where they were.
bool SimTransport::send_into_posted(Message *m, const void *buf) {
    if (cluster_->rank_state(rank_).unclaimed_sends != 0) {
        return false;
    }
    SimTransport *to = cluster_->endpoint(m->dst);
    if (to == nullptr) {
        return false;
    }
    RecvOp *op = to->first_unclaimed(Key{id_, m->tag});
    if (op == nullptr || m->bytes > op->capacity ||
        (m->signature != 0 && op->x->signature != 0 && m->signature != op->x->signature)) {
        return false;  // nothing to claim, or an error the arrival reports
    }
    std::memmove(op->buf, buf, m->bytes);
    op->claim = m;
    m->claim = op;
    ++stats_.direct;
    return true;
}

RecvOp *SimTransport::first_unclaimed(const Key &key) {
    RecvQueue *q = posted_.find(key);
    RecvOp *op = q != nullptr ? q->head : nullptr;
    while (op != nullptr && op->claim != nullptr) {
        op = op->next;
    }
    return op;
}

void SimTransport::unclaim(RecvOp *op) {
    Message *m = op->claim;
    op->claim = nullptr;
    m->claim = nullptr;
    const auto *p = static_cast<const uint8_t *>(op->buf);
    try {
        m->payload.assign(p, p + m->bytes);
    } catch (const std::bad_alloc &) {
        m->status = UCC_ERR_NO_MEMORY;  // its receive fails with it
    }
    m->counted = true;
    ++cluster_->rank_state(cluster_->rank_of_endpoint(m->src)).unclaimed_sends;
}

ucc_status_t SimTransport::match(const Message &m, void *buf, size_t capacity, Xfer *x) {
    if (Timeline *tl = cluster_->timeline(); tl != nullptr) [[unlikely]] {
        tl->on_recv(rank_, id_, m.tag, m.bytes, m.flow, peek_clock_ps(cluster_, rank_));
    }
    const NetworkModel &net = cluster_->net();
    const uint32_t from = cluster_->rank_of_endpoint(m.src);
    // A result of the switches (members != 0) came from the network, not
    // through this node's memory; a pulled message is copied here (cma).
    const uint32_t sender = from == kNoRank ? rank_ : from;
    // A pull reads the sender's bytes and writes the receiver's: its own
    // working set is its bytes twice at least, whatever the receiver's
    // buffers of the collective are (a bcast's one buffer).
    const uint64_t working =
        std::max(x->working_set, m.bytes > UINT64_MAX / 2 ? UINT64_MAX : 2 * m.bytes);
    cluster_->advance(
        rank_, net.o_recv_ps + (m.members != 0
                                    ? 0
                                    : net.bcopy_ps(sender, rank_, m.bytes) +
                                          net.cma_ps(sender, rank_, m.bytes, working, m.input)));
    ++stats_.msgs_recv;
    if (m.signature != 0 && x->signature != 0 && m.signature != x->signature) {
        // The two sides run different operations under one tag: desync.
        x->peer_signature = m.signature;
        x->bytes = 0;
        return UCC_ERR_INVALID_PARAM;
    }
    if (m.bytes > capacity) {
        x->bytes = m.bytes;  // the caller names the length it did not expect
        return UCC_ERR_NO_MESSAGE;
    }
    if (m.status != UCC_OK) {
        x->bytes = 0;
        return m.status;
    }
    if (m.bytes > 0 && (!cluster_->timing_only() || m.carried)) {
        if (m.claim == nullptr) {
            std::memcpy(buf, m.payload.data(), m.bytes);
        } else if (m.claim->buf != buf) [[unlikely]] {
            std::memmove(buf, m.claim->buf, m.bytes);  // not the receive it claimed
        }
    }
    if (x->trace_req != 0 && cluster_->recording()) [[unlikely]] {
        record_message(*x, false, m.src, m.bytes);
    }
    stats_.bytes_recv += m.bytes;
    x->bytes = m.bytes;
    return UCC_OK;
}

ucc_status_t SimTransport::irecv(Peer peer, Tag tag, void *buf, size_t bytes,
                                 ucc_memory_type_t /*mem*/, Xfer *x) {
    if (x == nullptr || (bytes > 0 && buf == nullptr && !timing_only())) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (cluster_ == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    x->bytes = 0;
    x->transport_priv = nullptr;
    Key key{peer, tag};
    // The oldest unexpected message with this key, if any.
    if (MsgQueue *uq = unexpected_.find(key); uq != nullptr) {
        Message *m = uq->head;
        uq->head = m->next;
        if (uq->head == nullptr) {
            unexpected_.erase(key);
        }
        --unexpected_count_;
        x->status = match(*m, buf, bytes, x);
        taken(m);
        return UCC_OK;
    }
    if (!dead_.empty() && peer_dead(peer)) [[unlikely]] {
        x->status = UCC_ERR_NO_MESSAGE;  // nothing more will come from a crashed rank
        return UCC_ERR_NO_MESSAGE;
    }
    RecvQueue *qp = &posted_[key];  // may allocate: before the op, which then cannot leak
    RecvOp *op = nullptr;
    try {
        op = cluster_->recv_ops().get();
    } catch (...) {
        if (qp->head == nullptr) {
            posted_.erase(key);
        }
        throw;
    }
    op->x = x;
    op->buf = buf;
    op->capacity = bytes;
    op->claim = nullptr;
    op->peer = peer;
    op->tag = tag;
    RecvQueue &q = *qp;
    op->prev = q.tail;
    op->next = nullptr;
    if (q.tail != nullptr) {
        q.tail->next = op;
    } else {
        q.head = op;
    }
    q.tail = op;
    ++posted_count_;
    x->status = UCC_INPROGRESS;
    x->transport_priv = static_cast<OpBase *>(op);
    return UCC_OK;
}

void SimTransport::peer_down(uint64_t peer) {
    if (peer_dead(peer)) {
        return;
    }
    dead_.push_back(peer);
    std::vector<Key> keys;
    posted_.for_each([&](const Key &k, const RecvQueue &) {
        if (k.first == peer) {
            keys.push_back(k);
        }
    });
    for (const Key &k : keys) {
        RecvOp *op = posted_.find(k)->head;
        posted_.erase(k);
        while (op != nullptr) {
            RecvOp *next = op->next;
            Xfer *x = op->x;
            --posted_count_;
            if (op->claim != nullptr) {
                unclaim(op);
            }
            cluster_->recv_ops().put(op);
            x->transport_priv = nullptr;
            x->bytes = 0;
            complete(x, UCC_ERR_NO_MESSAGE);
            op = next;
        }
    }
    peer_failed_notify(peer);
}

void SimTransport::cancel(Xfer *x) {
    if (x != nullptr && !x->done() && cancel_watch(x)) {
        return;
    }
    if (x == nullptr || x->done() || x->transport_priv == nullptr || cluster_ == nullptr) {
        return;
    }
    auto *base = static_cast<OpBase *>(x->transport_priv);
    x->transport_priv = nullptr;
    switch (base->op_kind) {
        case OpKind::kRecv: {
            auto *op = static_cast<RecvOp *>(base);
            const Key key{op->peer, op->tag};
            RecvQueue *q = posted_.find(key);
            if (q == nullptr) {
                return;
            }
            (op->prev != nullptr ? op->prev->next : q->head) = op->next;
            (op->next != nullptr ? op->next->prev : q->tail) = op->prev;
            if (q->head == nullptr) {
                posted_.erase(key);
            }
            --posted_count_;
            if (op->claim != nullptr) {
                unclaim(op);
            }
            cluster_->recv_ops().put(op);
            return;
        }
        case OpKind::kGet: {
            // The request/reply stays in flight; its reply is dropped.
            static_cast<Message *>(base)->xfer = nullptr;
            return;
        }
        case OpKind::kFlush: {
            auto *op = static_cast<FlushOp *>(base);
            auto it = rma_.find(op->peer);
            if (it == rma_.end()) {
                return;
            }
            RmaPeer &p = it->second;
            (op->prev != nullptr ? op->prev->next : p.head) = op->next;
            (op->next != nullptr ? op->next->prev : p.tail) = op->prev;
            if (p.head == nullptr && p.acked == p.issued) {
                rma_.erase(it);
            }
            cluster_->flush_ops().put(op);
            return;
        }
    }
}

bool SimTransport::recording() const {
    return cluster_ != nullptr && cluster_->recording();
}

void SimTransport::record(TraceEvent &e) {
    if (cluster_ != nullptr) {
        cluster_->record(rank_, e);
    }
}

bool SimTransport::fail_allocation(AllocSite site) {
    return cluster_ != nullptr && cluster_->fail_allocation(rank_, site);
}

size_t SimTransport::pending_ops(Tag base, Tag mask) const {
    size_t n = 0;
    posted_.for_each([&](const Key &key, const RecvQueue &q) {
        if ((key.second & mask) == base) {
            for (const RecvOp *op = q.head; op != nullptr; op = op->next) {
                ++n;
            }
        }
    });
    unexpected_.for_each([&](const Key &key, const MsgQueue &q) {
        if ((key.second & mask) == base) {
            for (const Message *m = q.head; m != nullptr; m = m->next) {
                ++n;
            }
        }
    });
    return n;
}

uint32_t SimTransport::thread() const {
    return cluster_ != nullptr ? cluster_->thread_of(rank_) : 0;
}

void SimTransport::yield_thread(bool blocked) {
    if (cluster_ != nullptr) {
        cluster_->yield_thread(rank_, blocked);
    }
}

void SimTransport::record_message(const Xfer &x, bool send, uint64_t peer_endpoint, size_t bytes) {
    TraceEvent e;
    e.kind = send ? TraceKind::kSend : TraceKind::kRecv;
    e.req = x.trace_req;
    e.peer = cluster_->rank_of_endpoint(peer_endpoint);
    e.bytes = bytes;
    cluster_->record(rank_, e);
    if (x.trace_buffer != TraceBuffer::kNone && bytes > 0) {
        TraceEvent a;
        a.kind = TraceKind::kAccess;
        a.req = x.trace_req;
        a.buffer = x.trace_buffer;
        a.write = !send;
        a.offset = x.trace_offset;
        a.bytes = bytes;
        cluster_->record(rank_, a);
    }
}

size_t SimTransport::posted_receives() const {
    return posted_count_;
}
size_t SimTransport::unexpected_messages() const {
    return unexpected_count_;
}

// ---- RMA ----

ucc_status_t SimTransport::mem_register(void *base, size_t length, MemRegion *region) {
    if (region == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (cluster_ == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    uint64_t id = next_region_++;
    regions_[id] = Region{reinterpret_cast<uint64_t>(base), length};
    region->base = base;
    region->length = length;
    region->transport_priv = reinterpret_cast<void *>(static_cast<uintptr_t>(id));
    return UCC_OK;
}

void SimTransport::mem_deregister(MemRegion *region) {
    if (region == nullptr) {
        return;
    }
    regions_.erase(reinterpret_cast<uintptr_t>(region->transport_priv));
    region->transport_priv = nullptr;
}

// rkey = endpoint id, region id, base, length (4 x 8 bytes, host order).
std::vector<uint8_t> SimTransport::rkey_pack(const MemRegion &region) {
    std::vector<uint8_t> k(kRkeyBytes);
    put_u64(k.data(), id_);
    put_u64(k.data() + 8, reinterpret_cast<uintptr_t>(region.transport_priv));
    put_u64(k.data() + 16, reinterpret_cast<uint64_t>(region.base));
    put_u64(k.data() + 24, region.length);
    return k;
}

ucc_status_t SimTransport::check_rkey(Peer peer, uint64_t remote_addr, size_t bytes,
                                      const std::vector<uint8_t> &rkey, uint64_t *region) const {
    if (rkey.size() != kRkeyBytes || get_u64(rkey.data()) != peer ||
        !cluster_->endpoint_id_valid(peer)) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (!inside(remote_addr, bytes, get_u64(rkey.data() + 16), get_u64(rkey.data() + 24))) {
        return UCC_ERR_INVALID_PARAM;
    }
    *region = get_u64(rkey.data() + 8);
    return UCC_OK;
}

// The request packet of an RMA operation whose arguments check out (the key
// names the peer and covers the range); nullptr with *st saying what does not.
Message *SimTransport::rma_request(PacketKind kind, Peer peer, size_t bytes, uint64_t remote_addr,
                                   const std::vector<uint8_t> &rkey, Xfer *x, ucc_status_t *st) {
    if (x == nullptr) {
        *st = UCC_ERR_INVALID_PARAM;
        return nullptr;
    }
    if (cluster_ == nullptr) {
        *st = UCC_ERR_NO_RESOURCE;
        return nullptr;
    }
    uint64_t region = 0;
    if (*st = check_rkey(peer, remote_addr, bytes, rkey, &region); *st != UCC_OK) {
        return nullptr;
    }
    Message *m = cluster_->alloc_message();
    m->kind = kind;
    m->channel = Channel::kRmaRequest;
    m->src = id_;
    m->dst = peer;
    m->bytes = bytes;
    m->remote_addr = remote_addr;
    m->region = region;
    return m;
}

ucc_status_t SimTransport::put(Peer peer, const void *src, size_t bytes, uint64_t remote_addr,
                               const std::vector<uint8_t> &rkey, Xfer *x) {
    if (bytes > 0 && src == nullptr && !timing_only()) {
        return UCC_ERR_INVALID_PARAM;
    }
    ucc_status_t st = UCC_OK;
    Message *m = rma_request(PacketKind::kPut, peer, bytes, remote_addr, rkey, x, &st);
    if (m == nullptr) {
        return st;
    }
    if (bytes > 0 && !cluster_->timing_only()) {
        const auto *p = static_cast<const uint8_t *>(src);
        try {
            m->payload.assign(p, p + bytes);
        } catch (const std::bad_alloc &) {
            cluster_->free_message(m);
            return UCC_ERR_NO_MEMORY;
        }
    }
    ++rma_[peer].issued;
    cluster_->send_packet(rank_, m, bytes);
    ++stats_.puts;
    stats_.bytes_sent += bytes;
    x->transport_priv = nullptr;
    x->bytes = bytes;
    x->status = UCC_OK;
    return UCC_OK;
}

ucc_status_t SimTransport::get(Peer peer, void *dst, size_t bytes, uint64_t remote_addr,
                               const std::vector<uint8_t> &rkey, Xfer *x) {
    if (bytes > 0 && dst == nullptr && !timing_only()) {
        return UCC_ERR_INVALID_PARAM;
    }
    ucc_status_t st = UCC_OK;
    Message *m = rma_request(PacketKind::kGetRequest, peer, bytes, remote_addr, rkey, x, &st);
    if (m == nullptr) {
        return st;
    }
    m->local_buf = dst;
    m->xfer = x;
    x->bytes = 0;
    x->status = UCC_INPROGRESS;
    x->transport_priv = static_cast<OpBase *>(m);
    ++gets_in_flight_;
    ++stats_.gets;
    cluster_->send_packet(rank_, m, 0);
    return UCC_OK;
}

ucc_status_t SimTransport::atomic_add(Peer peer, uint64_t remote_addr, uint64_t value,
                                      const std::vector<uint8_t> &rkey, Xfer *x) {
    ucc_status_t st = UCC_OK;
    Message *m =
        rma_request(PacketKind::kAtomic, peer, sizeof(uint64_t), remote_addr, rkey, x, &st);
    if (m == nullptr) {
        return st;
    }
    m->value = value;
    ++rma_[peer].issued;
    cluster_->send_packet(rank_, m, sizeof(uint64_t));
    ++stats_.atomics;
    x->transport_priv = nullptr;
    x->bytes = sizeof(uint64_t);
    x->status = UCC_OK;
    return UCC_OK;
}

ucc_status_t SimTransport::flush(Peer peer, Xfer *x) {
    if (x == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (cluster_ == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    ++stats_.flushes;
    x->bytes = 0;
    x->transport_priv = nullptr;
    auto it = rma_.find(peer);
    if (it == rma_.end() || it->second.acked == it->second.issued) {
        ucc_status_t st = it == rma_.end() ? UCC_OK : it->second.error;
        if (it != rma_.end() && it->second.head == nullptr) {
            rma_.erase(it);
        }
        x->status = st;
        return UCC_OK;
    }
    RmaPeer &p = it->second;
    FlushOp *op = cluster_->flush_ops().get();
    op->x = x;
    op->peer = peer;
    op->target = p.issued;
    op->prev = p.tail;
    op->next = nullptr;
    if (p.tail != nullptr) {
        p.tail->next = op;
    } else {
        p.head = op;
    }
    p.tail = op;
    x->status = UCC_INPROGRESS;
    x->transport_priv = static_cast<OpBase *>(op);
    return UCC_OK;
}

// Target side, applied by the event loop when the operation arrives.
ucc_status_t SimTransport::apply_put(const Message &m) {
    auto it = regions_.find(m.region);
    if (it == regions_.end() ||
        !inside(m.remote_addr, m.bytes, it->second.base, it->second.length)) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (m.bytes > 0 && cluster_ != nullptr && !cluster_->timing_only()) {
        std::memcpy(reinterpret_cast<void *>(m.remote_addr), m.payload.data(), m.bytes);
    }
    return UCC_OK;
}

ucc_status_t SimTransport::apply_atomic(const Message &m) {
    auto it = regions_.find(m.region);
    if (it == regions_.end() ||
        !inside(m.remote_addr, sizeof(uint64_t), it->second.base, it->second.length)) {
        return UCC_ERR_INVALID_PARAM;
    }
    // Applied even in timing-only mode: 8 bytes of control data that
    // one-sided algorithms may poll on.
    if (m.remote_addr != 0) {
        uint64_t v;
        std::memcpy(&v, reinterpret_cast<const void *>(m.remote_addr), sizeof(v));
        v += m.value;
        std::memcpy(reinterpret_cast<void *>(m.remote_addr), &v, sizeof(v));
    }
    return UCC_OK;
}

ucc_status_t SimTransport::read_for_get(Message *m) {
    auto it = regions_.find(m->region);
    if (it == regions_.end() ||
        !inside(m->remote_addr, m->bytes, it->second.base, it->second.length)) {
        return UCC_ERR_INVALID_PARAM;
    }
    if (m->bytes > 0 && cluster_ != nullptr && !cluster_->timing_only()) {
        const auto *p = reinterpret_cast<const uint8_t *>(m->remote_addr);
        m->payload.assign(p, p + m->bytes);
    }
    return UCC_OK;
}

void SimTransport::handle_ack(Message *m) {
    auto it = rma_.find(m->src);
    ucc_status_t st = m->status;
    cluster_->free_message(m);
    if (it == rma_.end()) {
        return;
    }
    RmaPeer &p = it->second;
    ++p.acked;
    if (st != UCC_OK && p.error == UCC_OK) {
        p.error = st;
    }
}

// ---- progress and time ----

void SimTransport::push_inbox(Message *m) {
    m->next = nullptr;
    if (inbox_tail_ != nullptr) {
        inbox_tail_->next = m;
    } else {
        inbox_head_ = m;
    }
    inbox_tail_ = m;
}

int SimTransport::progress() {
    if (cluster_ == nullptr) {
        return 0;
    }
    int completed = watching() ? poll_watches() : 0;
    while (inbox_head_ != nullptr) {
        Message *m = inbox_head_;
        inbox_head_ = m->next;
        if (inbox_head_ == nullptr) {
            inbox_tail_ = nullptr;
        }
        m->next = nullptr;
        switch (m->kind) {
            case PacketKind::kTagged: {
                cluster_->taken_in(m);
                Key key{m->src, m->tag};
                RecvQueue *pq = posted_.find(key);
                if (pq == nullptr) {
                    MsgQueue &q = unexpected_[key];
                    if (q.tail != nullptr) {
                        q.tail->next = m;
                    } else {
                        q.head = m;
                    }
                    q.tail = m;
                    ++unexpected_count_;
                    ++stats_.unexpected;
                    break;
                }
                RecvOp *op = pq->head;
                pq->head = op->next;
                if (op->next != nullptr) {
                    op->next->prev = nullptr;
                } else {
                    posted_.erase(key);
                }
                --posted_count_;
                Xfer *x = op->x;
                ucc_status_t st = match(*m, op->buf, op->capacity, x);
                if (m->claim != nullptr) {
                    m->claim->claim = nullptr;
                    m->claim = nullptr;
                }
                cluster_->recv_ops().put(op);
                taken(m);
                x->transport_priv = nullptr;
                complete(x, st);
                ++completed;
                break;
            }
            case PacketKind::kSendAck: {
                Xfer *x = m->xfer;
                cluster_->free_message(m);
                if (x != nullptr) {  // not cancelled
                    x->transport_priv = nullptr;
                    complete(x, UCC_OK);
                    ++completed;
                }
                break;
            }
            case PacketKind::kGetReply: {
                --gets_in_flight_;
                Xfer *x = m->xfer;
                if (x == nullptr) {  // cancelled
                    cluster_->free_message(m);
                    break;
                }
                ucc_status_t st = m->status;
                if (st == UCC_OK && m->bytes > 0 && (!cluster_->timing_only() || m->carried)) {
                    std::memcpy(m->local_buf, m->payload.data(), m->bytes);
                }
                x->bytes = st == UCC_OK ? m->bytes : 0;
                x->transport_priv = nullptr;
                stats_.bytes_recv += x->bytes;
                cluster_->free_message(m);
                complete(x, st);
                ++completed;
                break;
            }
            case PacketKind::kRmaAck: {
                Peer peer = m->src;
                handle_ack(m);
                // Complete the flushes whose operations are all acknowledged, in order.
                for (;;) {
                    auto it = rma_.find(peer);
                    if (it == rma_.end()) {
                        break;
                    }
                    RmaPeer &p = it->second;
                    FlushOp *op = p.head;
                    if (op == nullptr || op->target > p.acked) {
                        if (op == nullptr && p.acked == p.issued) {
                            rma_.erase(it);
                        }
                        break;
                    }
                    p.head = op->next;
                    if (p.head != nullptr) {
                        p.head->prev = nullptr;
                    } else {
                        p.tail = nullptr;
                    }
                    Xfer *x = op->x;
                    ucc_status_t st = p.error;
                    cluster_->flush_ops().put(op);
                    x->transport_priv = nullptr;
                    complete(x, st);
                    ++completed;
                }
                break;
            }
            case PacketKind::kPeerDown: {
                const uint64_t peer = m->src;
                cluster_->free_message(m);
                const size_t before = posted_count_;
                peer_down(peer);
                completed += static_cast<int>(before - posted_count_);
                break;
            }
            default:
                cluster_->free_message(m);
                break;
        }
    }
    if (completed == 0) {
        cluster_->count_empty_poll(rank_);
    }
    return completed;
}

const ucc::cost::Params *SimTransport::cost_params() const {
    return cluster_ == nullptr ? nullptr : &cluster_->cost();
}

ucc::select::MemoBook *SimTransport::memo_book() {
    return cluster_ == nullptr ? nullptr : &cluster_->memos();
}

double SimTransport::now() const {
    if (cluster_ == nullptr) {
        return 0;
    }
    return static_cast<double>(cluster_->clock_ps(rank_)) / 1e12;
}

ucc_status_t SimTransport::exchange_post(const ucc_oob_coll_t &oob, uint64_t value, uint64_t check,
                                         void **req) {
    // Only for the cluster's own all-ranks OOB, where OOB ep == rank.
    if (cluster_ == nullptr || !cluster_->is_cluster_oob(oob) || req == nullptr) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    OobRequest *r = nullptr;
    UCC_TRY(cluster_->exchange_start(id_, value, check, &r));
    *req = r;
    return UCC_OK;
}

ucc_status_t SimTransport::exchange_test(void *req, Exchange *out) {
    auto *r = static_cast<OobRequest *>(req);
    ucc_status_t st = cluster_->oob_test(r);
    if (st == UCC_INPROGRESS) {
        return st;
    }
    if (st == UCC_OK) {
        out->table = r->table;
        out->start = r->start;
        out->stride = r->stride;
        out->max_value = r->max_value;
        out->checks_agree = r->checks_agree;
    }
    cluster_->oob_free(r);
    return st;
}

void SimTransport::exchange_cancel(void *req) {
    cluster_->oob_free(static_cast<OobRequest *>(req));
}

bool SimTransport::find_conflict(Tag base, Tag mask, uint64_t signature, Peer *peer,
                                 uint64_t *theirs) const {
    // Peers and tags in ascending order, so the answer is deterministic.
    bool found = false;
    unexpected_.for_each([&](const Key &key, const MsgQueue &q) {
        if (found || (key.second & mask) != (base & mask)) {
            return;
        }
        for (const Message *m = q.head; m != nullptr; m = m->next) {
            if (m->signature != 0 && m->signature != signature) {
                *peer = key.first;
                *theirs = m->signature;
                found = true;
                return;
            }
        }
    });
    return found;
}

void SimTransport::idle(double deadline) {
    if (cluster_ == nullptr || inbox_head_ != nullptr) {
        return;  // messages wait to be matched: the caller has work to do
    }
    cluster_->idle(rank_, deadline, /*lazy=*/true);
}

void SimTransport::idle_draining(ucc::Drain &d) {
    if (cluster_ == nullptr || inbox_head_ != nullptr) {
        return;  // messages wait to be matched: the caller has work to do
    }
    cluster_->idle_draining(rank_, this, &d);
}

bool SimTransport::can_wait() const {
    return cluster_ == nullptr || !cluster_->fiberless();
}

void SimTransport::charge(Work kind, size_t bytes, uint64_t working) {
    if (cluster_ == nullptr) {
        return;
    }
    const NetworkModel &net = cluster_->net();
    int64_t ps = 0;
    switch (kind) {
        case Work::kCopy:
            ps = net.copy_ps(bytes, working);
            break;
        case Work::kReduce:
            ps = net.reduce_ps(bytes, working);
            break;
        case Work::kCall:
            ps = net.o_call_ps;
            break;
        case Work::kInit:
            ps = net.o_init_ps;
            break;
        case Work::kDeviceCopy:
            ps = net.pcie_ps(bytes);
            break;
        case Work::kGpuCopy:
        case Work::kGpuPeerCopy:
            ps = net.gpu_copy_ps(bytes, kind == Work::kGpuPeerCopy);
            break;
    }
    // Work that may cost nothing is not charged at all (a zero charge still
    // books the rank's core); copies and reductions on the CPU always are.
    if (ps == 0 && kind != Work::kCopy && kind != Work::kReduce && kind != Work::kCall) {
        return;
    }
    cluster_->advance(rank_, ps);
}

void SimTransport::charge_gpu_fold(size_t bytes, uint32_t inputs, uint32_t peers) {
    if (cluster_ == nullptr) {
        return;
    }
    const int64_t ps = cluster_->net().gpu_fold_ps(bytes, inputs, peers);
    if (ps != 0) {  // (free device work books nothing)
        cluster_->advance(rank_, ps);
    }
}

bool SimTransport::wants_working_set() const {
    return cluster_ != nullptr && cluster_->net().cache_bytes != 0;
}

bool SimTransport::wants_inputs() const {
    return cluster_ != nullptr && cluster_->net().written_pulls() && !cluster_->inputs_written();
}

void SimTransport::trace_begin(const SpanInfo &span) {
    if (cluster_ == nullptr) {
        return;
    }
    cluster_->rank_state(rank_).last_algorithm = span.algorithm;
    if (Timeline *tl = cluster_->timeline(); tl != nullptr) [[unlikely]] {
        tl->span_begin(rank_, id_, span, peek_clock_ps(cluster_, rank_));
    }
}

void SimTransport::trace_end(const SpanInfo &span, ucc_status_t status) {
    if (cluster_ == nullptr) {
        return;
    }
    if (Timeline *tl = cluster_->timeline(); tl != nullptr) [[unlikely]] {
        tl->span_end(rank_, id_, span, status, peek_clock_ps(cluster_, rank_));
    }
}

void SimTransport::trace_stream(uint32_t stream, StreamMark mark, const SpanInfo &span,
                                ucc_status_t status) {
    Timeline *tl = cluster_ != nullptr ? cluster_->timeline() : nullptr;
    if (tl == nullptr) [[likely]] {
        return;
    }
    const int64_t t = peek_clock_ps(cluster_, rank_);
    switch (mark) {
        case StreamMark::kQueued:
            tl->stream_queued(rank_, stream, span.collective, t);
            break;
        case StreamMark::kBegin:
            tl->stream_begin(rank_, stream, span.collective, t);
            break;
        case StreamMark::kEnd:
            tl->stream_end(rank_, stream, span, status, t);
            break;
    }
}

bool SimTransport::timing_only() const {
    return cluster_ != nullptr && cluster_->timing_only();
}

bool SimTransport::aborted() const {
    return cluster_ == nullptr || cluster_->aborted();
}

// ---- reports ----

void SimTransport::describe_waits(std::string *out) const {
    std::string me = "    endpoint " + std::to_string(id_) + ": ";
    size_t lines = 0;
    size_t omitted = 0;
    auto line = [&](const std::string &s) {
        if (lines < kWaitLinesMax) {
            *out += me + s + "\n";
            ++lines;
        } else {
            ++omitted;
        }
    };
    posted_.for_each([&](const Key &key, const RecvQueue &q) {
        for (const RecvOp *op = q.head; op != nullptr; op = op->next) {
            line("waits in irecv from " + endpoint_name(cluster_, key.first) + " tag " +
                 describe_tag(key.second) + ", " + std::to_string(op->capacity) + " bytes posted");
        }
    });
    unexpected_.for_each([&](const Key &key, const MsgQueue &q) {
        for (const Message *m = q.head; m != nullptr; m = m->next) {
            line("holds an unexpected message from " + endpoint_name(cluster_, key.first) +
                 " tag " + describe_tag(key.second) + ", " + std::to_string(m->bytes) + " bytes");
        }
    });
    for (const auto &[peer, p] : rma_) {
        if (p.head != nullptr) {
            line("flush to " + endpoint_name(cluster_, peer) +
                 " waits: " + std::to_string(p.acked) + " of " + std::to_string(p.issued) +
                 " RMA operations acknowledged");
        }
    }
    if (gets_in_flight_ > 0) {
        line(std::to_string(gets_in_flight_) + " get(s) in flight");
    }
    if (omitted > 0) {
        *out += me + "... and " + std::to_string(omitted) + " more\n";
    }
}

}  // namespace ucc::sim

namespace ucc {
extern const TransportEntry kTransport_sim;
const TransportEntry kTransport_sim{
    "sim",
    nullptr,
    "simulated cluster: virtual time, modelled network (inside ucc_sim_run)",
    sim::in_simulated_rank,
    sim::create,
    sim::run_share};
}  // namespace ucc
