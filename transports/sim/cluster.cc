// The simulated cluster: fibers, the deterministic scheduler, the event loop,
// the network timing and the OOB allgather.
#include "transports/sim/cluster.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/detail/exception.hpp>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <system_error>
#include <thread>

#include "transports/sim/fiber_switch.h"
#include "transports/sim/sim_transport.h"
#include "transports/sim/timeline.h"

namespace ucc::sim {

namespace {

thread_local Cluster *tls_cluster = nullptr;

constexpr uint32_t kSpinLimit = 1'000'000;
constexpr uint32_t kPollLimit = 100'000'000;
constexpr size_t kReportRanksMax = 64;
// Guard pages cost one extra memory mapping per stack; the kernel allows
// about 65,530 per process, so big clusters run without them.
constexpr uint32_t kGuardRanksMax = 8192;
constexpr size_t kSlabBytes = 64ull << 20;
// Payload buffers of freed messages are kept for reuse (a fresh buffer costs
// page faults): each up to 4 MiB, all of them up to 256 MiB.
constexpr size_t kPayloadKeepBytes = 4ull << 20;
constexpr size_t kPayloadPoolBytes = 256ull << 20;

uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::string seconds(int64_t ps) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g s", static_cast<double>(ps) / 1e12);
    return buf;
}

}  // namespace

// ---------------------------------------------------------------------------
// Rng
// ---------------------------------------------------------------------------

Rng::Rng(uint64_t seed) {
    uint64_t st = seed;
    for (uint64_t &w : s_) {
        w = splitmix64(&st);
    }
}

uint64_t Rng::next() {
    auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
    uint64_t result = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

uint64_t Rng::upto(uint64_t bound) {
    if (bound == UINT64_MAX) {
        return next();
    }
    // Lemire's multiply-shift with rejection: unbiased.
    uint64_t range = bound + 1;
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * range;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < range) {
        uint64_t threshold = (0 - range) % range;
        while (low < threshold) {
            m = static_cast<unsigned __int128>(next()) * range;
            low = static_cast<uint64_t>(m);
        }
    }
    return static_cast<uint64_t>(m >> 64);
}

// ---------------------------------------------------------------------------
// Stacks: mmap'd slabs carved into stacks (lowest page a guard when affordable),
// committed lazily by the kernel, recycled through a free list.
// ---------------------------------------------------------------------------

class StackPool {
  public:
    StackPool(size_t stack_bytes, bool guard) : guard_(guard) {
        long page = ::sysconf(_SC_PAGESIZE);
        page_ = page > 0 ? static_cast<size_t>(page) : 4096;
        size_t want = std::max<size_t>(stack_bytes, 16 * 1024);
        stack_bytes_ = (want + page_ - 1) / page_ * page_;
        slot_bytes_ = stack_bytes_ + (guard_ ? page_ : 0);
        slots_per_slab_ = std::max<size_t>(1, kSlabBytes / slot_bytes_);
    }
    ~StackPool() {
        for (auto &[base, len] : slabs_) {
            ::munmap(base, len);
        }
    }
    StackPool(const StackPool &) = delete;
    StackPool &operator=(const StackPool &) = delete;

    // Shared by the cluster and every fiber's allocator, on one thread. (Not
    // std::shared_ptr: its type info would leak out of libucc.so.)
    void ref() { ++refs_; }
    void unref() {
        if (--refs_ == 0) {
            delete this;
        }
    }

