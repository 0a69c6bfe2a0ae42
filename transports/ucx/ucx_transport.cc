// The UCX transport: UCP context, worker, endpoints and tagged messages (see
// ucx_transport.h); RMA lives in ucx_rma.cc.
#include "transports/ucx/ucx_transport.h"

#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>

#include "lib/util/common.h"

namespace ucc::ucx {

namespace {

constexpr uint32_t kAddressMagic = 0x55435832;  // "UCX2"
// Progress calls a receive from a sender that can no longer be reached
// spends looking for the message it sent before it left.
constexpr int kLooksForAGoneSender = 64;

// The head of an address: who the worker address after it belongs to.
struct AddressHeader {
    uint32_t magic;
    uint32_t sender;
    uint32_t length;  // of the worker address
    uint32_t pid;
    uint64_t host_key;
    // The CPUs this process may run on (its affinity; bit i: CPU i).
    uint64_t cpus[kCpuWords];
};

uint64_t fnv(const std::string &s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) {
        h = (h ^ c) * 1099511628211ull;
    }
    return h;
}

// This host and PID namespace: processes with the same key can check each
// other's pid.
uint64_t host_key() {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    std::string key = name;
    if (std::FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
        char id[64] = {};
        if (std::fgets(id, sizeof(id), f) != nullptr) {
            key += id;
        }
        std::fclose(f);
    }
    char ns[128] = {};
    if (readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1) > 0) {
        key += ns;
    }
    return fnv(key);
}

// The CPUs this process may run on, as bits (every online CPU when its
// affinity cannot be read).
void affinity(uint64_t (&bits)[kCpuWords]) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    const bool known = sched_getaffinity(0, sizeof(allowed), &allowed) == 0;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (uint32_t c = 0; c < kCpuWords * 64; ++c) {
        const bool on = known ? (c < CPU_SETSIZE && CPU_ISSET(c, &allowed)) : c < online;
        if (on) {
            bits[c / 64] |= uint64_t{1} << (c % 64);
        }
    }
    if (known && CPU_COUNT(&allowed) == 0) {
        bits[0] |= 1;
    }
}

// Whether process `pid` (on this host) has exited: gone, or a zombie.
bool process_gone(uint32_t pid) {
    if (kill(static_cast<pid_t>(pid), 0) != 0) {
        return errno == ESRCH;
    }
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%u/stat", pid);
    std::FILE *f = std::fopen(path, "r");
    if (f == nullptr) {
        return false;
    }
    char buf[512] = {};
    const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
    std::fclose(f);
    const char *close = std::strrchr(buf, ')');  // the state follows "(comm) "
    return n > 0 && close != nullptr && (close[2] == 'Z' || close[2] == 'X');
}

}  // namespace

UcxTransport::~UcxTransport() {
    // Receives still posted are withdrawn; endpoints closed (bounded wait).
    for (auto &[id, ps] : peers_) {
        for (Slot *slot : ps->recvs.take()) {
            slot->x = nullptr;
            ucp_request_cancel(worker_, slot);
        }
    }
    // Transfers cancelled while UCX still used their copies: a send that a
    // live peer is reading gets a moment to finish. What is left after the
    // worker's destruction (it frees requests without completing them) goes
    // here: a send's copy stays mapped until the process ends (a peer that
    // was stalled may still read it, and must read the data as sent, not
    // memory reused), a receive's copy is unmapped.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (!detached_.empty() && std::chrono::steady_clock::now() < until) {
        ucp_worker_progress(worker_);
    }
    destroy_rma();  // remote keys go before their endpoints
    close_endpoints();
    if (worker_ != nullptr) {
        ucp_worker_destroy(worker_);
    }
    if (context_ != nullptr) {
        ucp_cleanup(context_);
    }
    size_t kept = 0;
    for (Owned *o : std::exchange(detached_, {})) {
        if (o->is_send) {
            kept += o->copy.size();
            o->copy.abandon();
        }
        delete o;
    }
    if (kept > 0) {
        log("teardown: " + std::to_string(kept) + " bytes of sends that a peer has not read yet " +
                "stay mapped until the process ends",
            false);
    }
}

void UcxTransport::detach(Owned *o) {
    if (detached_.size() == detached_.capacity()) {
        try {
            detached_.reserve(std::max<size_t>(16, detached_.size() * 2));
        } catch (...) {
            return;  // out of memory: freed by its completion only
        }
    }
    o->detached_at = detached_.size();
    detached_.push_back(o);
}

