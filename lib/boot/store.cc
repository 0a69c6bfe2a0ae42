// The rendezvous store: server and client over Boost.Asio (protocol in store.h).
#include "lib/boot/store.h"

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// clang-format off
#include <algorithm>
#include <boost/asio.hpp>
// clang-format on
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace ucc::boot {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

namespace {

// No wait is longer than this (it keeps deadline arithmetic far from overflow).
constexpr Millis kTimeoutMax{Millis(365LL * 24 * 3600 * 1000)};
// How long past a get's own timeout the client waits for the server to say so.
constexpr Millis kReplyGrace{2000};
constexpr size_t kRequestHeadBytes = 1 + 8;  // op, id
constexpr size_t kReplyHeadBytes = 8 + 1;    // id, code

// ---- little-endian encoding

void put_u32(std::vector<uint8_t> &b, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

void put_u64(std::vector<uint8_t> &b, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

void put_bytes(std::vector<uint8_t> &b, const void *data, size_t n) {
    put_u32(b, static_cast<uint32_t>(n));
    const auto *p = static_cast<const uint8_t *>(data);
    b.insert(b.end(), p, p + n);
}

void put_str(std::vector<uint8_t> &b, std::string_view s) {
    put_bytes(b, s.data(), s.size());
}

// Overwrites the leading u32 with the byte count that follows it.
void seal_frame(std::vector<uint8_t> &b) {
    uint32_t n = static_cast<uint32_t>(b.size() - 4);
    for (int i = 0; i < 4; ++i) {
        b[i] = static_cast<uint8_t>(n >> (8 * i));
    }
}

uint32_t get_le32(const uint8_t *p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// Reads a body front to back; any overrun clears ok and yields zeros.
struct Reader {
    const uint8_t *p;
    size_t left;
    bool ok = true;

    bool take(size_t n) {
        if (!ok || left < n) {
            ok = false;
            return false;
        }
        return true;
    }
    uint8_t u8() {
        if (!take(1)) {
            return 0;
        }
        left -= 1;
        return *p++;
    }
    uint32_t u32() {
        if (!take(4)) {
            return 0;
        }
        uint32_t v = get_le32(p);
        p += 4;
        left -= 4;
        return v;
    }
    uint64_t u64() {
        if (!take(8)) {
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) {
            v |= uint64_t{p[i]} << (8 * i);
        }
        p += 8;
        left -= 8;
        return v;
    }
    std::span<const uint8_t> bytes() {
        uint32_t n = u32();
        if (!take(n)) {
            return {};
        }
        std::span<const uint8_t> s(p, n);
        p += n;
        left -= n;
        return s;
    }
    std::string_view str() {
        auto s = bytes();
        return {reinterpret_cast<const char *>(s.data()), s.size()};
    }
};

std::string describe_keys(const char *verb, const std::vector<std::string> &keys) {
    std::string s = verb;
    s += " of " + std::to_string(keys.size()) + (keys.size() == 1 ? " key" : " keys");
    if (!keys.empty()) {
        s += " ('" + keys[0] + (keys.size() > 1 ? "', ...)" : "')");
    }
    return s;
}

double seconds(Millis t) {
    return static_cast<double>(t.count()) / 1000.0;
}

}  // namespace

std::string format_address(std::string_view host, uint16_t port) {
    std::string h(host);
    if (h.find(':') != std::string::npos) {
        h = "[" + h + "]";
    }
    return h + ":" + std::to_string(port);
}

// ============================================================================
// Server
// ============================================================================

struct StoreServer::Impl {
    struct Conn;

    // Keys prefix*suffix belong to `name` (kOwn).
    struct Owned {
        std::string prefix;
        std::string suffix;
        std::string name;
        bool matches(const std::string &key) const {
            return key.size() >= prefix.size() + suffix.size() && key.starts_with(prefix) &&
                   key.ends_with(suffix);
        }
    };

    // A parked get or wait: answered when `missing` reaches 0, or on timeout.
    struct Waiter {
        explicit Waiter(asio::io_context &io) : timer(io) {}
        std::weak_ptr<Conn> conn;
        uint64_t id = 0;
        bool with_values = false;
        std::vector<std::string> keys;
        size_t missing = 0;  // keys (with repeats) absent when parked, not yet set
        asio::steady_timer timer;
        bool done = false;
    };
    using WaiterPtr = std::shared_ptr<Waiter>;

    // A reply: a header, then for a get the values, each after its length.
    // Values are shared with the table, so n ranks reading the same n values
    // do not copy them n times.
    struct OutFrame {
        std::vector<uint8_t> head;
        std::vector<uint8_t> lengths;  // 4 bytes per value
        std::vector<std::shared_ptr<const std::vector<uint8_t>>> values;
        std::vector<asio::const_buffer> buffers;
    };

    struct Conn : std::enable_shared_from_this<Conn> {
        explicit Conn(tcp::socket s) : sock(std::move(s)) {}
        tcp::socket sock;
        std::string peer;
        uint8_t head[4] = {};
        std::vector<uint8_t> body;
        std::deque<OutFrame> out;
        bool writing = false;
        bool closed = false;
        std::vector<WaiterPtr> waiters;  // parked, not yet answered
        std::vector<Owned> owns;         // kOwn patterns of this connection
    };
    using ConnPtr = std::shared_ptr<Conn>;

    struct Entry {
        std::shared_ptr<const std::vector<uint8_t>> value;
        uint32_t reads_left = 0;  // 0: permanent
    };

    asio::io_context io;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    tcp::acceptor acceptor{io};
    asio::steady_timer accept_retry{io};
    std::thread thread;
    std::string address;
    uint16_t port = 0;
    core::Logger log;

    // Touched only by the server thread once it runs.
    std::unordered_map<std::string, Entry> table;
    std::unordered_map<std::string, std::vector<WaiterPtr>> watchers;  // by absent key
    std::unordered_set<ConnPtr> conns;
    std::vector<Owned> gone;  // patterns whose owner's connection closed

    // Shared with callers of clients(), wait_idle() and departed().
    mutable std::mutex mu;
    std::condition_variable idle_cv;
    size_t n_clients = 0;
    std::vector<std::string> departed;  // names of gone owners, in order

    void accept();
    void read_head(const ConnPtr &c);
    void read_body(const ConnPtr &c);
    void close(const ConnPtr &c, const char *why);
    void handle(const ConnPtr &c);
    void handle_set(const ConnPtr &c, uint64_t id, Reader &r);
    void handle_get(const ConnPtr &c, uint64_t id, Reader &r, bool with_values);
    void handle_add(const ConnPtr &c, uint64_t id, Reader &r);
    void handle_own(const ConnPtr &c, uint64_t id, Reader &r);
    // The owner of a missing key of `w` left: the gone pattern, or nullptr.
    const Owned *gone_owner(const WaiterPtr &w) const;
    void answer_gone(const WaiterPtr &w, const Owned &o);
    void key_created(const std::string &key);
    void answer(const WaiterPtr &w);
    void expire(const WaiterPtr &w);
    void unpark(const WaiterPtr &w);
    void send(const ConnPtr &c, OutFrame f);
    void send_code(const ConnPtr &c, uint64_t id, StoreCode code, std::string_view text);
    void write_next(const ConnPtr &c);
    void shutdown();
};

StoreServer::StoreServer() : impl_(std::make_unique<Impl>()) {}

StoreServer::~StoreServer() {
    stop();
}

void StoreServer::set_log_level(core::LogLevel level) {
    impl_->log.set_level(level);
}

ucc_status_t StoreServer::start(const std::string &host, uint16_t port) {
    Impl &s = *impl_;
    if (s.thread.joinable()) {
        UCC_LOG(s.log, kError, "boot store: start on %s: already serving %s",
                format_address(host, port).c_str(), s.address.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    error_code ec;
    tcp::resolver resolver(s.io);
    auto results = resolver.resolve(host, std::to_string(port),
                                    tcp::resolver::numeric_service | tcp::resolver::passive, ec);
    if (ec) {
        UCC_LOG(s.log, kError, "boot store: cannot resolve host '%s': %s", host.c_str(),
                ec.message().c_str());
        return UCC_ERR_NO_RESOURCE;
    }
    std::string last_error = "no address";
    bool bound = false;
    for (const auto &entry : results) {
        error_code e;
        s.acceptor.close(e);
        s.acceptor.open(entry.endpoint().protocol(), e);
        if (!e) {
            s.acceptor.set_option(tcp::acceptor::reuse_address(true), e);
        }
        if (!e) {
            s.acceptor.bind(entry.endpoint(), e);
        }
        if (!e) {
            s.acceptor.listen(asio::socket_base::max_listen_connections, e);
        }
        if (!e) {
            bound = true;
            break;
        }
        last_error = e.message();
    }
    if (!bound) {
        s.acceptor.close(ec);
        UCC_LOG(s.log, kError, "boot store: cannot listen on %s: %s",
                format_address(host, port).c_str(), last_error.c_str());
        return UCC_ERR_NO_RESOURCE;
    }
    tcp::endpoint local = s.acceptor.local_endpoint(ec);
    s.port = local.port();
    s.address = format_address(local.address().to_string(), s.port);
    s.log.set_prefix("boot store " + s.address);
    s.accept();
    s.work.emplace(s.io.get_executor());
    s.thread = std::thread([&s] {
        // Handlers report errors as values; only allocation failure can throw.
        try {
            s.io.run();
        } catch (const std::exception &e) {
            UCC_LOG(s.log, kError, "server thread stopped: %s", e.what());
        }
    });
    return UCC_OK;
}

uint16_t StoreServer::port() const {
    return impl_->port;
}

const std::string &StoreServer::address() const {
    return impl_->address;
}

size_t StoreServer::clients() const {
    std::lock_guard lk(impl_->mu);
    return impl_->n_clients;
}

std::vector<std::string> StoreServer::departed() const {
    std::lock_guard lk(impl_->mu);
    return impl_->departed;
}

size_t StoreServer::key_count() const {
    Impl &s = *impl_;
    if (!s.thread.joinable()) {
        return s.table.size();
    }
    auto count = std::make_shared<std::promise<size_t>>();
    auto result = count->get_future();
    asio::post(s.io, [&s, count] { count->set_value(s.table.size()); });
    // Bounded in case the server thread died (it logged why).
    if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        return 0;
    }
    return result.get();
}

void StoreServer::stop_accepting() {
    Impl &s = *impl_;
    if (!s.thread.joinable()) {
        return;
    }
    auto done = std::make_shared<std::promise<void>>();
    auto closed = done->get_future();
    asio::post(s.io, [&s, done] {
        error_code ec;
        s.acceptor.close(ec);
        s.accept_retry.cancel();
        done->set_value();
    });
    // Bounded in case the server thread died (it logged why).
    closed.wait_for(std::chrono::seconds(10));
}

bool StoreServer::wait_idle(Millis timeout) {
    std::unique_lock lk(impl_->mu);
    return impl_->idle_cv.wait_for(lk, std::min(timeout, kTimeoutMax),
                                   [this] { return impl_->n_clients == 0; });
}

void StoreServer::stop() {
    Impl &s = *impl_;
    if (!s.thread.joinable()) {
        return;
    }
    asio::post(s.io, [&s] { s.shutdown(); });
    s.work.reset();
    // Once everything is closed, the aborted operations' handlers run and
    // io.run() returns for lack of work.
    s.thread.join();
}

void StoreServer::Impl::shutdown() {
    error_code ec;
    acceptor.close(ec);
    accept_retry.cancel();
    std::vector<ConnPtr> all(conns.begin(), conns.end());
    for (const ConnPtr &c : all) {
        close(c, nullptr);
    }
    watchers.clear();
    table.clear();
}

void StoreServer::Impl::accept() {
    acceptor.async_accept([this](error_code ec, tcp::socket sock) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) {
            return;
        }
        if (ec) {
            // E.g. out of descriptors: say so and try again shortly.
            UCC_LOG(log, kError, "accept failed: %s", ec.message().c_str());
            accept_retry.expires_after(Millis(50));
            accept_retry.async_wait([this](error_code e) {
                if (!e) {
                    accept();
                }
            });
            return;
        }
        auto c = std::make_shared<Conn>(std::move(sock));
        error_code e;
        c->sock.set_option(tcp::no_delay(true), e);
        auto peer = c->sock.remote_endpoint(e);
        c->peer = e ? std::string("?") : format_address(peer.address().to_string(), peer.port());
        conns.insert(c);
        {
            std::lock_guard lk(mu);
            ++n_clients;
        }
        UCC_LOG(log, kDebug, "client %s connected", c->peer.c_str());
        read_head(c);
        accept();
    });
}

void StoreServer::Impl::read_head(const ConnPtr &c) {
    asio::async_read(c->sock, asio::buffer(c->head), [this, c](error_code ec, size_t) {
        if (c->closed) {
            return;
        }
        if (ec) {
            close(c, ec == asio::error::eof ? nullptr : ec.message().c_str());
            return;
        }
        uint32_t n = get_le32(c->head);
        if (n < kRequestHeadBytes || n > kFrameBytesMax) {
            UCC_LOG(log, kError, "client %s sent a frame of %u bytes; closing it", c->peer.c_str(),
                    n);
            close(c, nullptr);
            return;
        }
        c->body.resize(n);
        read_body(c);
    });
}

void StoreServer::Impl::read_body(const ConnPtr &c) {
    asio::async_read(c->sock, asio::buffer(c->body), [this, c](error_code ec, size_t) {
        if (c->closed) {
            return;
        }
        if (ec) {
            close(c, ec.message().c_str());
            return;
        }
        handle(c);
        if (!c->closed) {
            read_head(c);
        }
    });
}

void StoreServer::Impl::close(const ConnPtr &c, const char *why) {
    if (c->closed) {
        return;
    }
    c->closed = true;
    if (why != nullptr) {
        UCC_LOG(log, kDebug, "client %s: %s", c->peer.c_str(), why);
    }
    for (const WaiterPtr &w : c->waiters) {
        w->done = true;
        w->timer.cancel();
        unpark(w);
    }
    c->waiters.clear();
    // The keys it owned will never come: fail whoever waits on one now.
    if (!c->owns.empty()) {
        for (Owned &o : c->owns) {
            UCC_LOG(log, kDebug, "client %s (%s) left", c->peer.c_str(), o.name.c_str());
            {
                std::lock_guard lk(mu);
                departed.push_back(o.name);
            }
            gone.push_back(std::move(o));
        }
        c->owns.clear();
        std::vector<WaiterPtr> parked;
        for (const ConnPtr &other : conns) {
            parked.insert(parked.end(), other->waiters.begin(), other->waiters.end());
        }
        for (const WaiterPtr &w : parked) {
            if (const Owned *o = gone_owner(w); o != nullptr && !w->done) {
                answer_gone(w, *o);
            }
        }
    }
    if (!c->writing) {
        c->out.clear();  // else the aborted write's handler does
    }
    error_code ec;
    c->sock.close(ec);
    conns.erase(c);
    std::lock_guard lk(mu);
    --n_clients;
    idle_cv.notify_all();
}

void StoreServer::Impl::handle(const ConnPtr &c) {
    Reader r{c->body.data(), c->body.size()};
    auto op = static_cast<StoreOp>(r.u8());
    uint64_t id = r.u64();
    switch (op) {
        case StoreOp::kSet:
            handle_set(c, id, r);
            break;
        case StoreOp::kGet:
            handle_get(c, id, r, true);
            break;
        case StoreOp::kWait:
            handle_get(c, id, r, false);
            break;
        case StoreOp::kAdd:
            handle_add(c, id, r);
            break;
        case StoreOp::kOwn:
            handle_own(c, id, r);
            break;
        default:
            send_code(c, id, StoreCode::kBadRequest,
                      "unknown op " + std::to_string(static_cast<int>(op)));
    }
}

void StoreServer::Impl::handle_set(const ConnPtr &c, uint64_t id, Reader &r) {
    uint32_t reads = r.u32();
    std::string key(r.str());
    auto value = r.bytes();
    if (!r.ok || key.size() > kKeyBytesMax) {
        send_code(c, id, StoreCode::kBadRequest, r.ok ? "key too long" : "malformed set");
        return;
    }
    auto [it, created] = table.try_emplace(key);
    it->second.value = std::make_shared<const std::vector<uint8_t>>(value.begin(), value.end());
    it->second.reads_left = reads;
    send_code(c, id, StoreCode::kOk, {});
    if (created) {
        key_created(key);
    }
}

void StoreServer::Impl::handle_add(const ConnPtr &c, uint64_t id, Reader &r) {
    std::string key(r.str());
    uint64_t delta = r.u64();
    if (!r.ok || key.size() > kKeyBytesMax) {
        send_code(c, id, StoreCode::kBadRequest, r.ok ? "key too long" : "malformed add");
        return;
    }
    auto [it, created] = table.try_emplace(key);
    uint64_t sum = delta;  // unsigned: wraps instead of overflowing
    if (!created) {
        const auto &old = *it->second.value;
        if (old.size() != 8) {
            send_code(c, id, StoreCode::kBadRequest,
                      "add on key '" + key + "' whose value is not 8 bytes");
            return;
        }
        Reader vr{old.data(), old.size()};
        sum += vr.u64();
    }
    std::vector<uint8_t> v;
    put_u64(v, sum);
    it->second.value = std::make_shared<const std::vector<uint8_t>>(v);
    it->second.reads_left = 0;
    OutFrame f;
    put_u32(f.head, 0);
    put_u64(f.head, id);
    f.head.push_back(static_cast<uint8_t>(StoreCode::kOk));
    put_u64(f.head, sum);
    seal_frame(f.head);
    send(c, std::move(f));
    if (created) {
        key_created(key);
    }
}

void StoreServer::Impl::handle_own(const ConnPtr &c, uint64_t id, Reader &r) {
    Owned o;
    o.prefix = r.str();
    o.suffix = r.str();
    o.name = r.str();
    if (!r.ok || o.prefix.size() + o.suffix.size() > kKeyBytesMax) {
        send_code(c, id, StoreCode::kBadRequest, "malformed own");
        return;
    }
    c->owns.push_back(std::move(o));
    send_code(c, id, StoreCode::kOk, {});
}

const StoreServer::Impl::Owned *StoreServer::Impl::gone_owner(const WaiterPtr &w) const {
    for (const Owned &o : gone) {
        for (const std::string &k : w->keys) {
            if (o.matches(k) && !table.contains(k)) {
                return &o;
            }
        }
    }
    return nullptr;
}

void StoreServer::Impl::answer_gone(const WaiterPtr &w, const Owned &o) {
    w->done = true;
    w->timer.cancel();
    ConnPtr c = w->conn.lock();
    if (c) {
        std::erase(c->waiters, w);
    }
    unpark(w);
    if (c) {
        send_code(c, w->id, StoreCode::kGone,
                  o.name + " left the store (its connection closed) before setting its key");
    }
}

void StoreServer::Impl::handle_get(const ConnPtr &c, uint64_t id, Reader &r, bool with_values) {
    uint64_t timeout_ms = r.u64();
    uint32_t n = r.u32();
    if (!r.ok || n > kKeysPerRequestMax) {
        send_code(c, id, StoreCode::kBadRequest, "malformed get");
        return;
    }
    auto w = std::make_shared<Waiter>(io);
    w->conn = c;
    w->id = id;
    w->with_values = with_values;
    w->keys.reserve(n);
    for (uint32_t i = 0; i < n && r.ok; ++i) {
        w->keys.emplace_back(r.str());
    }
    if (!r.ok) {
        send_code(c, id, StoreCode::kBadRequest, "malformed get");
        return;
    }
    for (const std::string &k : w->keys) {
        if (!table.contains(k)) {
            ++w->missing;
            watchers[k].push_back(w);
        }
    }
    if (w->missing == 0) {
        answer(w);
        return;
    }
    if (const Owned *o = gone.empty() ? nullptr : gone_owner(w); o != nullptr) {
        answer_gone(w, *o);
        return;
    }
    c->waiters.push_back(w);
    w->timer.expires_after(std::min(Millis(timeout_ms), kTimeoutMax));
    w->timer.async_wait([this, w](error_code ec) {
        if (!ec && !w->done) {
            expire(w);
        }
    });
}

// Every waiter parked on `key` has one key fewer to wait for.
void StoreServer::Impl::key_created(const std::string &key) {
    auto it = watchers.find(key);
    if (it == watchers.end()) {
        return;
    }
    std::vector<WaiterPtr> list = std::move(it->second);
    watchers.erase(it);
    for (const WaiterPtr &w : list) {
        if (!w->done && --w->missing == 0) {
            answer(w);
        }
    }
}

// Removes a finished waiter from its connection's list and from the watch
// lists of the keys it still lacked.
void StoreServer::Impl::unpark(const WaiterPtr &w) {
    for (const std::string &k : w->keys) {
        auto it = watchers.find(k);
        if (it == watchers.end()) {
            continue;
        }
        std::erase(it->second, w);
        if (it->second.empty()) {
            watchers.erase(it);
        }
    }
}

void StoreServer::Impl::answer(const WaiterPtr &w) {
    w->done = true;
    w->timer.cancel();
    ConnPtr c = w->conn.lock();
    if (c) {
        std::erase(c->waiters, w);
    }
    if (!w->with_values) {
        if (c) {
            send_code(c, w->id, StoreCode::kOk, {});
        }
        return;
    }
    // Collect every value first: a key whose read budget runs out below is
    // erased, and it may appear in this request more than once.
    OutFrame f;
    f.values.reserve(w->keys.size());
    for (const std::string &k : w->keys) {
        auto it = table.find(k);
        if (it == table.end()) {
            // Only when more gets read a transient key than its budget allows.
            if (c) {
                send_code(c, w->id, StoreCode::kConsumed,
                          "key '" + k + "' was erased after its last budgeted read");
            }
            return;
        }
        f.values.push_back(it->second.value);
    }
    for (const std::string &k : w->keys) {
        auto it = table.find(k);
        if (it != table.end() && it->second.reads_left > 0 && --it->second.reads_left == 0) {
            table.erase(it);
        }
    }
    if (!c) {
        return;
    }
    put_u32(f.head, 0);
    put_u64(f.head, w->id);
    f.head.push_back(static_cast<uint8_t>(StoreCode::kOk));
    put_u32(f.head, static_cast<uint32_t>(f.values.size()));
    size_t total = f.head.size() - 4;
    f.lengths.reserve(4 * f.values.size());
    for (const auto &v : f.values) {
        put_u32(f.lengths, static_cast<uint32_t>(v->size()));
        total += 4 + v->size();
    }
    if (total > kFrameBytesMax) {
        send_code(c, w->id, StoreCode::kBadRequest,
                  "reply of " + std::to_string(total) + " bytes exceeds the frame limit");
        return;
    }
    for (int i = 0; i < 4; ++i) {
        f.head[i] = static_cast<uint8_t>(total >> (8 * i));
    }
    send(c, std::move(f));
}

void StoreServer::Impl::expire(const WaiterPtr &w) {
    w->done = true;
    ConnPtr c = w->conn.lock();
    if (c) {
        std::erase(c->waiters, w);
    }
    unpark(w);
    if (!c) {
        return;
    }
    uint32_t missing = 0;
    const std::string *first = nullptr;
    for (const std::string &k : w->keys) {
        if (!table.contains(k)) {
            ++missing;
            if (first == nullptr) {
                first = &k;
            }
        }
    }
    OutFrame f;
    put_u32(f.head, 0);
    put_u64(f.head, w->id);
    f.head.push_back(static_cast<uint8_t>(StoreCode::kTimedOut));
    put_u32(f.head, missing);
    put_str(f.head, first != nullptr ? std::string_view(*first) : std::string_view());
    seal_frame(f.head);
    send(c, std::move(f));
}

void StoreServer::Impl::send_code(const ConnPtr &c, uint64_t id, StoreCode code,
                                  std::string_view text) {
    OutFrame f;
    put_u32(f.head, 0);
    put_u64(f.head, id);
    f.head.push_back(static_cast<uint8_t>(code));
    if (code != StoreCode::kOk) {
        put_str(f.head, text);
        UCC_LOG(log, kDebug, "client %s request %llu: %.*s", c->peer.c_str(),
                static_cast<unsigned long long>(id), static_cast<int>(text.size()), text.data());
    }
    seal_frame(f.head);
    send(c, std::move(f));
}

void StoreServer::Impl::send(const ConnPtr &c, OutFrame f) {
    if (c->closed) {
        return;
    }
    c->out.push_back(std::move(f));
    OutFrame &q = c->out.back();
    q.buffers.push_back(asio::buffer(q.head));
    for (size_t i = 0; i < q.values.size(); ++i) {
        q.buffers.push_back(asio::buffer(q.lengths.data() + 4 * i, 4));
        q.buffers.push_back(asio::buffer(*q.values[i]));
    }
    if (!c->writing) {
        write_next(c);
    }
}

void StoreServer::Impl::write_next(const ConnPtr &c) {
    c->writing = true;
    asio::async_write(c->sock, c->out.front().buffers, [this, c](error_code ec, size_t) {
        c->writing = false;
        if (c->closed || ec) {
            close(c, ec ? ec.message().c_str() : nullptr);
            c->out.clear();
            return;
        }
        c->out.pop_front();
        if (!c->out.empty()) {
            write_next(c);
        }
    });
}

// ============================================================================
// Client
// ============================================================================

struct StoreClient::Impl {
    std::mutex mu;
    asio::io_context io;
    tcp::socket sock{io};
    core::Logger log;
    std::string address;
    bool connected = false;
    bool closed = false;  // by close(): pending requests fail without a log line
    bool broken = false;  // connection gone, for whatever reason
    uint8_t head[4] = {};
    std::vector<uint8_t> body;
    std::deque<std::vector<uint8_t>> out;
    bool writing = false;
    // Sent, not yet answered. Weak: a caller may drop a request it no longer
    // wants; its reply is then read and discarded.
    std::unordered_map<uint64_t, std::weak_ptr<StoreRequest>> pending;
    uint64_t next_id = 1;

    StoreRequestPtr post(StoreOp op, std::vector<uint8_t> frame, uint64_t id, Clock::duration limit,
                         std::string what);
    StoreRequestPtr failed(StoreOp op, ucc_status_t status, std::string what);
    StoreRequestPtr post_keys(StoreOp op, const std::vector<std::string> &keys, Millis timeout);
    void read_head();
    void read_body();
    void on_reply();
    void write_next();
    void fail_all(const std::string &why);
    void expire(StoreRequest &req);
    void poll();
};

StoreClient::StoreClient() : impl_(std::make_unique<Impl>()) {}

StoreClient::~StoreClient() {
    close();
}

void StoreClient::set_log_level(core::LogLevel level) {
    std::lock_guard lk(impl_->mu);
    impl_->log.set_level(level);
}

ucc_status_t StoreClient::connect(const std::string &host, uint16_t port, Millis timeout) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    address_ = format_address(host, port);
    s.address = address_;
    s.log.set_prefix("boot store " + address_);
    if (s.connected || s.closed) {
        UCC_LOG(s.log, kError, "connect: this client was already connected");
        return UCC_ERR_INVALID_PARAM;
    }
    timeout = std::min(timeout, kTimeoutMax);
    const auto start = Clock::now();
    const auto deadline = start + timeout;
    std::string last_error;
    Millis backoff(10);
    int attempts = 0;
    // Ranks may start before the server: retry, backing off to 0.5 s, until
    // the deadline. Every attempt is bounded by the deadline too.
    while (true) {
        ++attempts;
        error_code ec;
        tcp::resolver resolver(s.io);
        auto results =
            resolver.resolve(host, std::to_string(port), tcp::resolver::numeric_service, ec);
        if (ec) {
            last_error = "cannot resolve '" + host + "': " + ec.message();
        }
        for (auto it = results.begin(); !ec && it != results.end(); ++it) {
            bool done = false;
            error_code result;
            s.sock.async_connect(it->endpoint(), [&](error_code e) {
                result = e;
                done = true;
            });
            s.io.restart();
            while (!done && s.io.run_one_until(deadline) > 0) {
            }
            error_code ignored;
            if (!done) {
                // Cut short by the deadline: keep the last real error, if any.
                s.sock.close(ignored);
                s.io.restart();
                s.io.run();  // the aborted connect's handler
                if (last_error.empty()) {
                    last_error = asio::error::make_error_code(asio::error::timed_out).message();
                }
                break;
            }
            if (!result) {
                s.connected = true;
                break;
            }
            last_error = result.message();
            s.sock.close(ignored);
        }
        if (s.connected || Clock::now() >= deadline) {
            break;
        }
        // Rounded up: the last sleep ends at the deadline, not just before it.
        auto left = std::chrono::ceil<Millis>(deadline - Clock::now());
        std::this_thread::sleep_for(std::min(backoff, left));
        backoff = std::min(backoff * 2, Millis(500));
    }
    if (!s.connected) {
        UCC_LOG(s.log, kError, "cannot connect within %.1f s (%d attempts): %s", seconds(timeout),
                attempts, last_error.c_str());
        return UCC_ERR_TIMED_OUT;
    }
    error_code ec;
    s.sock.set_option(tcp::no_delay(true), ec);
    s.io.restart();
    s.read_head();
    return UCC_OK;
}

void StoreClient::close() {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    if (s.closed) {
        return;
    }
    s.closed = true;
    s.fail_all("closed");
    // Run the aborted operations' handlers so none refers to a dead request.
    s.io.restart();
    s.io.poll();
}

void StoreClient::Impl::fail_all(const std::string &why) {
    if (broken) {
        return;
    }
    broken = true;
    if (!closed && connected) {
        UCC_LOG(log, kError, "connection lost: %s", why.c_str());
    }
    for (auto &[id, weak] : pending) {
        if (auto req = weak.lock(); req && req->status == UCC_INPROGRESS) {
            req->status = UCC_ERR_NO_MESSAGE;
        }
    }
    pending.clear();
    if (!writing) {
        out.clear();  // else the aborted write's handler does, once it let go of them
    }
    error_code ec;
    sock.close(ec);
}

void StoreClient::Impl::read_head() {
    asio::async_read(sock, asio::buffer(head), [this](error_code ec, size_t) {
        if (ec) {
            fail_all(ec == asio::error::eof ? "the server closed the connection" : ec.message());
            return;
        }
        uint32_t n = get_le32(head);
        if (n < kReplyHeadBytes || n > kFrameBytesMax) {
            fail_all("reply frame of " + std::to_string(n) + " bytes");
            return;
        }
        body.resize(n);
        read_body();
    });
}

void StoreClient::Impl::read_body() {
    asio::async_read(sock, asio::buffer(body), [this](error_code ec, size_t) {
        if (ec) {
            fail_all(ec == asio::error::eof ? "the server closed the connection" : ec.message());
            return;
        }
        on_reply();
        if (!broken) {
            read_head();
        }
    });
}

void StoreClient::Impl::on_reply() {
    Reader r{body.data(), body.size()};
    uint64_t id = r.u64();
    auto code = static_cast<StoreCode>(r.u8());
    auto it = pending.find(id);
    if (it == pending.end()) {
        return;  // a request that expired on this side
    }
    StoreRequestPtr req = it->second.lock();
    pending.erase(it);
    if (!req || req->status != UCC_INPROGRESS) {
        return;  // dropped by its caller
    }
    switch (code) {
        case StoreCode::kOk:
            if (req->op == StoreOp::kGet) {
                req->reply = std::move(body);
                Reader v{req->reply.data() + kReplyHeadBytes, req->reply.size() - kReplyHeadBytes};
                uint32_t n = v.u32();
                req->values.reserve(std::min(n, kKeysPerRequestMax));
                for (uint32_t i = 0; i < n && v.ok; ++i) {
                    req->values.push_back(v.bytes());
                }
                if (!v.ok) {
                    req->values.clear();
                    fail_all("malformed reply to " + req->what);
                    return;
                }
            } else if (req->op == StoreOp::kAdd) {
                req->number = static_cast<int64_t>(r.u64());
            }
            req->status = UCC_OK;
            break;
        case StoreCode::kTimedOut: {
            uint32_t missing = r.u32();
            std::string_view first = r.str();
            UCC_LOG(log, kError, "%s timed out: %u %s missing, first '%.*s'", req->what.c_str(),
                    missing, missing == 1 ? "key" : "keys", static_cast<int>(first.size()),
                    first.data());
            req->status = UCC_ERR_TIMED_OUT;
            break;
        }
        case StoreCode::kGone: {
            std::string_view why = r.str();
            UCC_LOG(log, kError, "%s failed: %.*s", req->what.c_str(), static_cast<int>(why.size()),
                    why.data());
            req->status = UCC_ERR_NO_MESSAGE;
            break;
        }
        default: {
            std::string_view why = r.str();
            UCC_LOG(log, kError, "%s refused: %.*s", req->what.c_str(),
                    static_cast<int>(why.size()), why.data());
            req->status = UCC_ERR_INVALID_PARAM;
        }
    }
}

void StoreClient::Impl::write_next() {
    writing = true;
    asio::async_write(sock, asio::buffer(out.front()), [this](error_code ec, size_t) {
        writing = false;
        if (ec || broken) {
            fail_all(ec ? ec.message() : std::string("closed"));
            out.clear();
            return;
        }
        out.pop_front();
        if (!out.empty()) {
            write_next();
        }
    });
}

StoreRequestPtr StoreClient::Impl::failed(StoreOp op, ucc_status_t status, std::string what) {
    auto req = std::make_shared<StoreRequest>();
    req->op = op;
    req->status = status;
    req->what = std::move(what);
    return req;
}

StoreRequestPtr StoreClient::Impl::post(StoreOp op, std::vector<uint8_t> frame, uint64_t id,
                                        Clock::duration limit, std::string what) {
    if (frame.size() - 4 > kFrameBytesMax) {
        UCC_LOG(log, kError, "%s: request of %zu bytes exceeds the frame limit", what.c_str(),
                frame.size());
        return failed(op, UCC_ERR_INVALID_PARAM, std::move(what));
    }
    if (!connected || broken) {
        // The loss was logged when it happened.
        if (!connected) {
            UCC_LOG(log, kError, "%s: not connected", what.c_str());
        }
        return failed(op, UCC_ERR_NO_MESSAGE, std::move(what));
    }
    auto req = std::make_shared<StoreRequest>();
    req->op = op;
    req->id = id;
    req->deadline = Clock::now() + limit;
    req->what = std::move(what);
    seal_frame(frame);
    pending.emplace(id, req);
    out.push_back(std::move(frame));
    if (!writing) {
        write_next();
    }
    return req;
}

void StoreClient::Impl::expire(StoreRequest &req) {
    pending.erase(req.id);
    req.status = UCC_ERR_TIMED_OUT;
    UCC_LOG(log, kError, "%s: no reply before the deadline", req.what.c_str());
}

void StoreClient::Impl::poll() {
    if (io.stopped()) {
        io.restart();
    }
    io.poll();
}

StoreRequestPtr StoreClient::post_set(std::string_view key, const void *data, size_t bytes,
                                      uint32_t reads) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    std::string what = "set '" + std::string(key) + "'";
    if (key.size() > kKeyBytesMax || bytes > kFrameBytesMax) {
        UCC_LOG(s.log, kError, "%s: key of %zu bytes or value of %zu bytes too long", what.c_str(),
                key.size(), bytes);
        return s.failed(StoreOp::kSet, UCC_ERR_INVALID_PARAM, std::move(what));
    }
    uint64_t id = s.next_id++;
    std::vector<uint8_t> f;
    f.reserve(4 + kRequestHeadBytes + 12 + key.size() + bytes);
    put_u32(f, 0);
    f.push_back(static_cast<uint8_t>(StoreOp::kSet));
    put_u64(f, id);
    put_u32(f, reads);
    put_str(f, key);
    put_bytes(f, data, bytes);
    return s.post(StoreOp::kSet, std::move(f), id, op_timeout_, std::move(what));
}

StoreRequestPtr StoreClient::Impl::post_keys(StoreOp op, const std::vector<std::string> &keys,
                                             Millis timeout) {
    std::string what = describe_keys(op == StoreOp::kGet ? "get" : "wait", keys);
    for (const std::string &k : keys) {
        if (k.size() > kKeyBytesMax) {
            UCC_LOG(log, kError, "%s: key of %zu bytes too long", what.c_str(), k.size());
            return failed(op, UCC_ERR_INVALID_PARAM, std::move(what));
        }
    }
    if (keys.size() > kKeysPerRequestMax) {
        UCC_LOG(log, kError, "%s: more than %u keys", what.c_str(), kKeysPerRequestMax);
        return failed(op, UCC_ERR_INVALID_PARAM, std::move(what));
    }
    timeout = std::clamp(timeout, Millis(0), kTimeoutMax);
    uint64_t id = next_id++;
    std::vector<uint8_t> f;
    put_u32(f, 0);
    f.push_back(static_cast<uint8_t>(op));
    put_u64(f, id);
    put_u64(f, static_cast<uint64_t>(timeout.count()));
    put_u32(f, static_cast<uint32_t>(keys.size()));
    for (const std::string &k : keys) {
        put_str(f, k);
    }
    return post(op, std::move(f), id, timeout + kReplyGrace, std::move(what));
}

StoreRequestPtr StoreClient::post_get(const std::vector<std::string> &keys, Millis timeout) {
    std::lock_guard lk(impl_->mu);
    return impl_->post_keys(StoreOp::kGet, keys, timeout);
}

StoreRequestPtr StoreClient::post_wait(const std::vector<std::string> &keys, Millis timeout) {
    std::lock_guard lk(impl_->mu);
    return impl_->post_keys(StoreOp::kWait, keys, timeout);
}

StoreRequestPtr StoreClient::post_own(std::string_view prefix, std::string_view suffix,
                                      std::string_view name) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    std::string what = "own '" + std::string(prefix) + "*" + std::string(suffix) + "'";
    if (prefix.size() + suffix.size() > kKeyBytesMax) {
        UCC_LOG(s.log, kError, "%s: pattern too long", what.c_str());
        return s.failed(StoreOp::kOwn, UCC_ERR_INVALID_PARAM, std::move(what));
    }
    uint64_t id = s.next_id++;
    std::vector<uint8_t> f;
    put_u32(f, 0);
    f.push_back(static_cast<uint8_t>(StoreOp::kOwn));
    put_u64(f, id);
    put_str(f, prefix);
    put_str(f, suffix);
    put_str(f, name);
    return s.post(StoreOp::kOwn, std::move(f), id, op_timeout_, std::move(what));
}