    // Top of a fresh or recycled stack of stack_bytes(); nullptr when out of memory.
    void *take() {
        if (!free_.empty()) {
            void *top = free_.back();
            free_.pop_back();
            unpoison(static_cast<char *>(top) - stack_bytes_, stack_bytes_);
            last_top_ = top;
            return top;
        }
        if (slabs_.empty() || next_slot_ == slots_per_slab_) {
            size_t len = slots_per_slab_ * slot_bytes_;
            void *base = ::mmap(nullptr, len, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (base == MAP_FAILED) {
                return nullptr;
            }
            slabs_.emplace_back(static_cast<char *>(base), len);
            next_slot_ = 0;
            unpoison(base, len);
        }
        char *slot = slabs_.back().first + next_slot_ * slot_bytes_;
        ++next_slot_;
        if (guard_) {
            ::mprotect(slot, page_, PROT_NONE);
        }
        last_top_ = slot + slot_bytes_;
        return last_top_;
    }
    void give(void *top) { free_.push_back(top); }
    size_t stack_bytes() const { return stack_bytes_; }
    void *last_top() const { return last_top_; }  // of the latest take()

    // A fiber that ends switches away without returning from its frames, so
    // AddressSanitizer's redzones of those frames stay poisoned; so do those
    // of an earlier mapping at the same addresses. Boost.Context on Debian
    // does not annotate its switches: clear the shadow of every stack handed
    // out, or stale redzones read as stack-buffer-overflows in the next run.
    static void unpoison(void *p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
        ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
        (void)p;
        (void)n;
#endif
    }

  private:
    bool guard_;
    void *last_top_ = nullptr;
    size_t page_ = 4096;
    size_t stack_bytes_ = 0;
    size_t slot_bytes_ = 0;
    size_t slots_per_slab_ = 1;
    size_t next_slot_ = 0;
    std::vector<std::pair<char *, size_t>> slabs_;
    std::vector<void *> free_;
    size_t refs_ = 1;
};

namespace {

// Boost.Context stack allocator over a StackPool. Each copy holds a reference
// so that the pool outlives every fiber, whenever Boost.Context releases them.
class PooledStack {
  public:
    explicit PooledStack(StackPool *pool) : pool_(pool) { pool_->ref(); }
    PooledStack(const PooledStack &o) : pool_(o.pool_) { pool_->ref(); }
    PooledStack(PooledStack &&o) noexcept : pool_(o.pool_) { o.pool_ = nullptr; }
    PooledStack &operator=(const PooledStack &) = delete;
    PooledStack &operator=(PooledStack &&) = delete;
    ~PooledStack() {
        if (pool_ != nullptr) {
            pool_->unref();
        }
    }
    boost::context::stack_context allocate() {
        void *top = pool_->take();
        if (top == nullptr) {
            throw std::bad_alloc();  // on the event loop's fiber, never inside a rank
        }
        boost::context::stack_context sc;
        sc.size = pool_->stack_bytes();
        sc.sp = top;
        return sc;
    }
    void deallocate(boost::context::stack_context &sc) noexcept { pool_->give(sc.sp); }