void UcxTransport::undetach(Owned *o) {
    if (o->detached_at == SIZE_MAX) {
        return;
    }
    Owned *last = detached_.back();
    detached_[o->detached_at] = last;
    last->detached_at = o->detached_at;
    detached_.pop_back();
    o->detached_at = SIZE_MAX;
}

void UcxTransport::request_init(void *request) {
    std::memset(request, 0, sizeof(Slot));
}

void UcxTransport::release(void *request) {
    auto *slot = static_cast<Slot *>(request);
    if (slot->owned != nullptr) {
        undetach(slot->owned);
        recycle(std::unique_ptr<Owned>(std::exchange(slot->owned, nullptr)));
    }
    ucp_request_free(request);
}

void UcxTransport::recycle(std::unique_ptr<Owned> o) {
    if (o == nullptr || !o->copy) {
        return;
    }
    const size_t capacity = kCopyClassMin << o->copy_class;
    if (spare_bytes_ + capacity <= kSpareBytesMax) {
        spare_bytes_ += capacity;
        spares_[o->copy_class].push_back(std::move(o->copy));
    }
}

std::unique_ptr<UcxTransport::Owned> UcxTransport::make_owned(size_t copy_bytes) {
    std::unique_ptr<Owned> o(new (std::nothrow) Owned);
    if (o == nullptr || copy_bytes == 0) {
        return o;
    }
    unsigned c = 0;
    while (c + 1 < kCopyClasses && (kCopyClassMin << c) < copy_bytes) {
        ++c;
    }
    if ((kCopyClassMin << c) < copy_bytes) {
        return nullptr;  // beyond any class (more than the address space)
    }
    o->copy_class = c;
    if (!spares_[c].empty()) {
        o->copy = std::move(spares_[c].back());
        spares_[c].pop_back();
        spare_bytes_ -= kCopyClassMin << c;
        return o;
    }
    o->copy = Mapping::make(kCopyClassMin << c);
    if (!o->copy) {
        o.reset();
    }
    return o;
}

std::unique_ptr<UcxTransport::Owned> UcxTransport::copy_for(const char *what, Peer peer,
                                                            size_t bytes) {
    const size_t head = params_.desync_check ? sizeof(uint64_t) : 0;
    std::unique_ptr<Owned> o = make_owned(head + bytes);
    if (o == nullptr) {
        log(std::string(what) + " peer " + std::to_string(peer) + ": no memory for a copy of " +
            std::to_string(bytes) + " bytes");
        return nullptr;
    }
    o->header = head;
    o->payload = bytes;
    return o;
}

UcxTransport::Mapping UcxTransport::Mapping::make(size_t bytes) {
    Mapping m;
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
        m.p_ = static_cast<uint8_t *>(p);
        m.bytes_ = bytes;
    }
    return m;
}

