#include "transports/self/self_transport.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <vector>

namespace ucc::self {

namespace {

constexpr Peer kSelf = 0;

#define UCC_TRY_RKEY(peer, addr, bytes, rkey)    \
    do {                                         \
        if (!rkey_ok(peer, addr, bytes, rkey)) { \
            return UCC_ERR_INVALID_PARAM;        \
        }                                        \
    } while (0)

class SelfTransport final : public Transport {
  public:
    const char *name() const override { return "self"; }
    size_t address_length() const override { return sizeof(uint64_t); }
    void address(void *out) const override {
        uint64_t a = kSelf;
        std::memcpy(out, &a, sizeof(a));
    }
    ucc_status_t resolve(const void *address, Peer *peer) override {
        uint64_t a;
        std::memcpy(&a, address, sizeof(a));
        if (a != kSelf) {
            return UCC_ERR_NOT_FOUND;
        }
        *peer = kSelf;
        return UCC_OK;
    }
    Peer self() const override { return kSelf; }

    ucc_status_t isend(Peer peer, Tag tag, const void *buf, size_t bytes, ucc_memory_type_t,
                       Xfer *x) override {
        if (peer != kSelf) {
            return UCC_ERR_NOT_FOUND;
        }
        auto &q = posted_[tag];
        if (!q.empty()) {
            Pending r = q.front();
            q.pop_front();
            deliver(r, buf, bytes);
            completed_.push_back(r.x);
        } else {
            const auto *p = static_cast<const uint8_t *>(buf);
            unexpected_[tag].emplace_back(p, p + bytes);
        }
        x->bytes = bytes;
        x->status = UCC_OK;
        return UCC_OK;
    }
    ucc_status_t irecv(Peer peer, Tag tag, void *buf, size_t bytes, ucc_memory_type_t,
                       Xfer *x) override {
        if (peer != kSelf) {
            return UCC_ERR_NOT_FOUND;
        }
        x->status = UCC_INPROGRESS;
        Pending r{x, buf, bytes};
        auto it = unexpected_.find(tag);
        if (it != unexpected_.end() && !it->second.empty()) {
            std::vector<uint8_t> m = std::move(it->second.front());
            it->second.pop_front();
            deliver(r, m.data(), m.size());
            completed_.push_back(x);
            return UCC_OK;
        }
        posted_[tag].push_back(r);
        return UCC_OK;
    }
    void cancel(Xfer *x) override {
        if (cancel_watch(x)) {
            return;
        }
        for (auto &[tag, q] : posted_) {
            for (auto it = q.begin(); it != q.end(); ++it) {
                if (it->x == x) {
                    q.erase(it);
                    x->status = UCC_ERR_NO_MESSAGE;
                    return;
                }
            }
        }
        for (auto it = completed_.begin(); it != completed_.end(); ++it) {
            if (*it == x) {
                completed_.erase(it);
                return;
            }
        }
    }

    ucc_status_t mem_register(void *base, size_t length, MemRegion *region) override {
        region->base = base;
        region->length = length;
        return UCC_OK;
    }
    void mem_deregister(MemRegion *region) override { region->base = nullptr; }
    std::vector<uint8_t> rkey_pack(const MemRegion &region) override {
        std::vector<uint8_t> k(2 * sizeof(uint64_t));
        uint64_t b = reinterpret_cast<uintptr_t>(region.base);
        uint64_t l = region.length;
        std::memcpy(k.data(), &b, sizeof(b));
        std::memcpy(k.data() + sizeof(b), &l, sizeof(l));
        return k;
    }
    ucc_status_t put(Peer peer, const void *src, size_t bytes, uint64_t remote_addr,
                     const std::vector<uint8_t> &rkey, Xfer *x) override {
        UCC_TRY_RKEY(peer, remote_addr, bytes, rkey);
        std::memmove(reinterpret_cast<void *>(remote_addr), src, bytes);
        x->bytes = bytes;
        x->status = UCC_OK;
        return UCC_OK;
    }
    ucc_status_t get(Peer peer, void *dst, size_t bytes, uint64_t remote_addr,
                     const std::vector<uint8_t> &rkey, Xfer *x) override {
        UCC_TRY_RKEY(peer, remote_addr, bytes, rkey);
        std::memmove(dst, reinterpret_cast<const void *>(remote_addr), bytes);
        x->bytes = bytes;
        x->status = UCC_OK;
        return UCC_OK;
    }
    ucc_status_t atomic_add(Peer peer, uint64_t remote_addr, uint64_t value,
                            const std::vector<uint8_t> &rkey, Xfer *x) override {
        UCC_TRY_RKEY(peer, remote_addr, sizeof(uint64_t), rkey);
        auto *p = reinterpret_cast<uint64_t *>(remote_addr);
        *p += value;
        x->status = UCC_OK;
        return UCC_OK;
    }
    ucc_status_t fence() override { return UCC_OK; }  // applied at once, in order
    ucc_status_t flush(Peer peer, Xfer *x) override {
        if (peer != kSelf) {
            return UCC_ERR_NOT_FOUND;
        }
        x->status = UCC_OK;
        return UCC_OK;
    }

    int progress() override {
        int n = poll_watches();
        while (!completed_.empty()) {
            Xfer *x = completed_.front();
            completed_.pop_front();
            complete(x, x->status == UCC_INPROGRESS ? UCC_OK : x->status);
            ++n;
        }
        return n;
    }
    double now() const override {
        // A real transport's clock: monotonic seconds.
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    void idle(double) override {}

  private:
    struct Pending {
        Xfer *x;
        void *buf;
        size_t cap;
    };
    static void deliver(Pending &r, const void *data, size_t bytes) {
        if (bytes > r.cap) {
            r.x->bytes = 0;
            r.x->status = UCC_ERR_NO_MESSAGE;
            return;
        }
        if (bytes != 0) {
            std::memcpy(r.buf, data, bytes);
        }
        r.x->bytes = bytes;
    }
    static bool rkey_ok(Peer peer, uint64_t addr, size_t bytes, const std::vector<uint8_t> &rkey) {
        if (peer != kSelf || rkey.size() != 2 * sizeof(uint64_t)) {
            return false;
        }
        uint64_t b;
        uint64_t l;
        std::memcpy(&b, rkey.data(), sizeof(b));
        std::memcpy(&l, rkey.data() + sizeof(b), sizeof(l));
        return addr >= b && addr + bytes <= b + l;
    }

    std::map<Tag, std::deque<Pending>> posted_;
    std::map<Tag, std::deque<std::vector<uint8_t>>> unexpected_;
    std::deque<Xfer *> completed_;
};

}  // namespace

std::unique_ptr<Transport> make_transport() {
    return std::make_unique<SelfTransport>();
}

namespace {

bool one_process(const TransportParams &p, std::string *why) {
    if (p.has_oob && p.n_oob_eps > 1) {
        *why = "the loopback transport serves one process; this context's OOB has " +
               std::to_string(p.n_oob_eps) + " members";
        return false;
    }
    return true;
}

ucc_status_t create(const TransportParams &p, std::unique_ptr<Transport> *out, std::string *why) {
    if (!one_process(p, why)) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    *out = make_transport();
    return UCC_OK;
}

}  // namespace

}  // namespace ucc::self

namespace ucc {
extern const TransportEntry kTransport_self;
const TransportEntry kTransport_self{"self", nullptr,
                                     "loopback: a context that reaches only itself (one process)",
                                     self::one_process, self::create};
}  // namespace ucc