StoreRequestPtr StoreClient::post_add(std::string_view key, int64_t delta) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    std::string what = "add '" + std::string(key) + "'";
    if (key.size() > kKeyBytesMax) {
        UCC_LOG(s.log, kError, "%s: key of %zu bytes too long", what.c_str(), key.size());
        return s.failed(StoreOp::kAdd, UCC_ERR_INVALID_PARAM, std::move(what));
    }
    uint64_t id = s.next_id++;
    std::vector<uint8_t> f;
    put_u32(f, 0);
    f.push_back(static_cast<uint8_t>(StoreOp::kAdd));
    put_u64(f, id);
    put_str(f, key);
    put_u64(f, static_cast<uint64_t>(delta));
    return s.post(StoreOp::kAdd, std::move(f), id, op_timeout_, std::move(what));
}

ucc_status_t StoreClient::test(const StoreRequestPtr &req) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    if (req->status == UCC_INPROGRESS) {
        s.poll();
    }
    if (req->status == UCC_INPROGRESS && Clock::now() >= req->deadline) {
        s.expire(*req);
    }
    return req->status;
}

ucc_status_t StoreClient::wait(const StoreRequestPtr &req) {
    Impl &s = *impl_;
    std::lock_guard lk(s.mu);
    // Blocks in the reactor until a reply, a loss of connection or the
    // deadline; each pass runs one handler, so the loop is bounded by the
    // deadline and by the traffic on this connection.
    while (req->status == UCC_INPROGRESS) {
        if (Clock::now() >= req->deadline) {
            s.expire(*req);
            break;
        }
        if (s.io.stopped()) {
            s.io.restart();
        }
        if (s.io.run_one_until(req->deadline) == 0 && s.io.stopped() &&
            req->status == UCC_INPROGRESS && Clock::now() < req->deadline) {
            // No operation left that could answer it (cannot happen while
            // connected: a read is always pending).
            s.fail_all("no I/O pending");
            req->status = UCC_ERR_NO_MESSAGE;
        }
    }
    return req->status;
}