  private:
    StackPool *pool_;
};

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
      program_(std::move(program)),
      n_(p.n_ranks),
      rng_(p.seed),
      fault_rng_(p.seed ^ 0x7370696b65ull),
      thread_rng_(p.seed ^ 0x746872656164ull),
      ranks_(p.n_ranks),
      primary_(p.n_ranks, nullptr),
      stacks_(new StackPool(p.stack_bytes, p.n_ranks <= kGuardRanksMax)),
      hash_(0xcbf29ce484222325ull) {
    const double sp = p.faults.spike_p;
    if (sp > 0 && p.faults.spike_s > 0) {
        spike_threshold_ =
            sp >= 1 ? UINT64_MAX : static_cast<uint64_t>(sp * 18446744073709551616.0);
        spike_ps_ = std::max<int64_t>(1, static_cast<int64_t>(p.faults.spike_s * 1e12));
    }
}

Cluster::~Cluster() {
    for (SimTransport *ep : primary_) {
        if (ep != nullptr) {
            ep->detach_cluster();
        }
    }
    for (SimTransport *ep : extra_) {
        if (ep != nullptr) {
            ep->detach_cluster();
        }
    }
    events_.drain([](const Event &e) { delete e.msg; });
    for (Message *m : free_messages_) {
        delete m;
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
        rs.clock_ps = now_ps_;
    }
    return rs.clock_ps;
}

void Cluster::advance(uint32_t r, int64_t ps) {
    ranks_[r].clock_ps = clock_ps(r) + ps;
}

void Cluster::fold(uint64_t v) {
    hash_ = mix64(hash_ ^ v) + 0x9e3779b97f4a7c15ull;
}

void Cluster::note(const std::string &line) {
    report_ += line;
    if (line.empty() || line.back() != '\n') {
        report_ += '\n';
    }
    std::fprintf(stderr, "%s%s", line.c_str(), (line.empty() || line.back() != '\n') ? "\n" : "");
}

// ---- endpoints ----

std::unique_ptr<SimTransport> Cluster::create_endpoint(uint32_t rank) {
    RankState &rs = ranks_[rank];
    uint64_t id;
    if (!rs.primary_used) {
        rs.primary_used = true;
        id = rank;
    } else {
        id = static_cast<uint64_t>(n_) + extra_.size();
    }
    auto ep = std::make_unique<SimTransport>(this, rank, id);
    if (id < n_) {
        primary_[id] = ep.get();
    } else {
        extra_.push_back(ep.get());
        extra_rank_.push_back(rank);
    }
    ep->next_in_rank_ = rs.endpoints;
    rs.endpoints = ep.get();
    return ep;
}

void Cluster::remove_endpoint(SimTransport *ep) {
    uint64_t id = ep->id();
    if (id < n_) {
        primary_[id] = nullptr;
    } else if (id - n_ < extra_.size()) {
        extra_[id - n_] = nullptr;
    }
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
    return id - n_ < extra_.size() ? extra_[id - n_] : nullptr;
}

bool Cluster::endpoint_id_valid(uint64_t id) const {
    return id < n_ || id - n_ < extra_.size();
}

uint32_t Cluster::rank_of_endpoint(uint64_t id) const {
    if (id < n_) {
        return static_cast<uint32_t>(id);
    }
    return id - n_ < extra_rank_.size() ? extra_rank_[id - n_] : kNoRank;
}

// ---- packets and events ----

Message *Cluster::alloc_message() {
    if (free_messages_.empty()) {
        return new Message();
    }
    Message *m = free_messages_.back();
    free_messages_.pop_back();
    pooled_payload_bytes_ -= m->payload.capacity();
    return m;
}

void Cluster::free_message(Message *m) {
    std::vector<uint8_t> payload = std::move(m->payload);
    *m = Message();
    if (payload.capacity() <= kPayloadKeepBytes &&
        pooled_payload_bytes_ + payload.capacity() <= kPayloadPoolBytes) {
        payload.clear();
        pooled_payload_bytes_ += payload.capacity();
        m->payload = std::move(payload);
    }
    try {
        free_messages_.push_back(m);
    } catch (const std::bad_alloc &) {
        delete m;  // the pool could not grow: not kept
    }
}

void Cluster::push_event(Event e) {
    e.tie = rng_.next();
    e.seq = seq_++;
    events_.push(e);
}

void Cluster::schedule_arrival(Message *m, int64_t arrival_ps) {
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
    int64_t t = clock_ps(src_rank) + net.o_send_ps;
    rs.clock_ps = t;
    uint32_t dst_rank = rank_of_endpoint(m->dst);
    if (dst_rank == kNoRank) {
        dst_rank = src_rank;
    }
    int64_t wire = net.wire_ps(src_rank, dst_rank, wire_bytes);
    int64_t departure = std::max(t, rs.nic_free_ps);
    rs.nic_free_ps = departure + net.gap_ps + wire;
    int64_t jitter = net.jitter_max_ps > 0 ? static_cast<int64_t>(rng_.upto(net.jitter_max_ps)) : 0;
    if (spike_ps_ > 0 && fault_rng_.next() < spike_threshold_) [[unlikely]] {
        jitter += spike_ps_;  // a delay spike (faults.h)
    }
    schedule_arrival(m, departure + net.latency_ps(src_rank, dst_rank) + wire + jitter);
}

void Cluster::send_reply(Message *m, uint64_t wire_bytes) {
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
    rs.crashed = true;
    rs.finished = true;
    rs.blocked = false;
    ++finished_;
    // Its stack stays as it was, never unwound: unwinding would run the
    // library's destructors and handlers as if the rank had returned. Its
    // memory is lost, as a killed process's is.
    new boost::context::fiber(std::move(rs.fiber));
    ++crashed_;
    note("ucc_sim: rank " + std::to_string(r) + " crashed at virtual time " + seconds(now_ps_) +
         " (fault plan)");
    // Ranks waiting in an OOB exchange the dead rank never joined: theirs fails.
    for (uint32_t q = 0; q < n_; ++q) {
        if (ranks_[q].oob != nullptr && ranks_[q].blocked) {
            wake(q);
        }
    }
    const int64_t at = now_ps_ + static_cast<int64_t>(params_.faults.detect_s * 1e12);
    for (const SimTransport *dead = rs.endpoints; dead != nullptr; dead = dead->next_in_rank_) {
        for (uint32_t q = 0; q < n_; ++q) {
            if (q == r || ranks_[q].finished) {
                continue;
            }
            for (const SimTransport *ep = ranks_[q].endpoints; ep != nullptr;
                 ep = ep->next_in_rank_) {
                Message *m = alloc_message();
                m->kind = PacketKind::kPeerDown;
                m->channel = Channel::kTagged;
                m->src = dead->id();
                m->dst = ep->id();
                push_event(Event{at, 0, 0, m, 0, q, EventKind::kPacket});
            }
        }
    }
}

void Cluster::deliver_packet(Message *m) {
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
        case PacketKind::kPeerDown:
            if (ep == nullptr) {
                ++dropped_;
                free_message(m);
                return;
            }
            ep->push_inbox(m);
            wake(ep->rank());
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

void Cluster::wake(uint32_t r) {
    RankState &rs = ranks_[r];
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
        rs.clock_ps = now_ps_;
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

void Cluster::count_spin(uint32_t r, const char *what) {
    if (++ranks_[r].spins <= kSpinLimit) {
        return;
    }
    std::fprintf(stderr,
                 "ucc_sim: rank %u called %s %u times in a row without blocking; giving up\n%s", r,
                 what, kSpinLimit, report_.c_str());
    std::abort();
}

void Cluster::count_empty_poll(uint32_t r) {
    if (++ranks_[r].polls <= kPollLimit) {
        return;
    }
    std::fprintf(stderr,
                 "ucc_sim: rank %u called progress() %u times without calling idle(); a rank "
                 "that finds nothing to do must call idle() or the simulation cannot advance\n",
                 r, kPollLimit);
    std::abort();
}

void Cluster::idle(uint32_t r, double deadline_s, bool lazy) {
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

// ---- the event loop ----

void Cluster::rank_main(uint32_t r) {
    RankState &rs = ranks_[r];
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
    clock_ps(r);
    rs.finished = true;
    ++finished_;
}

// Every event lands on a rank whose state has gone cold since it last ran.
// Fetch what applying it will touch in parallel, one event ahead, rather than
// one miss after another: the next event's message, rank state and endpoint
// slot (packet events carry their destination rank), then, for the event
// about to be applied, its endpoint and the top of its rank's suspended stack.
// Prefetches only read: they never change what the run does.
void Cluster::prefetch(const Event &e) {
    constexpr int kStackLines = 16;  // the frames a resumed rank returns through
    // This event's rank: its state and endpoint slot were fetched one event ago.
    if (e.rank < n_) {
        const RankState &rs = ranks_[e.rank];
        if (e.msg != nullptr && e.msg->dst < n_) {
            __builtin_prefetch(primary_[e.msg->dst]);
        }
        const char *sp = static_cast<const char *>(rs.stack_hint);
        if (sp != nullptr) {
            for (int i = 0; i < kStackLines; ++i) {
                __builtin_prefetch(sp + 64 * i);
            }
        }
    }
    // The next event: its message, its rank's state and endpoint slot.
    if (!events_.empty()) {
        const Event &next = events_.peek();
        if (next.msg != nullptr) {
            __builtin_prefetch(next.msg);
        }
        if (next.rank < n_) {
            __builtin_prefetch(&ranks_[next.rank]);
            __builtin_prefetch(&primary_[next.rank]);
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
            running_ = r;
            void *fake = nullptr;
            asan_switch_start(&fake, rank_stack_bottom(r), stacks_->stack_bytes());
            ranks_[r].fiber = std::move(ranks_[r].fiber).resume();
            asan_switch_finish(fake, nullptr, nullptr);
            running_ = kNoRank;
        }
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
        prefetch(e);
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

std::string Cluster::describe_blocked(size_t max_ranks) const {
    std::string s;
    size_t shown = 0;
    size_t more = 0;
    for (uint32_t r = 0; r < n_; ++r) {
        const RankState &rs = ranks_[r];
        if (rs.finished) {
            continue;
        }
        if (shown == max_ranks) {
            ++more;
            continue;
        }
        ++shown;
        s += "  rank " + std::to_string(r) + " (local time " + seconds(rs.clock_ps) + ")" +
             (rs.blocked ? "" : " [running]") + ":\n";
        size_t before = s.size();
        for (const SimTransport *ep = rs.endpoints; ep != nullptr; ep = ep->next_in_rank_) {
            ep->describe_waits(&s);
        }
        if (rs.oob != nullptr) {
            const OobRequest *q = rs.oob;
            uint32_t arrived = q->round != nullptr ? q->round->arrived : n_;
            const bool exchange = (q->round_id >> 63) != 0;
            const uint64_t k = q->round_id & ~(uint64_t{1} << 63);
            s += exchange ? "    inside OOB peer exchange #" + std::to_string(k) + " ("
                          : "    inside OOB allgather #" + std::to_string(k) + " (" +
                                std::to_string(q->size) + " bytes; ";
            s += std::to_string(arrived) + " of " + std::to_string(n_) + " ranks have called it)\n";
        }
        if (s.size() == before) {
            s += "    blocked in idle() with nothing posted\n";
        }
    }
    if (more > 0) {
        s += "  ... and " + std::to_string(more) + " more unfinished ranks\n";
    }
    return s;
}

void Cluster::deadlock() {
    if (aborted_) {
        // In abort mode no rank blocks; this is a bug in the simulator.
        std::fprintf(stderr, "ucc_sim: internal error: ranks blocked after abort\n%s",
                     report_.c_str());
        std::abort();
    }
    uint32_t unfinished = n_ - finished_;
    std::string rep = "ucc_sim: DEADLOCK at virtual time " + seconds(now_ps_) + ": " +
                      std::to_string(unfinished) + " of " + std::to_string(n_) +
                      " ranks have not finished, none can run and no event is pending\n" +
                      describe_blocked(kReportRanksMax);
    note(rep);
    if (status_ == UCC_OK) {
        status_ = UCC_ERR_NO_MESSAGE;
    }
    // Abort mode: wake everyone; from now on idle() and OOB tests return at once.
    aborted_ = true;
    for (uint32_t r = 0; r < n_; ++r) {
        wake(r);
    }
}

RunResult Cluster::execute() {
    tls_cluster = this;
    // One fiber per rank, started in rank order. A rank's fiber switches
    // straight back to the event loop (main_) whenever it blocks or ends.
    for (uint32_t r = 0; r < n_; ++r) {
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
    event_loop();

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
    res.report = report_;
    res.trace = std::move(trace_);
    tls_cluster = nullptr;
    return res;
}

// ---- OOB allgather over all ranks ----

ucc_status_t Cluster::oob_allgather(const void *src, void *recv, size_t size, void **request) {
    uint32_t r = running_rank();
    if (r == kNoRank || request == nullptr || (size > 0 && (src == nullptr || recv == nullptr))) {
        return UCC_ERR_INVALID_PARAM;
    }
    RankState &rs = ranks_[r];
    uint64_t id = rs.oob_calls++;
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
    req->round = round;
    req->recv_buf = recv;
    req->size = size;
    req->round_id = id;
    req->rank = r;
    round->reqs[r] = req;
    rs.oob = req;
    round->max_entry_ps = std::max(round->max_entry_ps, clock_ps(r));
    *request = req;
    if (++round->arrived < n_) {
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
    int64_t depth = 0;
    while ((uint64_t{1} << depth) < n_) {
        ++depth;
    }
    push_event(Event{round->max_entry_ps + depth * params_.net.lat_inter_ps, 0, 0, nullptr, id, 0,
                     EventKind::kOobDone});
    return UCC_OK;
}

ucc_status_t Cluster::exchange_start(uint64_t endpoint, uint64_t value, uint64_t check,
                                     OobRequest **request) {
    uint32_t r = running_rank();
    if (r == kNoRank || request == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    RankState &rs = ranks_[r];
    const uint64_t id = (uint64_t{1} << 63) | rs.exchange_calls++;
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
    OobRequest *req = owned.get();
    req->round = round;
    req->round_id = id;
    req->rank = r;
    round->reqs[r] = req;
    rs.oob = req;
    round->max_entry_ps = std::max(round->max_entry_ps, clock_ps(r));
    if (++round->arrived < n_) {
        *request = owned.release();
        return UCC_OK;
    }
    try {
        publish_exchange(round, id);
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
void Cluster::publish_exchange(OobRound *round, uint64_t id) {
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
        q->table = table;
        q->start = first;
        q->stride = stride;
        q->max_value = round->max_value;
        q->checks_agree = round->min_check == round->max_check;
    }
    std::vector<uint64_t>().swap(round->endpoints);
    int64_t depth = 0;
    while ((uint64_t{1} << depth) < n_) {
        ++depth;
    }
    push_event(Event{round->max_entry_ps + depth * params_.net.lat_inter_ps, 0, 0, nullptr, id, 0,
                     EventKind::kOobDone});
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
    idle(r, INFINITY);
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

// ---------------------------------------------------------------------------
// Public functions
// ---------------------------------------------------------------------------

RunResult run(const ClusterParams &p, std::function<void(uint32_t rank)> program) {
    RunResult res;
    if (p.n_ranks == 0 || !program) {
        res.status = UCC_ERR_INVALID_PARAM;
        res.report = p.n_ranks == 0 ? "ucc_sim: n_ranks must be at least 1\n"
                                    : "ucc_sim: no program to run\n";
        return res;
    }
    std::unique_ptr<Timeline> timeline;
    if (!p.timeline.empty()) {
        std::string error;
        timeline = Timeline::open(p.timeline, p.timeline_ranks, p.n_ranks, p.seed, p.net.describe(),
                                  &error);
        if (!timeline) {
            res.status = UCC_ERR_INVALID_PARAM;
            res.report = "ucc_sim: " + error + "\n";
            return res;
        }
    }
    auto body = [&]() {
        try {
            Cluster c(p, std::move(program));
            c.set_timeline(timeline.get());
            res = c.execute();
            std::string error;
            if (timeline &&
                !timeline->close([&c](uint32_t r) { return c.rank_state(r).clock_ps; }, &error)) {
                c.note("ucc_sim: " + error);
                res.report += "ucc_sim: " + error + "\n";
                if (res.status == UCC_OK) {
                    res.status = UCC_ERR_NO_RESOURCE;
                }
            }
        } catch (const std::bad_alloc &) {
            res = RunResult();
            res.status = UCC_ERR_NO_MEMORY;
            res.report = "ucc_sim: out of memory setting up the cluster\n";
        }
    };
    try {
        std::thread t(body);
        t.join();
    } catch (const std::system_error &) {
        res.status = UCC_ERR_NO_RESOURCE;
        res.report = "ucc_sim: cannot start the simulation thread\n";
    }
    return res;
}

bool in_rank() {
    Cluster *c = Cluster::current();
    return c != nullptr && c->running_rank() != kNoRank;
}

uint32_t current_rank() {
    Cluster *c = Cluster::current();
    if (c == nullptr) {
        return 0;
    }
    uint32_t r = c->running_rank();
    return r == kNoRank ? 0 : r;
}

uint32_t cluster_size() {
    Cluster *c = Cluster::current();
    return c == nullptr ? 0 : c->size();
}

void Cluster::record(uint32_t rank, TraceEvent &e) {
    if (!recording()) {
        return;
    }
    e.rank = rank;
    e.time_ps = std::max(ranks_[rank].clock_ps, now_ps_);
    trace_.push_back(e);
}

void record_user_event(TraceEvent e) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return;
    }
    e.kind = TraceKind::kUser;
    c->record(c->running_rank(), e);
}

double now_s() {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return 0;
    }
    return static_cast<double>(c->clock_ps(c->running_rank())) / 1e12;
}

bool compute(double seconds) {
    Cluster *c = Cluster::current();
    if (c == nullptr || c->running_rank() == kNoRank) {
        return false;
    }
    if (seconds > 0) {
        c->advance(c->running_rank(), static_cast<int64_t>(std::llround(seconds * 1e12)));
    }
    return true;
}

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