UcxTransport::Mapping &UcxTransport::Mapping::operator=(Mapping &&o) noexcept {
    if (this != &o) {
        unmap();
        p_ = std::exchange(o.p_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

void UcxTransport::Mapping::unmap() {
    if (p_ != nullptr) {
        munmap(p_, bytes_);
        p_ = nullptr;
        bytes_ = 0;
    }
}

std::pair<void *, size_t> UcxTransport::wrap(Owned *h, void *buf, size_t bytes,
                                             ucp_request_param_t *rp) {
    h->header = sizeof h->signature;
    h->payload = bytes;
    h->iov[0] = {&h->signature, sizeof h->signature};
    h->iov[1] = {buf, bytes};
    rp->op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    rp->datatype = ucp_dt_make_iov();
    return {h->iov, bytes > 0 ? 2 : 1};
}

ucc_status_t UcxTransport::unwrap(Owned &h, Xfer *x, ucc_status_t st, size_t length) {
    if (st != UCC_OK) {
        if (x->bytes > h.payload + h.header) {
            x->bytes -= h.header;  // a truncated message's length, as UCX gave it
        }
        return st;
    }
    if (h.header > 0) {
        if (h.dst != nullptr && length >= sizeof h.signature) {
            std::memcpy(&h.signature, h.copy.get(), sizeof h.signature);
        }
        if (length < sizeof h.signature ||
            (h.signature != 0 && x->signature != 0 && h.signature != x->signature)) {
            // Another collective (or a peer without the check) under this tag.
            x->peer_signature = length < sizeof h.signature ? 1 : h.signature;
            x->bytes = 0;
            return UCC_ERR_INVALID_PARAM;
        }
    }
    x->bytes = length - h.header;
    if (h.dst != nullptr && x->bytes > 0) {
        std::memcpy(h.dst, h.copy.get() + h.header, x->bytes);
    }
    return UCC_OK;
}

ucc_status_t UcxTransport::init(const TransportParams &p, std::string *why) {
    params_ = p;
    if (p.has_oob && p.n_oob_eps > tag::kMaxSenders) {
        *why = "the OOB has " + std::to_string(p.n_oob_eps) + " members; the UCX tag layout " +
               "(lib/tag.h) names at most " + std::to_string(tag::kMaxSenders) + " senders";
        return UCC_ERR_NO_RESOURCE;
    }
    ucp_config_t *cfg = nullptr;
    ucs_status_t us = ucp_config_read(nullptr, nullptr, &cfg);
    if (us != UCS_OK) {
        *why = std::string("ucp_config_read: ") + ucs_status_string(us);
        return UCC_ERR_NO_RESOURCE;
    }
    ucp_params_t up{};
    up.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE |
                    UCP_PARAM_FIELD_REQUEST_INIT | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    up.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA | UCP_FEATURE_AMO64;
    up.request_size = sizeof(Slot);
    up.request_init = request_init;
    up.mt_workers_shared = 0;
    us = ucp_init(&up, cfg, &context_);
    ucp_config_release(cfg);
    if (us != UCS_OK) {
        *why = std::string("ucp_init: ") + ucs_status_string(us);
        return UCC_ERR_NO_RESOURCE;
    }
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    // Under UCC_THREAD_MULTIPLE the core serialises every call on the context.
    wp.thread_mode = p.thread_multiple ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE;
    us = ucp_worker_create(context_, &wp, &worker_);
    if (us != UCS_OK) {
        *why = std::string("ucp_worker_create: ") + ucs_status_string(us);
        return UCC_ERR_NO_RESOURCE;
    }
    ucp_address_t *addr = nullptr;
    size_t len = 0;
    us = ucp_worker_get_address(worker_, &addr, &len);
    if (us != UCS_OK) {
        *why = std::string("ucp_worker_get_address: ") + ucs_status_string(us);
        return UCC_ERR_NO_RESOURCE;
    }
    const auto *a = reinterpret_cast<const uint8_t *>(addr);
    std::vector<uint8_t> worker_address(a, a + len);
    ucp_worker_release_address(worker_, addr);
    if (p.has_oob) {
        sender_ = p.oob_ep;
    } else {
        // No OOB ep to name this process: a hash of its worker address.
        uint64_t h = 1469598103934665603ull;
        for (uint8_t b : worker_address) {
            h = (h ^ b) * 1099511628211ull;
        }
        sender_ = static_cast<uint32_t>((h ^ (h >> 32)) & (tag::kMaxSenders - 1));
    }
    host_key_ = host_key();
    AddressHeader header{
        kAddressMagic, sender_, static_cast<uint32_t>(len), static_cast<uint32_t>(getpid()),
        host_key_,     {}};
    affinity(header.cpus);
    address_.resize(sizeof(header) + len);
    std::memcpy(address_.data(), &header, sizeof(header));
    std::memcpy(address_.data() + sizeof(header), worker_address.data(), len);
    ucc_status_t st = resolve(address_.data(), &self_);
    if (st != UCC_OK) {
        *why = "cannot resolve its own address";
        return st;
    }
    return UCC_OK;
}

void UcxTransport::log(const std::string &line, bool error) const {
    if (params_.log != nullptr) {
        params_.log(params_.log_ctx, error, line.c_str());
    } else if (error) {
        std::fprintf(stderr, "ucc ucx: %s\n", line.c_str());
    }
}

ucc_status_t UcxTransport::resolve(const void *address, Peer *peer) {
    AddressHeader h;
    std::memcpy(&h, address, sizeof(h));
    if (h.magic != kAddressMagic || h.sender >= tag::kMaxSenders) {
        return UCC_ERR_INVALID_PARAM;
    }
    const auto *a = static_cast<const uint8_t *>(address) + sizeof(h);
    std::vector<uint8_t> waddr(a, a + h.length);
    auto it = peers_.find(h.sender);
    if (it != peers_.end()) {
        if (it->second->worker_address != waddr) {
            log("two processes carry sender index " + std::to_string(h.sender) +
                " (contexts without an OOB name themselves by a hash of their address; create "
                "the context with an OOB)");
            return UCC_ERR_NO_RESOURCE;
        }
        *peer = it->first;
        return UCC_OK;
    }
    auto ps = std::make_unique<PeerState>();
    ps->sender = h.sender;
    ps->pid = h.pid;
    ps->same_host = h.host_key == host_key_;
    ps->host_key = h.host_key;
    if (ps->same_host) {
        // More processes of the job on this host than the CPUs they may run
        // on, together: idle polls yield.
        local_processes_++;
        for (uint32_t w = 0; w < kCpuWords; ++w) {
            local_cpus_[w] |= h.cpus[w];
        }
        oversubscribed_ = local_processes_ > local_cpu_count();
        told_polling_ = false;  // the next idle poll logs the decision
    }
    ps->worker_address = std::move(waddr);
    ps->owner = this;
    peers_.emplace(h.sender, std::move(ps));
    *peer = h.sender;
    return UCC_OK;
}

uint32_t UcxTransport::local_cpu_count() const {
    uint32_t n = 0;
    for (uint64_t w : local_cpus_) {
        n += static_cast<uint32_t>(__builtin_popcountll(w));
    }
    return n;
}

void UcxTransport::tell_polling() {
    told_polling_ = true;
    log("polling: " + std::to_string(local_processes_) + " processes of the job on this host, " +
            std::to_string(local_cpu_count()) + (local_cpu_count() == 1 ? " CPU" : " CPUs") +
            " for them: " + (oversubscribed_ ? "idle polls yield" : "busy polling"),
        false);
}

ucc_status_t UcxTransport::endpoint(Peer peer, ucp_ep_h *ep) {
    PeerState *found = find_peer(peer);
    if (found == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    PeerState &p = *found;
    if (p.failed != UCC_OK) {
        return p.failed;
    }
    if (p.ep == nullptr) {
        ucp_ep_params_t ep_params{};
        ep_params.field_mask =
            UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
        ep_params.address = reinterpret_cast<const ucp_address_t *>(p.worker_address.data());
        ep_params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
        using PE = TransportParams::PeerErrors;
        p.ep_peer_errors =
            params_.peer_errors == PE::kPeer || (params_.peer_errors == PE::kAuto && !p.same_host);
        if (p.ep_peer_errors) {
            ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        }
        // An error handler on every endpoint, also without peer error
        // handling: UCX 1.13 reports a transport error on an endpoint that
        // has none at FATAL level, which aborts the process (a rendezvous
        // whose CMA read finds the peer's process gone: process_vm_readv
        // fails with ESRCH). With a handler UCX reports it there instead,
        // the transfer fails, and this transport fails the peer's transfers.
        ep_params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep_params.err_handler.cb = on_ep_error;
        ep_params.err_handler.arg = &p;
        ucs_status_t us = ucp_ep_create(worker_, &ep_params, &p.ep);
        if (us != UCS_OK) {
            p.ep = nullptr;
            log("cannot connect to peer " + std::to_string(p.sender) +
                ": ucp_ep_create: " + ucs_status_string(us));
            p.failed = UCC_ERR_NO_RESOURCE;
            return p.failed;
        }
    }
    *ep = p.ep;
    return UCC_OK;
}

void UcxTransport::on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status) {
    auto *p = static_cast<PeerState *>(arg);
    (void)ep;
    p->owner->peer_failed(*p, ucs_status_string(status), false);
}

void UcxTransport::peer_failed(PeerState &p, const std::string &cause, bool gone) {
    if (p.failed == UCC_OK) {
        // A peer that leaves while nothing waits on it (its context was
        // destroyed first) is no failure of ours: a debug line.
        log("peer " + std::to_string(p.sender) + " failed: " + cause,
            !p.recvs.empty() || !p.sends.empty());
    }
    p.failed = UCC_ERR_NO_MESSAGE;
    // Receives posted for the peer would wait forever: fail them now.
    for (Slot *slot : p.recvs.take()) {
        Xfer *x = slot->x;
        slot->x = nullptr;
        ucp_request_cancel(worker_, slot);
        if (x != nullptr) {
            ++completions_;
            complete(x, UCC_ERR_NO_MESSAGE);
        }
    }
    // A process known to be gone: the core fails every collective that needs
    // it, also those that wait on it only through other members.
    if (gone) {
        peer_failed_notify(p.sender);
    }
    // Sends in flight to it fail too; their UCP requests are freed whenever
    // UCX completes them (at the latest when the worker goes away).
    for (Slot *slot : p.sends.take()) {
        Xfer *x = slot->x;
        slot->x = nullptr;
        if (x != nullptr) {
            ++completions_;
            x->transport_priv = nullptr;
            complete(x, UCC_ERR_NO_MESSAGE);
        }
    }
}

void UcxTransport::check_liveness() {
    const double t = now();
    if (t - last_liveness_check_ < 0.05) {
        return;
    }
    last_liveness_check_ = t;
    // Only while something waits: then every peer on this host counts, also
    // one this process never talked to (a collective may wait on it through
    // other members).
    bool waiting = false;
    for (auto &[id, ps] : peers_) {
        waiting |= !ps->recvs.empty() || !ps->sends.empty();
    }
    if (!waiting) {
        return;
    }
    for (auto &[id, ps] : peers_) {
        PeerState &p = *ps;
        if (!p.same_host || p.ep_peer_errors || p.failed != UCC_OK || id == self_) {
            continue;
        }
        if (process_gone(p.pid)) {
            peer_failed(p, "its process " + std::to_string(p.pid) + " on this host has exited",
                        true);
        }
    }
}

ucc_status_t UcxTransport::to_ucc(ucs_status_t us) {
    switch (us) {
        case UCS_OK:
            return UCC_OK;
        case UCS_ERR_MESSAGE_TRUNCATED:
            return UCC_ERR_NO_MESSAGE;
        case UCS_ERR_CANCELED:
            return UCC_ERR_NO_MESSAGE;
        case UCS_ERR_NO_MEMORY:
            return UCC_ERR_NO_MEMORY;
        case UCS_ERR_TIMED_OUT:
        case UCS_ERR_ENDPOINT_TIMEOUT:
            return UCC_ERR_TIMED_OUT;
        default:
            return UCC_ERR_NO_MESSAGE;
    }
}

ucp_request_param_t UcxTransport::op_params(bool recv) {
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    if (recv) {
        rp.cb.recv = on_recv;
    } else {
        rp.cb.send = on_send;
    }
    rp.user_data = this;
    return rp;
}

bool UcxTransport::early(void *request, ucs_status_t status, size_t length) {
    if (!posting_ || static_cast<Slot *>(request)->linked) {
        return false;
    }
    if (n_early_ < std::size(early_)) {
        early_[n_early_++] = Early{request, status, length};
        return true;
    }
    return false;  // never seen: more than a few requests completed by one call
}

ucs_status_ptr_t UcxTransport::settle(ucs_status_ptr_t r, size_t *length) {
    posting_ = false;
    for (uint32_t i = 0; i < n_early_; ++i) {
        const Early &e = early_[i];
        if (e.request != r) {
            // Another request of ours that UCX finished here: one already
            // detached (cancelled or failed), which only needs freeing.
            release(e.request);
            continue;
        }
        ucp_request_free(r);  // what it owns (if any) is still the poster's
        if (length != nullptr) {
            *length = e.status == UCS_OK ? e.length : 0;
        }
        r = e.status == UCS_OK ? nullptr : UCS_STATUS_PTR(e.status);
    }
    n_early_ = 0;
    return r;
}

void UcxTransport::on_send(void *request, ucs_status_t status, void *user_data) {
    auto *t = static_cast<UcxTransport *>(user_data);
    if (t->early(request, status, 0)) {
        return;
    }
    auto *slot = static_cast<Slot *>(request);
    Xfer *x = slot->x;
    const Peer peer = slot->peer;  // the slot is gone once the request is freed
    t->peer(peer).sends.unlink(slot);
    if (request == t->draining_) {
        t->drained_ = true;  // cancel() waits for this
    }
    slot->x = nullptr;
    t->release(request);
    if (x != nullptr) {
        if (status != UCS_OK && status != UCS_ERR_CANCELED) {
            t->log("send to peer " + std::to_string(peer) +
                   " failed: " + ucs_status_string(status));
        }
        ++t->completions_;
        x->transport_priv = nullptr;
        t->complete(x, to_ucc(status));
    }
}

void UcxTransport::on_recv(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                           void *user_data) {
    auto *t = static_cast<UcxTransport *>(user_data);
    if (t->early(request, status, status == UCS_OK ? info->length : 0)) {
        return;
    }
    auto *slot = static_cast<Slot *>(request);
    Xfer *x = slot->x;
    if (x != nullptr) {
        t->peer(slot->peer).recvs.unlink(slot);
    }
    if (request == t->draining_) {
        t->drained_ = true;  // cancel() waits for this
    }
    slot->x = nullptr;
    ucc_status_t st = to_ucc(status);
    if (x != nullptr) {
        const size_t length = status == UCS_OK ? info->length : 0;
        x->bytes = length;
        if (status == UCS_ERR_MESSAGE_TRUNCATED) {
            // Longer than the buffer: the core names the length (lib/transport.h).
            x->bytes =
                info != nullptr && info->length > x->expected ? info->length : x->expected + 1;
        }
        if (slot->owned != nullptr) {
            st = unwrap(*slot->owned, x, st, length);
        }
    }
    t->release(request);
    if (x != nullptr) {
        ++t->completions_;
        x->transport_priv = nullptr;
        t->complete(x, st);
    }
}

ucc_status_t UcxTransport::isend(Peer peer, Tag tag, const void *buf, size_t bytes,
                                 ucc_memory_type_t, Xfer *x) {
    ucp_ep_h ep = nullptr;
    UCC_TRY(endpoint(peer, &ep));
    ucp_request_param_t rp = op_params(false);
    x->bytes = bytes;
    std::unique_ptr<Owned> owned;
    std::pair<void *, size_t> data{const_cast<void *>(buf), bytes};
    if (params_.desync_check || (x->stage && bytes > 0)) [[unlikely]] {
        owned = copy_for("send to", peer, bytes);
        if (owned == nullptr) {
            return UCC_ERR_NO_MEMORY;
        }
        const size_t head = owned->header;
        if (head > 0) {
            std::memcpy(owned->copy.get(), &x->signature, head);
        }
        if (bytes > 0) {
            std::memcpy(owned->copy.get() + head, buf, bytes);
        }
        data = {owned->copy.get(), head + bytes};
    }
    begin_post();
    ucs_status_ptr_t r =
        settle(ucp_tag_send_nbx(ep, data.first, data.second, tag::wire(sender_, tag), &rp));
    if (r == nullptr) {
        recycle(std::move(owned));
        x->status = UCC_OK;
        return UCC_OK;
    }
    if (UCS_PTR_IS_ERR(r)) {
        log("send to peer " + std::to_string(peer) +
            " failed: " + ucs_status_string(UCS_PTR_STATUS(r)));
        return to_ucc(UCS_PTR_STATUS(r));
    }
    auto *slot = static_cast<Slot *>(r);
    *slot = Slot{x, peer, false, owned.release()};
    this->peer(peer).sends.link(slot);
    x->status = UCC_INPROGRESS;
    x->transport_priv = r;
    return UCC_OK;
}

ucc_status_t UcxTransport::irecv(Peer peer, Tag tag, void *buf, size_t bytes, ucc_memory_type_t,
                                 Xfer *x) {
    if (find_peer(peer) == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    ucp_tag_recv_info_t info{};
    ucp_request_param_t rp = op_params(true);
    rp.op_attr_mask |= UCP_OP_ATTR_FIELD_RECV_INFO;
    rp.recv_info.tag_info = &info;
    std::unique_ptr<Owned> owned;
    std::pair<void *, size_t> data{buf, bytes};
    if (x->stage && bytes > 0) [[unlikely]] {
        owned = copy_for("receive from", peer, bytes);
        if (owned == nullptr) {
            return UCC_ERR_NO_MEMORY;
        }
        owned->dst = buf;
        data = {owned->copy.get(), owned->header + bytes};
    } else if (params_.desync_check) [[unlikely]] {
        owned = make_owned(0);
        if (owned == nullptr) {
            return UCC_ERR_NO_MEMORY;
        }
        data = wrap(owned.get(), buf, bytes, &rp);
    }
    // A message already here is taken by probe, which names its length: UCX
    // 1.13 completes a receive of an unexpected eager message at once without
    // filling recv_info, and the core checks every received length.
    const ucp_tag_t wire = tag::wire(static_cast<uint32_t>(peer), tag);
    ucp_tag_message_h arrived = ucp_tag_probe_nb(worker_, wire, ~uint64_t{0}, 1, &info);
    if (arrived == nullptr) {
        // An endpoint to the sender lets its failure be noticed; a sender
        // already known failed, or whose endpoint cannot be made (it closed
        // its context after sending), fails the receive unless its message is
        // here already: it may still sit in shared memory, behind others a
        // progress call does not all take in (a few more looks, bounded).
        ucp_ep_h ep = nullptr;
        if (const ucc_status_t st = endpoint(peer, &ep); st != UCC_OK) {
            for (int look = 0; look < kLooksForAGoneSender && arrived == nullptr; ++look) {
                ucp_worker_progress(worker_);
                arrived = ucp_tag_probe_nb(worker_, wire, ~uint64_t{0}, 1, &info);
            }
            if (arrived == nullptr) {
                return st;
            }
        }
    }
    begin_post();
    ucs_status_ptr_t r =
        arrived != nullptr
            ? settle(ucp_tag_msg_recv_nbx(worker_, data.first, data.second, arrived, &rp))
            : settle(ucp_tag_recv_nbx(worker_, data.first, data.second, wire, ~uint64_t{0}, &rp),
                     &info.length);
    if (r == nullptr || UCS_PTR_IS_ERR(r)) {
        ucc_status_t st = r == nullptr ? UCC_OK : to_ucc(UCS_PTR_STATUS(r));
        x->bytes = r == nullptr ? info.length
                   : UCS_PTR_STATUS(r) == UCS_ERR_MESSAGE_TRUNCATED
                       ? std::max(info.length, bytes + 1)
                       : 0;
        if (owned != nullptr) {
            st = unwrap(*owned, x, st, info.length);
        }
        recycle(std::move(owned));
        x->status = st;
        return UCC_OK;  // reported on the Xfer (a truncated message, ...)
    }
    auto *slot = static_cast<Slot *>(r);
    *slot = Slot{x, peer, true, owned.release()};
    this->peer(peer).recvs.link(slot);
    x->status = UCC_INPROGRESS;
    x->transport_priv = r;
    return UCC_OK;
}

void UcxTransport::cancel(Xfer *x) {
    if (cancel_watch(x)) {
        return;
    }
    void *req = x->transport_priv;
    if (req == nullptr || x->done()) {
        return;
    }
    auto *slot = static_cast<Slot *>(req);
    if (slot->x != x) {
        return;
    }
    slot->x = nullptr;
    x->transport_priv = nullptr;
    x->status = UCC_ERR_NO_MESSAGE;
    // What UCX may still read or write after this: the caller's buffer,
    // unless the transfer goes through a copy (a send with one, a staged
    // receive). The request is freed whenever UCX completes it, which may be
    // inside ucp_request_cancel: nothing of the slot is read after that.
    const Peer peer_id = slot->peer;
    const bool is_recv = slot->is_recv;
    const bool copied = slot->owned != nullptr && (!is_recv || slot->owned->dst != nullptr);
    draining_ = copied ? nullptr : req;
    drained_ = false;
    (is_recv ? peer(peer_id).recvs : peer(peer_id).sends).unlink(slot);
    if (copied) {
        slot->owned->is_send = !is_recv;
        detach(slot->owned);
    }
    if (is_recv) {
        // A receive not yet matched is withdrawn at once; one already matched
        // and in flight (a rendezvous) cannot be stopped.
        ucp_request_cancel(worker_, req);
    }
    // A send cannot be withdrawn: its peer may read the buffer until the
    // send completes.
    if (!copied) {
        drain(peer_id, is_recv ? "receive" : "send");
    }
    draining_ = nullptr;
}

void UcxTransport::drain(Peer peer_id, const char *what) {
    // The cancels of one teardown (between two progress() calls) share one
    // bound, and a failed peer's transfer is not waited for.
    if (!in_drain_burst_) {
        in_drain_burst_ = true;
        drain_deadline_ = now() + kCancelDrainS;
    }
    const PeerState &p = peer(peer_id);
    while (!drained_ && p.failed == UCC_OK && now() < drain_deadline_) {
        ucp_worker_progress(worker_);
    }
    if (!drained_ && p.failed == UCC_OK) {
        log(std::string("a cancelled ") + what + " with peer " + std::to_string(peer_id) +
            " is still in flight after " + std::to_string(kCancelDrainS) +
            " s; UCX may still use its buffer");
    }
}

bool UcxTransport::find_type_conflict(Tag base, Peer *peer, uint32_t *type_bit) {
    // The wire tags of the instance's algorithm messages from any sender, at
    // any step, of each type but its own (the S bit clear: the core's own
    // messages carry no type).
    const uint32_t mine = (tag::step_of(base) & tag::kTypeMask) >> tag::kTypeShift;
    const uint64_t sender_mask = ((uint64_t{1} << tag::kWireSenderBits) - 1) << 44;
    const uint64_t step_mask = (uint64_t{1} << tag::kWireStepBits) - 1;
    for (uint32_t type = 0; type < 16; ++type) {
        if (type == mine) {
            continue;
        }
        const Tag t = (base & ~Tag{tag::kStepMask}) | (Tag{type} << tag::kTypeShift);
        ucp_tag_recv_info_t info{};
        if (ucp_tag_probe_nb(worker_, tag::wire(0, t), ~(sender_mask | step_mask), 0, &info) !=
            nullptr) {
            *peer = tag::wire_sender(info.sender_tag);
            *type_bit = type;
            return true;
        }
    }
    return false;
}

int UcxTransport::progress() {
    completions_ = 0;
    in_drain_burst_ = false;
    ucp_worker_progress(worker_);
    // Same-host peers without UCX's error handling: liveness, now and then
    // (a clock read costs more than an idle worker poll).
    if (params_.peer_errors == TransportParams::PeerErrors::kAuto && (++polls_ & 1023) == 0) {
        check_liveness();
    }
    if (watching()) {
        completions_ += static_cast<uint64_t>(poll_watches());
    }
    return static_cast<int>(completions_);
}

double UcxTransport::now() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void UcxTransport::close_endpoints() {
    uint64_t issued = 0;
    closes_done_ = 0;
    for (auto &[id, ps] : peers_) {
        PeerState &p = *ps;
        if (p.ep == nullptr) {
            continue;
        }
        // A forced close needs peer error handling on both sides (ucp.h);
        // without it the endpoint is flushed, which shared memory does locally.
        // The close request is released at once and counted by its callback:
        // a request of ours still held when UCX fails the endpoint during its
        // flush (the peer died meanwhile) trips UCX 1.13's assertion that the
        // queue holds only released requests (an abort).
        ucp_request_param_t rp{};
        rp.op_attr_mask =
            UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
        rp.flags = p.ep_peer_errors ? UCP_EP_CLOSE_FLAG_FORCE : 0;
        rp.cb.send = [](void *, ucs_status_t, void *user_data) {
            ++static_cast<UcxTransport *>(user_data)->closes_done_;
        };
        rp.user_data = this;
        ucs_status_ptr_t r = ucp_ep_close_nbx(p.ep, &rp);
        if (r != nullptr && !UCS_PTR_IS_ERR(r)) {
            ++issued;
            ucp_request_free(r);
        }
        p.ep = nullptr;
    }
    // Bounded: a forced close completes locally, a flush within the deadline
    // (or the worker's destruction finishes it).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (closes_done_ < issued && std::chrono::steady_clock::now() < deadline) {
        ucp_worker_progress(worker_);
    }
    // Then the worker itself is flushed: UCX discards the transports of an
    // endpoint that failed (a peer died) in the background, and a CMA copy
    // still queued on one when the worker is destroyed trips UCX 1.13's
    // assertion that its queue is empty (an abort). Each progress call fails
    // at least one queued copy to the dead process, so the queue empties
    // within microseconds; the flush says so once every discard has finished.
    // Some never do (a shared-memory FIFO the dead peer left full), hence a
    // bound of its own, 250 ms: the worker's destruction ends those cleanly.
    if (worker_ == nullptr) {
        return;  // (its creation failed)
    }
    ucp_request_param_t fp{};
    fp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    fp.cb.send = [](void *, ucs_status_t, void *user_data) {
        static_cast<UcxTransport *>(user_data)->worker_flushed_ = true;
    };
    fp.user_data = this;
    worker_flushed_ = false;
    ucs_status_ptr_t f = ucp_worker_flush_nbx(worker_, &fp);
    if (f == nullptr || UCS_PTR_IS_ERR(f)) {
        return;
    }
    ucp_request_free(f);  // released: the callback marks its completion
    const auto settled =
        std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(250));
    while (!worker_flushed_ && std::chrono::steady_clock::now() < settled) {
        ucp_worker_progress(worker_);
    }
}

ucc_status_t create(const TransportParams &p, std::unique_ptr<Transport> *out, std::string *why) {
    auto t = std::make_unique<UcxTransport>();
    ucc_status_t st = t->init(p, why);
    if (st != UCC_OK) {
        return st;
    }
    *out = std::move(t);
    return UCC_OK;
}

namespace {

bool available(const TransportParams &p, std::string *why) {
    if (!p.has_oob || p.n_oob_eps <= 1) {
        *why = "a context of one process (the loopback serves it)";
        return false;
    }
    return true;
}

}  // namespace

}  // namespace ucc::ucx

namespace ucc {
extern const TransportEntry kTransport_ucx;
const TransportEntry kTransport_ucx{"ucx", "ucp",
                                    "UCX (UCP tag matching and RMA): processes on one or many "
                                    "hosts over shared memory, TCP or InfiniBand",
                                    ucx::available, ucx::create};
}  // namespace ucc
