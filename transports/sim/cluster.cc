// The simulated cluster: fibers, the deterministic scheduler, the event loop
// and the network timing. Elsewhere: the OOB (cluster_oob.cc), reports and
// diagnosis (cluster_report.cc), the public functions (cluster_api.cc), fiber
// stacks (stack_pool.cc), the PRNG (rng.h), a rank's threads (sim_threads.cc).
#include "transports/sim/cluster.h"

#include <algorithm>
#include <boost/context/detail/exception.hpp>
#include <boost/context/fiber.hpp>
#include <cmath>
#include <limits>
#include <new>
#include <utility>

#include "transports/sim/cluster_internal.h"
#include "transports/sim/fiber_switch.h"
#include "transports/sim/sim_transport.h"
#include "transports/sim/stack_pool.h"

namespace ucc::sim {

namespace {

thread_local Cluster *tls_cluster = nullptr;

// Guard pages cost one extra memory mapping per stack; the kernel allows
// about 65,530 per process, so big clusters run without them.
constexpr uint32_t kGuardRanksMax = 8192;
// Payload buffers of freed messages are kept for reuse (a fresh buffer costs
// page faults): each up to 4 MiB, all of them up to 256 MiB.
constexpr size_t kPayloadKeepBytes = 4ull << 20;
constexpr size_t kPayloadPoolBytes = 256ull << 20;

uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

// ---------------------------------------------------------------------------
// Cluster
// ---------------------------------------------------------------------------

size_t Cluster::OrderKeyHash::operator()(const OrderKey &k) const {
    uint64_t h = mix64(k.src * 0x9e3779b97f4a7c15ull + k.dst);
    h = mix64(h ^ k.tag);
    return static_cast<size_t>(mix64(h + static_cast<uint64_t>(k.channel)));
}

Cluster::Cluster(const ClusterParams &p, std::function<void(uint32_t)> program)
    : params_(p),
      cost_(net::cost_params(p.net)),
      program_(std::move(program)),
      n_(p.n_ranks),
      rng_(p.seed),
      fault_rng_(p.seed ^ 0x7370696b65ull),
      thread_rng_(p.seed ^ 0x746872656164ull),
      ranks_(p.n_ranks),
      nodes_(p.net.shares_nic() || p.net.node_bw_bps != 0 ? p.net.nodes(p.n_ranks) : 0),
      ports_in_(p.n_ranks),
      primary_(p.n_ranks, nullptr),
      stacks_(new StackPool(p.stack_bytes, p.n_ranks <= kGuardRanksMax)),
      hash_(0xcbf29ce484222325ull) {
    const double sp = p.faults.spike_p;
    if (sp > 0 && p.faults.spike_s > 0) {
        spike_threshold_ =
            sp >= 1 ? UINT64_MAX : static_cast<uint64_t>(sp * 18446744073709551616.0);
        spike_ps_ = std::max<int64_t>(1, static_cast<int64_t>(p.faults.spike_s * 1e12));
    }
    const uint32_t ppn = p.net.ranks_per_node == 0 ? p.n_ranks : p.net.ranks_per_node;
    if (p.net.cores != 0 && std::min(ppn, p.n_ranks) > p.net.cores) {
        cores_.resize(static_cast<size_t>(p.net.nodes(p.n_ranks)) * p.net.cores);
    }
    if (const int64_t period = p.net.noise_period_ps(); period != 0) {
        Rng phases(p.seed ^ 0x6e6f697365ull);  // a stream of its own
        noise_phase_.resize(p.net.nodes(p.n_ranks));
        for (int64_t &phase : noise_phase_) {
            phase = static_cast<int64_t>(phases.upto(static_cast<uint64_t>(period - 1)));
        }
    }
}

// Detour k of a node takes [phase + k P, phase + k P + D). Work that starts
// inside one starts at its end; every detour that begins before the work
// is done lengthens it by D. In closed form: the work left after the next
// detour begins fills windows of P - D, one period each.
int64_t Cluster::noisy_end(uint32_t r, int64_t start, int64_t cpu) const {
    const NetworkModel &net = params_.net;
    const int64_t period = net.noise_period_ps();
    const int64_t d = net.noise_ps;
    const int64_t phase = noise_phase_[net.node_of(r)];
    const int64_t since = start - phase;
    const int64_t detour =
        phase + (since >= 0 ? since / period : -((-since + period - 1) / period)) *
                    period;  // the last detour to begin at or before start
    start = std::max(start, detour + d);
    const int64_t next = detour + period;
    if (cpu <= next - start) {
        return start + cpu;
    }
    const int64_t left = cpu - (next - start);
    const int64_t window = period - d;
    const int64_t whole = (left - 1) / window;  // windows filled before the last one
    const __int128 end = static_cast<__int128>(next) + d + static_cast<__int128>(whole) * period +
                         (left - whole * window);
    return end > INT64_MAX ? INT64_MAX : static_cast<int64_t>(end);
}

Cluster::~Cluster() {
    for (SimTransport *ep : primary_) {
        if (ep != nullptr) {
            ep->detach_cluster();
        }
    }
    for (const auto &[id, ep] : extra_) {
        ep->detach_cluster();
    }
    for (RankState &rs : ranks_) {
        delete rs.hooks;
    }
    stacks_->unref();
}

Cluster *Cluster::current() {
    return tls_cluster;
}

uint32_t Cluster::running_rank() const {
    return running_;
}

int64_t Cluster::clock_ps(uint32_t r) {
    RankState &rs = ranks_[r];
    if (rs.clock_ps < now_ps_) {
        rs.clock_ps = after_noise(r, now_ps_, 0);
    }
    return rs.clock_ps;
}

void Cluster::advance(uint32_t r, int64_t ps) {
    const int64_t at = clock_ps(r);
    const int64_t end = after_noise(r, at, ps);
    Calendar *core = core_of(r);
    ranks_[r].clock_ps =
        core == nullptr ? end : core->book_as(at, end - at, now_ps_, r, params_.net.wake_ps);
}

Calendar *Cluster::core_of(uint32_t r) {
    if (cores_.empty() || node_ranks(r) <= params_.net.cores) {
        return nullptr;
    }
    const uint32_t ppn = params_.net.ranks_per_node;
    const uint32_t index = ppn == 0 ? r : r % ppn;
    return &cores_[static_cast<size_t>(params_.net.node_of(r)) * params_.net.cores +
                   index % params_.net.cores];
}

uint32_t Cluster::node_ranks(uint32_t r) const {
    const uint32_t ppn = params_.net.ranks_per_node;
    const auto n = static_cast<uint32_t>(ranks_.size());
    if (ppn == 0) {
        return n;
    }
    return std::min(ppn, n - r / ppn * ppn);
}

void Cluster::fold(uint64_t v) {
    hash_ = mix64(hash_ ^ v) + 0x9e3779b97f4a7c15ull;
}

// ---- endpoints ----

std::unique_ptr<SimTransport> Cluster::create_endpoint(uint32_t rank) {
    RankState &rs = ranks_[rank];
    uint64_t id;
    if (!rs.primary_used) {
        rs.primary_used = true;
        id = rank;
    } else {
        id = static_cast<uint64_t>(n_) * (uint64_t{rs.later_endpoints} + 1) + rank;
    }
    auto ep = std::make_unique<SimTransport>(this, rank, id);
    if (id < n_) {
        primary_[id] = ep.get();
    } else {
        extra_.emplace(id, ep.get());
        ++rs.later_endpoints;
    }
    ep->next_in_rank_ = rs.endpoints;
    rs.endpoints = ep.get();
    ++rs.endpoint_gen;
    return ep;
}

void Cluster::remove_endpoint(SimTransport *ep) {
    uint64_t id = ep->id();
    if (id < n_) {
        primary_[id] = nullptr;
    } else {
        extra_.erase(id);
    }
    ++ranks_[ep->rank()].endpoint_gen;
    for (SimTransport **p = &ranks_[ep->rank()].endpoints; *p != nullptr;
         p = &(*p)->next_in_rank_) {
        if (*p == ep) {
            *p = ep->next_in_rank_;
            break;
        }
    }
}

SimTransport *Cluster::endpoint(uint64_t id) const {
    if (id < n_) {
        return primary_[id];
    }
    auto it = extra_.find(id);
    return it != extra_.end() ? it->second : nullptr;
}

bool Cluster::endpoint_id_valid(uint64_t id) const {
    return id < n_ || id / n_ - 1 < ranks_[id % n_].later_endpoints;
}

uint32_t Cluster::rank_of_endpoint(uint64_t id) const {
    return endpoint_id_valid(id) ? static_cast<uint32_t>(id % n_) : kNoRank;
}

// ---- packets and events ----

Message *Cluster::alloc_message() {
    Message *m = messages_.get();
    pooled_payload_bytes_ -= m->payload.capacity();
    return m;
}

void Cluster::free_message(Message *m) {
    taken_in(m);
    if (m->kind == PacketKind::kTagged && m->xfer != nullptr) {
        // A rendezvous send never matched (its receiver left): its sender
        // waits for its timeout, and a cancel no longer reaches this record.
        m->xfer->transport_priv = nullptr;
    }
    if (m->claim != nullptr) {
        m->claim->claim = nullptr;  // its receive stays posted, waiting for nothing
    }
    std::vector<uint8_t> payload = std::move(m->payload);
    *m = Message();
    if (payload.capacity() <= kPayloadKeepBytes &&
        pooled_payload_bytes_ + payload.capacity() <= kPayloadPoolBytes) {
        payload.clear();
        pooled_payload_bytes_ += payload.capacity();
        m->payload = std::move(payload);
    }
    messages_.keep(m);
}

void Cluster::push_event(Event e) {
    flush_sends();
    e.tie = rng_.next();
    e.seq = seq_++;
    events_.push(e);
}

void Cluster::schedule_arrival(Message *m, int64_t arrival_ps) {
    flush_sends();
    // Non-overtaking per (src, dst, tag, channel): strictly after the previous
    // packet on the same key that is still in flight (nothing to do when the
    // NIC already orders them).
    if (!nic_orders(m->channel)) {
        OrderKey key{m->src, m->dst, m->tag, m->channel};
        auto [it, inserted] = order_.try_emplace(key, OrderState{arrival_ps, 1});
        if (!inserted) {
            if (arrival_ps <= it->second.last_arrival_ps) {
                arrival_ps = it->second.last_arrival_ps + 1;
            }
            it->second.last_arrival_ps = arrival_ps;
            ++it->second.in_flight;
        }
    }
    push_event(Event{arrival_ps, 0, 0, m, 0, rank_of_endpoint(m->dst), EventKind::kPacket});
}

void Cluster::send_packet(uint32_t src_rank, Message *m, uint64_t wire_bytes) {
    const NetworkModel &net = params_.net;
    RankState &rs = ranks_[src_rank];
    uint32_t dst_rank = rank_of_endpoint(m->dst);
    if (dst_rank == kNoRank) {
        dst_rank = src_rank;
    }
    advance(src_rank, net.o_send_ps + net.bcopy_ps(src_rank, dst_rank, wire_bytes));
    const int64_t t = rs.clock_ps;
    int64_t wire = net.wire_ps(src_rank, dst_rank, wire_bytes);
    // A rendezvous: the request and its answer before the data moves.
    int64_t departure = std::max(t, rs.nic_free_ps) + net.rndv_ps(src_rank, dst_rank, wire_bytes) +
                        net.dma_ps(src_rank, dst_rank, wire_bytes);
    rs.nic_free_ps = departure + net.gap_ps + wire;
    const int64_t latency = net.latency_ps(src_rank, dst_rank);
    int64_t arrival = departure + latency + wire;
    if (!nodes_.empty()) {
        arrival = shared_arrival(src_rank, dst_rank, wire_bytes, departure, latency, wire);
    }
    // The receiver's port takes the bytes in with whatever else it is taking
    // in (and after the sender's earlier messages to it: they never
    // overtake): booked by book_ports, soon.
    const char *port = reinterpret_cast<const char *>(&ports_in_[dst_rank]);
    __builtin_prefetch(port);
    __builtin_prefetch(port + sizeof(Calendar) - 1);
    if (n_pending_ == kPendingSends) {
        book_ports();
    }
    pending_[n_pending_++] = PendingSend{m, arrival - wire, net.gap_ps + wire, src_rank, dst_rank};
}

void Cluster::book_ports() {
    const NetworkModel &net = params_.net;
    const uint32_t n = std::exchange(n_pending_, 0);  // (schedule_arrival flushes nothing)
    for (uint32_t i = 0; i < n; ++i) {
        const PendingSend &p = pending_[i];
        const int64_t arrival =
            ports_in_[p.dst].book_spread(p.start, p.hold, now_ps_, p.src) - net.gap_ps;
        int64_t jitter =
            net.jitter_max_ps > 0 ? static_cast<int64_t>(rng_.upto(net.jitter_max_ps)) : 0;
        if (spike_ps_ > 0 && fault_rng_.next() < spike_threshold_) [[unlikely]] {
            jitter += spike_ps_;  // a delay spike (faults.h)
        }
        schedule_arrival(p.m, arrival + jitter);
    }
}

// Through what the nodes share: across nodes the sender's NIC, then the
// receiver's, each one message at a time; within a node its memory. A
// message books the resource (calendar.h) for its time (1 / nic_rate +
// bytes / nic_bw, or bytes / node_bw) at the earliest free stretch from
// its departure, and arrives when both its own link (wire) and the shared
// path are done.
int64_t Cluster::shared_arrival(uint32_t src, uint32_t dst, uint64_t bytes, int64_t departure,
                                int64_t latency, int64_t wire) {
    const NetworkModel &net = params_.net;
    const uint32_t a = net.node_of(src);
    const uint32_t b = net.node_of(dst);
    if (a != b && net.shares_nic()) {
        const int64_t hold = net.nic_ps(bytes);
        const int64_t sent = nodes_[a].nic_out.book(departure, hold, now_ps_);
        const int64_t in_start = nodes_[b].nic_in.book(sent + latency, hold, now_ps_);
        return std::max(departure + latency + wire, in_start + hold);
    }
    if (a == b && net.node_bw_bps != 0) {
        const int64_t hold = NetworkModel::bytes_cost_ps(bytes, net.node_bw_bps);
        const int64_t start = nodes_[a].mem.book(departure, hold, now_ps_);
        return std::max(departure + latency + wire, start + hold + latency);
    }
    return departure + latency + wire;
}

void Cluster::send_reply(Message *m, uint64_t wire_bytes) {
    flush_sends();  // (its jitter's draw comes after theirs)
    const NetworkModel &net = params_.net;
    uint32_t src_rank = rank_of_endpoint(m->src);
    uint32_t dst_rank = rank_of_endpoint(m->dst);
    if (src_rank == kNoRank) {
        src_rank = 0;
    }
    if (dst_rank == kNoRank) {
        dst_rank = src_rank;
    }
    int64_t jitter = net.jitter_max_ps > 0 ? static_cast<int64_t>(rng_.upto(net.jitter_max_ps)) : 0;
    schedule_arrival(m, now_ps_ + net.latency_ps(src_rank, dst_rank) +
                            net.wire_ps(src_rank, dst_rank, wire_bytes) + jitter);
}

void Cluster::send_ack(uint32_t receiver, Message *m) {
    taken_in(m);
    if (m->claim != nullptr) {
        m->claim->claim = nullptr;
        m->claim = nullptr;
    }
    m->payload.clear();
    m->kind = PacketKind::kSendAck;
    m->channel = Channel::kRmaReply;
    m->tag = 0;
    m->bytes = 0;
    m->status = UCC_OK;
    std::swap(m->src, m->dst);
    uint32_t sender = rank_of_endpoint(m->dst);
    if (sender == kNoRank) {
        sender = receiver;
    }
    schedule_arrival(m, clock_ps(receiver) + params_.net.latency_ps(receiver, sender));
}

void Cluster::apply(const Event &e) {
    fold(static_cast<uint64_t>(e.time_ps));
    switch (e.kind) {
        case EventKind::kPacket: {
            Message *m = e.msg;
            fold(16 + static_cast<uint64_t>(m->kind));
            fold(m->src);
            fold(m->dst);
            fold(m->tag);
            fold(m->bytes);
            deliver_packet(m);
            break;
        }
        case EventKind::kWake: {
            fold(1);
            fold(e.rank);
            fold(e.rank);
            fold(e.arg);
            fold(0);
            if (ranks_[e.rank].wake_gen == e.arg) {
                wake(e.rank);
            }
            break;
        }
        case EventKind::kOobDone: {
            fold(2);
            fold(e.arg);
            complete_oob_round(e.arg);
            break;
        }
        case EventKind::kCrash: {
            fold(3);
            fold(e.rank);
            crash(e.rank);
            break;
        }
        case EventKind::kStall: {
            fold(4);
            fold(e.rank);
            fold(e.arg);
            RankState &rs = ranks_[e.rank];
            rs.stalled_until_ps = std::max(rs.stalled_until_ps, static_cast<int64_t>(e.arg));
            break;
        }
    }
}

void Cluster::crash(uint32_t r) {
    RankState &rs = ranks_[r];
    if (rs.finished) {
        return;  // its program had ended: nothing left to stop
    }
    rs.finished = true;
    rs.blocked = false;
    ++finished_;
    // Its stack stays as it was, never unwound: unwinding would run the
    // library's destructors and handlers as if the rank had returned. Its
    // memory is lost, as a killed process's is.
    // Its stack goes back to the kernel with the pool (a swarm of thousands
    // of crashing runs would otherwise run out of mappings).
    if (!params_.fiberless) {
        new boost::context::fiber(std::move(rs.fiber));
        stacks_->abandon();
    }
    note("ucc_sim: rank " + std::to_string(r) + " crashed at virtual time " + seconds(now_ps_) +
         " (fault plan)");
    announce_death(r);
}

// The loop itself could not allocate (an event, a message, a ready entry):
// the run ends here. A rank still running is left as a crashed one is: its
// stack never unwound (unwinding would resume it inside the library, whose
// API guards would take Boost.Context's unwinding for an error and go on),
// its memory lost.
void Cluster::give_up_out_of_memory() noexcept {
    status_ = UCC_ERR_NO_MEMORY;
    for (uint32_t r = 0; r < n_; ++r) {
        RankState &rs = ranks_[r];
        if (!rs.finished && !params_.fiberless && rs.fiber) {
            // Moved into storage that is never destroyed (no allocation here).
            union Abandoned {
                boost::context::fiber fiber;
                Abandoned() {}
                ~Abandoned() {}
            } abandoned;
            new (&abandoned.fiber) boost::context::fiber(std::move(rs.fiber));
            stacks_->abandon();
        }
    }
    try {
        report_ += "ucc_sim: out of memory in the event loop at virtual time " + seconds(now_ps_) +
                   "; the run stops\n";
    } catch (const std::bad_alloc &) {
        // The status says it.
    }
}

void Cluster::announce_death(uint32_t r) {
    RankState &rs = ranks_[r];
    rs.crashed = true;
    ++crashed_;
    // Ranks waiting in an OOB exchange the dead rank never joined: theirs fails.
    for (uint32_t q = 0; q < n_; ++q) {
        if (ranks_[q].oob != nullptr && ranks_[q].blocked) {
            wake(q);
        }
    }
    // Every endpoint it ever had (ids n * k + r, lib: create_endpoint), also
    // those it destroyed before it exited: a peer may still address them.
    const int64_t at = now_ps_ + static_cast<int64_t>(params_.faults.detect_s * 1e12);
    const uint32_t ids = rs.primary_used ? rs.later_endpoints + 1 : 0;
    for (uint32_t k = 0; k < ids; ++k) {
        const uint64_t dead = static_cast<uint64_t>(n_) * k + r;
        for (uint32_t q = 0; q < n_; ++q) {
            if (q == r || ranks_[q].finished) {
                continue;
            }
            for (const SimTransport *ep = ranks_[q].endpoints; ep != nullptr;
                 ep = ep->next_in_rank_) {
                Message *m = alloc_message();
                m->kind = PacketKind::kPeerDown;
                m->channel = Channel::kTagged;
                m->src = dead;
                m->dst = ep->id();
                push_event(Event{at, 0, 0, m, 0, q, EventKind::kPacket});
            }
        }
    }
}

void Cluster::deliver_packet(Message *m) {
    flush_sends();  // (order_)
    if (m->kind != PacketKind::kPeerDown && !nic_orders(m->channel)) {
        auto it = order_.find(OrderKey{m->src, m->dst, m->tag, m->channel});
        if (it != order_.end() && --it->second.in_flight == 0) {
            order_.erase(it);
        }
    }
    SimTransport *ep = endpoint(m->dst);
    switch (m->kind) {
        case PacketKind::kTagged:
        case PacketKind::kGetReply:
        case PacketKind::kRmaAck:
        case PacketKind::kSendAck:
        case PacketKind::kPeerDown:
            if (ep == nullptr) {
                ++dropped_;
                free_message(m);
                return;
            }
            ep->push_inbox(m);
            wake(ep->rank(), ep);
            return;
        case PacketKind::kSwitch:
            switch_arrival(m);
            return;
        case PacketKind::kPut:
        case PacketKind::kAtomic:
        case PacketKind::kGetRequest: {
            // The target is passive: the operation is applied now, and the
            // acknowledgement or reply travels back to the origin.
            ucc_status_t st = UCC_ERR_NOT_FOUND;
            uint64_t reply_bytes = 0;
            if (ep != nullptr) {
                if (m->kind == PacketKind::kPut) {
                    st = ep->apply_put(*m);
                } else if (m->kind == PacketKind::kAtomic) {
                    st = ep->apply_atomic(*m);
                } else {
                    st = ep->read_for_get(m);
                    reply_bytes = st == UCC_OK ? m->bytes : 0;
                }
            }
            if (ep != nullptr && ep->watching() && m->kind != PacketKind::kGetRequest) {
                wake(ep->rank(), ep);  // a one-sided collective may wait for this word
            }
            m->kind =
                m->kind == PacketKind::kGetRequest ? PacketKind::kGetReply : PacketKind::kRmaAck;
            if (m->kind == PacketKind::kRmaAck) {
                m->payload.clear();
                m->bytes = 0;
            }
            std::swap(m->src, m->dst);
            m->channel = Channel::kRmaReply;
            m->tag = 0;
            m->status = st;
            send_reply(m, reply_bytes);
            return;
        }
    }
}

void Cluster::wake(uint32_t r, const SimTransport *via) {
    RankState &rs = ranks_[r];
    if (via == nullptr || via != rs.drain_ep) {
        rs.drain_ok = false;  // only its progress would see this: the fiber must run
    }
    if (!rs.blocked || rs.crashed) {
        return;
    }
    if (rs.stalled_until_ps > now_ps_) [[unlikely]] {
        // Stalled (faults.h): it wakes when the stall ends.
        push_event(Event{rs.stalled_until_ps, 0, 0, nullptr, rs.wake_gen, r, EventKind::kWake});
        return;
    }
    rs.blocked = false;
    rs.ahead_ps = 0;
    if (rs.clock_ps < now_ps_) {
        rs.clock_ps = after_noise(r, now_ps_, 0);
        if (Calendar *core = core_of(r); core != nullptr) {
            // It waited, and its core may have run another rank since: it
            // takes the core back when the core is free, after a switch.
            rs.clock_ps = core->book_as(rs.clock_ps, 0, now_ps_, r, params_.net.wake_ps);
        }
    }
    ready_.push_back(r);
}

const void *Cluster::rank_stack_bottom(uint32_t r) const {
#if defined(__SANITIZE_ADDRESS__)
    return static_cast<const char *>(ranks_[r].stack_top) - stacks_->stack_bytes();
#else
    (void)r;
    return nullptr;
#endif
}

void Cluster::suspend_running() {
    // Where this rank's stack will be touched first when it resumes (prefetch).
    char here;
    ranks_[running_].stack_hint = &here;
    void *fake = nullptr;
    asan_switch_start(&fake, loop_stack_bottom_, loop_stack_size_);
    main_ = std::move(main_).resume();
    asan_switch_finish(fake, nullptr, nullptr);
}

void Cluster::block(uint32_t r) {
    RankState &rs = ranks_[r];
    rs.blocked = true;
    rs.spins = 0;
    suspend_running();
}

void Cluster::idle(uint32_t r, double deadline_s, bool lazy) {
    if (params_.fiberless) {
        idle_fiberless(r, deadline_s);
        return;
    }
    if (ranks_[r].threads != nullptr && thread_of(r) != 0) [[unlikely]] {
        // A thread waits: the rank's scheduler runs another or idles the rank.
        switch_to_scheduler(r, /*kIdle*/ 1, deadline_s, lazy);
        return;
    }
    idle_rank(r, deadline_s, lazy);
}

void Cluster::idle_rank(uint32_t r, double deadline_s, bool lazy) {
    RankState &rs = ranks_[r];
    int64_t t = clock_ps(r);
    rs.polls = 0;
    if (aborted_) {
        count_spin(r, "idle() after the run was aborted");
        ready_.push_back(r);  // let the others run first
        suspend_running();
        return;
    }
    const bool timed = !std::isnan(deadline_s) && deadline_s < 9.0e6;
    if (t > now_ps_) {
        // The rank is ahead of the world: it resumes at t, or earlier (still
        // at its own time t) when something arrives for it. A lazy idle (the
        // library's: it has nothing to do until a message, an OOB completion
        // or its deadline) needs no timer at t: waking there would only find
        // nothing and block again. The timer is armed only when the world runs
        // dry first (event_loop), so that a deadlock is found at the same time.
        if (lazy && !timed) {
            rs.ahead_ps = t;
            ++rs.wake_gen;
            block(r);
            return;
        }
        push_event(Event{t, 0, 0, nullptr, ++rs.wake_gen, r, EventKind::kWake});
        block(r);
        return;
    }
    if (timed) {
        int64_t d = deadline_s <= 0 ? 0 : static_cast<int64_t>(std::ceil(deadline_s * 1e12));
        if (d <= t) {
            if (deadline_s <= static_cast<double>(t) / 1e12) {
                count_spin(r, "idle() with a past deadline");
                return;
            }
            // Less than a picosecond ahead (rounding): the next tick. A caller
            // comparing the deadline with now() must see it pass, or it would
            // idle with the same deadline forever.
            d = t + 1;
        }
        push_event(Event{d, 0, 0, nullptr, ++rs.wake_gen, r, EventKind::kWake});
    } else {
        ++rs.wake_gen;  // no timer of an older idle() may wake this one
    }
    block(r);
}

void Cluster::idle_draining(uint32_t r, const SimTransport *ep, ucc::Drain *d) {
    RankState &rs = ranks_[r];
    constexpr double kNoDeadline = std::numeric_limits<double>::infinity();
    if (!params_.drain || rs.threads != nullptr || params_.fiberless) {
        idle(r, kNoDeadline, /*lazy=*/true);
        return;
    }
    rs.drain = d;
    rs.drain_ep = ep;
    rs.drain_ok = true;
    idle_rank(r, kNoDeadline, /*lazy=*/true);
    rs.drain = nullptr;
    rs.drain_ep = nullptr;
    rs.drain_ok = false;
}

// A rank woken only by packets for the endpoint it waits on would resume,
// return from progress(), find its requests still in progress and call
// progress() again, which matches the packets, resumes the coroutines they
// complete and, if no request completed, idles exactly as before. The drain
// is that pass, run here at the same point of the ready order: the same
// clock, the same sends in the same order, the same trace hash, but no
// switch to a stack that went cold. Only a pass that completed a request (or
// a failed peer, or the world giving up) resumes the fiber.
bool Cluster::drain_ready(uint32_t r) {
    RankState &rs = ranks_[r];
    if (rs.drain == nullptr || !rs.drain_ok || aborted_) {
        return true;
    }
    running_ = r;
    const bool visible = rs.drain->drain();
    running_ = kNoRank;
    ++drains_;
    if (visible || aborted_) {
        return true;
    }
    // Waits again, as idle_rank() does for a lazy idle with no deadline.
    const int64_t t = clock_ps(r);
    rs.ahead_ps = t > now_ps_ ? t : 0;
    ++rs.wake_gen;
    rs.polls = 0;
    rs.spins = 0;
    rs.blocked = true;
    return false;
}

// ---- the event loop ----

void Cluster::run_program(uint32_t r) {
    try {
        program_(r);
    } catch (const boost::context::detail::forced_unwind &) {
        throw;  // Boost.Context unwinding a fiber's stack: not the program's
    } catch (...) {
        note("ucc_sim: rank " + std::to_string(r) + ": the program threw an exception");
        if (status_ == UCC_OK) {
            status_ = UCC_ERR_NO_MESSAGE;
        }
    }
}

void Cluster::rank_main(uint32_t r) {
    run_program(r);
    finish_rank(r);
}

void Cluster::finish_rank(uint32_t r) {
    RankState &rs = ranks_[r];
    clock_ps(r);
    rs.finished = true;
    ++finished_;
    if (rs.exiting) {
        note("ucc_sim: rank " + std::to_string(r) + " exited after an error at virtual time " +
             seconds(clock_ps(r)));
        announce_death(r);
    }
}

// Every event lands on a rank whose state has gone cold since it last ran.
// What applying it touches is fetched in stages, events ahead of time (the
// queue's window, EventQueue::ahead), each stage following pointers that the
// one before brought in, so that the misses of several events overlap
// instead of following one another:
//  * kFar events ahead: the message, the rank's state and its endpoint slot;
//  * two ahead: the endpoint's first lines and where the waiting context
//    (its drain) starts;
//  * one ahead: the fields the drain reads first, and the receive the packet
//    will match;
//  * the next event: the transfer that receive completes (in a coroutine
//    frame), or the top of the rank's suspended stack.
// Prefetches only read: they never change what the run does.
void Cluster::prefetch() {
    constexpr size_t kFar = 5;
    constexpr int kStackLines = 16;    // the frames a resumed rank returns through
    constexpr int kEndpointLines = 6;  // SimTransport up to its matching state
    static_assert(kFar < EventQueue<Event>::kAhead);
    // The event's endpoint, when it is a packet for a primary endpoint.
    auto endpoint_of = [this](const Event *e) -> const SimTransport * {
        return e != nullptr && e->msg != nullptr && e->msg->dst < n_ ? primary_[e->msg->dst]
                                                                     : nullptr;
    };
    if (const Event *far = events_.ahead(kFar); far != nullptr && far->rank < n_) {
        if (far->msg != nullptr) {
            __builtin_prefetch(far->msg);
        }
        const char *rs = reinterpret_cast<const char *>(&ranks_[far->rank]);
        __builtin_prefetch(rs);
        __builtin_prefetch(rs + 64);
        __builtin_prefetch(rs + sizeof(RankState) - 1);
        __builtin_prefetch(&primary_[far->rank]);
    }
    if (const Event *two = events_.ahead(2); two != nullptr && two->rank < n_) {
        if (const char *ep = reinterpret_cast<const char *>(endpoint_of(two)); ep != nullptr) {
            for (int i = 0; i < kEndpointLines; ++i) {
                __builtin_prefetch(ep + 64 * i);
            }
        }
        if (const ucc::Drain *d = ranks_[two->rank].drain; d != nullptr) {
            __builtin_prefetch(d);
        }
    }
    if (const Event *one = events_.ahead(1); one != nullptr && one->rank < n_) {
        if (const ucc::Drain *d = ranks_[one->rank].drain; d != nullptr) {
            for (const void *h : d->hot) {
                __builtin_prefetch(h);
            }
            __builtin_prefetch(static_cast<const char *>(d->hot[1]) + 64);
        }
        if (const SimTransport *ep = endpoint_of(one);
            ep != nullptr && one->msg->kind == PacketKind::kTagged) {
            const auto *q = ep->posted_.find_inline({one->msg->src, one->msg->tag});
            if (q != nullptr && q->head != nullptr) {
                __builtin_prefetch(q->head);
            }
        }
    }
    const Event *next = events_.ahead(0);
    if (next == nullptr || next->rank >= n_) {
        return;
    }
    const RankState &rs = ranks_[next->rank];
    if (rs.drain != nullptr) {
        const SimTransport *ep = endpoint_of(next);
        if (ep != nullptr && next->msg->kind == PacketKind::kTagged) {
            const auto *q = ep->posted_.find_inline({next->msg->src, next->msg->tag});
            if (q != nullptr && q->head != nullptr) {
                __builtin_prefetch(q->head->x);  // its owner (the waiter) is in the same frame
            }
        }
    } else if (const char *sp = static_cast<const char *>(rs.stack_hint); sp != nullptr) {
        for (int i = 0; i < kStackLines; ++i) {
            __builtin_prefetch(sp + 64 * i);
        }
    }
}

void Cluster::event_loop() {
    for (;;) {
        // Let every ready rank run until it blocks or finishes.
        while (!ready_.empty()) {
            const uint32_t r = ready_.front();
            ready_.pop_front();
            if (ranks_[r].crashed) {
                continue;
            }
            if (params_.fiberless) {
                run_pass(r);
                continue;
            }
            if (!drain_ready(r)) {
                continue;
            }
            ++resumes_;
            running_ = r;
            void *fake = nullptr;
            asan_switch_start(&fake, rank_stack_bottom(r), stacks_->stack_bytes());
            ranks_[r].fiber = std::move(ranks_[r].fiber).resume();
            asan_switch_finish(fake, nullptr, nullptr);
            running_ = kNoRank;
        }
        flush_sends();
        if (finished_ == n_) {
            break;
        }
        if (events_.empty()) {
            if (!arm_ahead_timers()) {
                deadlock();
            }
            continue;
        }
        const Event e = events_.pop();
        prefetch();
        now_ps_ = e.time_ps;
        ++events_done_;
        apply(e);
    }
}

bool Cluster::arm_ahead_timers() {
    bool armed = false;
    for (uint32_t r = 0; r < n_; ++r) {
        RankState &rs = ranks_[r];
        if (rs.blocked && rs.ahead_ps > now_ps_) {
            push_event(Event{rs.ahead_ps, 0, 0, nullptr, rs.wake_gen, r, EventKind::kWake});
            armed = true;
        }
        rs.ahead_ps = 0;
    }
    return armed;
}

RunResult Cluster::execute() {
    tls_cluster = this;
    // One fiber per rank, started in rank order. A rank's fiber switches
    // straight back to the event loop (main_) whenever it blocks or ends.
    for (uint32_t r = 0; r < n_ && params_.fiberless; ++r) {
        ready_.push_back(r);  // its start runs on the loop's stack (run_pass)
    }
    for (uint32_t r = 0; r < n_ && !params_.fiberless; ++r) {
        ranks_[r].fiber = boost::context::fiber(
            std::allocator_arg, PooledStack(stacks_), [this, r](boost::context::fiber &&loop) {
                asan_switch_finish(nullptr, &loop_stack_bottom_, &loop_stack_size_);
                main_ = std::move(loop);
                rank_main(r);
                asan_switch_start(nullptr, loop_stack_bottom_, loop_stack_size_);
                return std::move(main_);
            });
#if defined(__SANITIZE_ADDRESS__)
        ranks_[r].stack_top = stacks_->last_top();
#endif
        ready_.push_back(r);
    }
    for (const Crash &c : params_.faults.crashes) {
        if (c.rank < n_) {
            push_event(Event{static_cast<int64_t>(c.at_s * 1e12), 0, 0, nullptr, 0, c.rank,
                             EventKind::kCrash});
        }
    }
    for (const Stall &s : params_.faults.stalls) {
        if (s.rank < n_) {
            const auto at = static_cast<int64_t>(s.at_s * 1e12);
            push_event(Event{at, 0, 0, nullptr, static_cast<uint64_t>(at + s.for_s * 1e12), s.rank,
                             EventKind::kStall});
        }
    }
    try {
        event_loop();
    } catch (const std::bad_alloc &) {
        give_up_out_of_memory();
    }

    // Finish times, in rank order, close the trace hash.
    int64_t end_ps = now_ps_;
    for (uint32_t r = 0; r < n_; ++r) {
        fold(static_cast<uint64_t>(ranks_[r].clock_ps));
        end_ps = std::max(end_ps, ranks_[r].clock_ps);
    }
    fold(n_);
    if (dropped_ > 0) {
        note("ucc_sim: " + std::to_string(dropped_) +
             " packets arrived at endpoints that no longer (or not yet) existed");
    }
    RunResult res;
    res.status = status_;
    res.trace_hash = hash_;
    res.virtual_time_s = static_cast<double>(end_ps) / 1e12;
    res.events = events_done_;
    res.resumes = resumes_;
    res.drains = drains_;
    res.faults_injected = faults_injected_;
    res.report = report_;
    res.trace = std::move(trace_);
    tls_cluster = nullptr;
    return res;
}

void Cluster::record(uint32_t rank, TraceEvent &e) {
    if (!recording()) {
        return;
    }
    e.rank = rank;
    e.time_ps = std::max(ranks_[rank].clock_ps, now_ps_);
    trace_.push_back(e);
}

}  // namespace ucc::sim
