// Rendezvous key-value store over TCP: the meeting point of a job's processes.
//
// A StoreServer holds byte-string values under string keys and serves many
// clients from one background thread running a Boost.Asio io_context. Nothing
// polls: a get or wait whose keys are missing is parked on the server and
// answered when the last of its keys is set, or with "timed out" when its
// timeout elapses. A StoreClient talks to one server over one TCP connection;
// every request is non-blocking (post, then test), blocking calls are a post
// followed by a bounded wait, and requests may be pipelined: a set and a get
// posted back to back cost one round trip.
//
// Wire protocol (every integer little-endian; a "string" is a u32 byte count
// then the bytes):
//
//   request  = u32 frame_bytes  (the bytes that follow)
//              u8  op           (StoreOp)
//              u64 id           (chosen by the client, echoed in the reply)
//              body
//   reply    = u32 frame_bytes
//              u64 id
//              u8  code         (StoreCode)
//              body
//
//   op   request body                               reply body (code kOk)
//   kSet u32 reads, string key, string value         -
//   kGet u64 timeout_ms, u32 n, n strings (keys)     u32 n, n strings (values)
//   kWait u64 timeout_ms, u32 n, n strings (keys)    -
//   kAdd string key, i64 delta                       i64 new value
//   kOwn string prefix, string suffix, string name   -
//
// kSet stores (or replaces) a value. reads > 0 makes the key transient: it is
// erased after that many kGet replies have carried it, so an allgather round
// (n ranks set with reads = n, each gets all n keys) leaves nothing behind.
// kGet answers when all its keys exist, with their values in request order;
// kWait likewise without values and without counting as a read. kAdd treats
// the value as an i64 (a missing key as 0), adds delta and returns the sum
// (an atomic counter; the key is permanent). A reply with code kTimedOut has
// body "u32 missing, string first_missing_key"; kBadRequest and kConsumed
// have a string saying why (also the answer to an unknown op or a body that
// does not parse).
//
// kOwn declares that the keys this connection will set under a pattern —
// prefix, anything, suffix (a bootstrap rank: "ucc_boot/7/", "/3") — belong
// to `name` ("rank 3"). When the connection closes, every get or wait parked
// on a missing key of that pattern, and every later one, is answered at once
// with code kGone and a string naming the owner: a barrier with a rank that
// died fails within a round trip, not at its timeout.
//
// A frame shorter than its header or larger than kFrameBytesMax closes the
// connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/log.h"
#include "ucc/api/ucc.h"

namespace ucc::boot {

enum class StoreOp : uint8_t { kSet = 1, kGet = 2, kWait = 3, kAdd = 4, kOwn = 5 };

enum class StoreCode : uint8_t {
    kOk = 0,
    kTimedOut = 1,    // the keys did not all exist before the timeout
    kBadRequest = 2,  // malformed body, key too long, kAdd on a non-i64 value
    kConsumed = 3,    // a key's read budget ran out before this get read it
    kGone = 4,        // a missing key's owner (kOwn) closed its connection
};

inline constexpr size_t kFrameBytesMax = size_t{1} << 30;
inline constexpr size_t kKeyBytesMax = 4096;
inline constexpr uint32_t kKeysPerRequestMax = 1u << 20;

using Millis = std::chrono::milliseconds;

// "host:port", or "[host]:port" when host is an IPv6 literal.
std::string format_address(std::string_view host, uint16_t port);

class StoreServer {
  public:
    StoreServer();
    ~StoreServer();  // stop()
    StoreServer(const StoreServer &) = delete;
    StoreServer &operator=(const StoreServer &) = delete;