ucc_status_t StoreClient::set(std::string_view key, const void *data, size_t bytes,
                              uint32_t reads) {
    return wait(post_set(key, data, bytes, reads));
}

ucc_status_t StoreClient::get(std::string_view key, Millis timeout, std::vector<uint8_t> *value) {
    auto req = post_get({std::string(key)}, timeout);
    ucc_status_t st = wait(req);
    if (st == UCC_OK) {
        value->assign(req->values.at(0).begin(), req->values.at(0).end());
    }
    return st;
}

ucc_status_t StoreClient::multi_get(const std::vector<std::string> &keys, Millis timeout,
                                    std::vector<std::vector<uint8_t>> *values) {
    auto req = post_get(keys, timeout);
    ucc_status_t st = wait(req);
    if (st == UCC_OK) {
        values->clear();
        for (auto v : req->values) {
            values->emplace_back(v.begin(), v.end());
        }
    }
    return st;
}

ucc_status_t StoreClient::wait(const std::vector<std::string> &keys, Millis timeout) {
    return wait(post_wait(keys, timeout));
}

ucc_status_t StoreClient::add(std::string_view key, int64_t delta, int64_t *value) {
    auto req = post_add(key, delta);
    ucc_status_t st = wait(req);
    if (st == UCC_OK && value != nullptr) {
        *value = req->number;
    }
    return st;
}

}  // namespace ucc::boot