    // Binds host:port (port 0: an ephemeral port, see port()), listens and
    // starts the server thread. UCC_ERR_NO_RESOURCE (one log line naming the
    // address and the cause) when host does not resolve or cannot be bound.
    ucc_status_t start(const std::string &host, uint16_t port);
    uint16_t port() const;
    const std::string &address() const;  // "host:port" as bound
    // Clients connected now.
    size_t clients() const;
    // Keys held now (asks the server thread; for tests and diagnostics).
    size_t key_count() const;
    // The owners named by kOwn (ucc_boot: "rank N") whose connection closed,
    // in the order the connections closed: the order in which ranks that die
    // died (ucc_run names the first as the cause).
    std::vector<std::string> departed() const;
    // Closes the listening socket; connected clients are still served.
    void stop_accepting();
    // Blocks until no client is connected or timeout elapses; true if none is.
    bool wait_idle(Millis timeout);
    // Closes every connection, drops all keys and joins the thread. Idempotent.
    void stop();

    void set_log_level(core::LogLevel level);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One request of a StoreClient. The client fills it in; callers read
// `status` (UCC_INPROGRESS until answered or failed) and the results: the
// values of a kGet in the order of its keys (views into `reply`), the sum of
// a kAdd.
struct StoreRequest {
    StoreOp op = StoreOp::kSet;
    uint64_t id = 0;
    ucc_status_t status = UCC_INPROGRESS;
    std::chrono::steady_clock::time_point deadline;
    std::string what;  // for log lines: "get of 4 keys ('a/0', ...)"
    std::vector<uint8_t> reply;
    std::vector<std::span<const uint8_t>> values;
    int64_t number = 0;
};
using StoreRequestPtr = std::shared_ptr<StoreRequest>;

// A connection to a StoreServer. Thread-safe (one mutex); I/O makes progress
// inside test() and the blocking calls, on the calling thread.
class StoreClient {
  public:
    StoreClient();
    ~StoreClient();
    StoreClient(const StoreClient &) = delete;
    StoreClient &operator=(const StoreClient &) = delete;

    // Connects, retrying (with backoff) while the server is not up yet, until
    // timeout elapses: UCC_ERR_TIMED_OUT then, with a log line naming the
    // address and the last error.
    ucc_status_t connect(const std::string &host, uint16_t port, Millis timeout);
    // Closes the connection; pending requests fail with UCC_ERR_NO_MESSAGE.
    void close();
    const std::string &address() const { return address_; }
    void set_log_level(core::LogLevel level);
    // Client-side limit on set and add round trips (default 300 s); a get or
    // wait is given its own timeout plus a grace for the server's reply.
    void set_op_timeout(Millis timeout) { op_timeout_ = timeout; }

    // Non-blocking requests. A request that cannot be sent (connection lost or
    // closed, bad argument) comes back already failed.
    StoreRequestPtr post_set(std::string_view key, const void *data, size_t bytes,
                             uint32_t reads = 0);
    StoreRequestPtr post_get(const std::vector<std::string> &keys, Millis timeout);
    StoreRequestPtr post_wait(const std::vector<std::string> &keys, Millis timeout);
    StoreRequestPtr post_add(std::string_view key, int64_t delta);
    // kOwn: keys `prefix`*`suffix` belong to `name` (see the protocol above).
    StoreRequestPtr post_own(std::string_view prefix, std::string_view suffix,
                             std::string_view name);
    // Makes progress without blocking; the request's status.
    ucc_status_t test(const StoreRequestPtr &req);
    // Blocks until the request completes or its deadline passes.
    ucc_status_t wait(const StoreRequestPtr &req);

    // Blocking conveniences.
    ucc_status_t set(std::string_view key, const void *data, size_t bytes, uint32_t reads = 0);
    ucc_status_t get(std::string_view key, Millis timeout, std::vector<uint8_t> *value);
    ucc_status_t multi_get(const std::vector<std::string> &keys, Millis timeout,
                           std::vector<std::vector<uint8_t>> *values);
    ucc_status_t wait(const std::vector<std::string> &keys, Millis timeout);
    ucc_status_t add(std::string_view key, int64_t delta, int64_t *value);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string address_;
    Millis op_timeout_{300000};
};

}  // namespace ucc::boot
