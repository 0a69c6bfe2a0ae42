// The rendezvous store (lib/boot/store.h) over loopback TCP: every server
// binds 127.0.0.1, every wait has a timeout, every loop a bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lib/boot/store.h"

namespace ucc::boot {
namespace {

constexpr const char *kHost = "127.0.0.1";
constexpr Millis kLong{20000};  // a bound that a passing test never reaches

std::vector<uint8_t> bytes(const std::string &s) {
    return {s.begin(), s.end()};
}

// A server on an ephemeral loopback port.
struct Served {
    StoreServer server;
    Served() {
        server.set_log_level(core::LogLevel::kFatal);
        EXPECT_EQ(server.start(kHost, 0), UCC_OK);
    }
    ucc_status_t connect(StoreClient &c, Millis timeout = kLong) {
        return c.connect(kHost, server.port(), timeout);
    }
};

TEST(BootStore, ReportsTheBoundPort) {
    Served s;
    EXPECT_NE(s.server.port(), 0);
    EXPECT_EQ(s.server.address(), "127.0.0.1:" + std::to_string(s.server.port()));
    EXPECT_EQ(format_address("::1", 5), "[::1]:5");
}

TEST(BootStore, SetGetWaitAdd) {
    Served s;
    StoreClient c;
    ASSERT_EQ(s.connect(c), UCC_OK);
    EXPECT_EQ(c.set("a", "hello", 5), UCC_OK);
    EXPECT_EQ(c.set("empty", nullptr, 0), UCC_OK);
    std::vector<uint8_t> v;
    ASSERT_EQ(c.get("a", kLong, &v), UCC_OK);
    EXPECT_EQ(v, bytes("hello"));
    ASSERT_EQ(c.get("empty", kLong, &v), UCC_OK);
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(c.set("a", "bye", 3), UCC_OK);  // replaces
    ASSERT_EQ(c.get("a", kLong, &v), UCC_OK);
    EXPECT_EQ(v, bytes("bye"));
    EXPECT_EQ(c.wait({"a", "empty"}, kLong), UCC_OK);

    int64_t n = 0;
    EXPECT_EQ(c.add("counter", 5, &n), UCC_OK);
    EXPECT_EQ(n, 5);
    EXPECT_EQ(c.add("counter", -7, &n), UCC_OK);
    EXPECT_EQ(n, -2);

    std::vector<std::vector<uint8_t>> values;
    ASSERT_EQ(c.multi_get({"empty", "a", "a"}, kLong, &values), UCC_OK);
    ASSERT_EQ(values.size(), 3u);
    EXPECT_TRUE(values[0].empty());
    EXPECT_EQ(values[1], bytes("bye"));
    EXPECT_EQ(values[2], bytes("bye"));
    EXPECT_EQ(s.server.key_count(), 3u);
}

TEST(BootStore, AddOnANonCounterIsRefused) {
    Served s;
    StoreClient c;
    c.set_log_level(core::LogLevel::kFatal);
    ASSERT_EQ(s.connect(c), UCC_OK);
    ASSERT_EQ(c.set("text", "abc", 3), UCC_OK);
    int64_t n = 0;
    EXPECT_EQ(c.add("text", 1, &n), UCC_ERR_INVALID_PARAM);
    EXPECT_EQ(c.add("fresh", 1, &n), UCC_OK);  // the connection survives
    EXPECT_EQ(n, 1);
}

TEST(BootStore, WaitAndGetTimeOut) {
    Served s;
    StoreClient c;
    c.set_log_level(core::LogLevel::kFatal);
    ASSERT_EQ(s.connect(c), UCC_OK);
    ASSERT_EQ(c.set("here", "x", 1), UCC_OK);
    EXPECT_EQ(c.wait({"here", "missing"}, Millis(50)), UCC_ERR_TIMED_OUT);
    std::vector<uint8_t> v;
    EXPECT_EQ(c.get("missing", Millis(0), &v), UCC_ERR_TIMED_OUT);
    // Timed-out waiters leave nothing behind: the key arrives later and is read.
    ASSERT_EQ(c.set("missing", "y", 1), UCC_OK);
    ASSERT_EQ(c.get("missing", kLong, &v), UCC_OK);
    EXPECT_EQ(v, bytes("y"));
}

TEST(BootStore, GetIsParkedUntilAnotherClientSets) {
    Served s;
    StoreClient reader;
    StoreClient writer;
    ASSERT_EQ(s.connect(reader), UCC_OK);
    ASSERT_EQ(s.connect(writer), UCC_OK);
    auto req = reader.post_get({"k1", "k2"}, kLong);
    EXPECT_EQ(reader.test(req), UCC_INPROGRESS);
    ASSERT_EQ(writer.set("k2", "two", 3), UCC_OK);
    EXPECT_EQ(reader.test(req), UCC_INPROGRESS);
    ASSERT_EQ(writer.set("k1", "one", 3), UCC_OK);
    ASSERT_EQ(reader.wait(req), UCC_OK);
    ASSERT_EQ(req->values.size(), 2u);
    EXPECT_EQ(std::string(req->values[0].begin(), req->values[0].end()), "one");
    EXPECT_EQ(std::string(req->values[1].begin(), req->values[1].end()), "two");
}

// A rank that dies fails the others' barrier at once (kOwn), not at its
// timeout; keys it did set still serve, and other owners' keys still wait.
TEST(BootStore, AGoneOwnersMissingKeysFailAtOnce) {
    Served s;
    StoreClient reader;
    auto owner = std::make_unique<StoreClient>();
    StoreClient other;
    ASSERT_EQ(s.connect(reader), UCC_OK);
    ASSERT_EQ(s.connect(*owner), UCC_OK);
    ASSERT_EQ(s.connect(other), UCC_OK);
    ASSERT_EQ(owner->wait(owner->post_own("e/", "/1", "rank 1")), UCC_OK);
    ASSERT_EQ(other.wait(other.post_own("e/", "/2", "rank 2")), UCC_OK);
    ASSERT_EQ(owner->set("e/b/0/1", "x", 1), UCC_OK);
    auto parked = reader.post_get({"e/b/1/1", "e/b/1/2"}, kLong);
    auto others = reader.post_get({"e/b/2/2"}, kLong);
    EXPECT_EQ(reader.test(parked), UCC_INPROGRESS);
    const auto t0 = std::chrono::steady_clock::now();
    owner.reset();  // its connection drops
    EXPECT_EQ(reader.wait(parked), UCC_ERR_NO_MESSAGE);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
    // Later requests for its missing keys fail at once too; its set key serves.
    EXPECT_EQ(reader.wait(reader.post_get({"e/b/3/1"}, kLong)), UCC_ERR_NO_MESSAGE);
    auto set_key = reader.post_get({"e/b/0/1"}, kLong);
    EXPECT_EQ(reader.wait(set_key), UCC_OK);
    // Keys of a live owner, and of no owner ("e/b/1/11" does not end in "/1"), still wait.
    EXPECT_EQ(reader.test(others), UCC_INPROGRESS);
    auto unowned = reader.post_get({"e/b/1/11"}, kLong);
    EXPECT_EQ(reader.test(unowned), UCC_INPROGRESS);
    ASSERT_EQ(other.set("e/b/2/2", "y", 1), UCC_OK);
    EXPECT_EQ(reader.wait(others), UCC_OK);
}

// The owners that left, in the order their connections closed (ucc_run names
// the first as the cause of the others' failures); an owner still connected,
// and a connection that owned nothing, are not named.
TEST(BootStore, DepartedOwnersInTheOrderTheyLeft) {
    Served s;
    auto one = std::make_unique<StoreClient>();
    auto two = std::make_unique<StoreClient>();
    auto plain = std::make_unique<StoreClient>();
    StoreClient three;
    for (StoreClient *c : {one.get(), two.get(), plain.get(), &three}) {
        ASSERT_EQ(s.connect(*c), UCC_OK);
    }
    ASSERT_EQ(one->wait(one->post_own("e/", "/1", "rank 1")), UCC_OK);
    ASSERT_EQ(two->wait(two->post_own("e/", "/2", "rank 2")), UCC_OK);
    ASSERT_EQ(three.wait(three.post_own("e/", "/3", "rank 3")), UCC_OK);
    EXPECT_TRUE(s.server.departed().empty());
    auto left = [&](size_t n) {
        for (int i = 0; i < 2000 && s.server.departed().size() < n; ++i) {
            std::this_thread::sleep_for(Millis(1));
        }
        return s.server.departed();
    };
    two.reset();
    EXPECT_EQ(left(1), std::vector<std::string>{"rank 2"});
    plain.reset();
    one.reset();
    EXPECT_EQ(left(2), (std::vector<std::string>{"rank 2", "rank 1"}));
}

TEST(BootStore, TestPollsWithoutBlocking) {
    Served s;
    StoreClient a;
    StoreClient b;
    ASSERT_EQ(s.connect(a), UCC_OK);
    ASSERT_EQ(s.connect(b), UCC_OK);
    auto req = a.post_wait({"flag"}, kLong);
    ASSERT_EQ(b.set("flag", nullptr, 0), UCC_OK);
    // The reply is on its way; test() picks it up within a bounded number of polls.
    ucc_status_t st = UCC_INPROGRESS;
    for (int i = 0; i < 20000 && st == UCC_INPROGRESS; ++i) {
        st = a.test(req);
        if (st == UCC_INPROGRESS) {
            std::this_thread::sleep_for(Millis(1));
        }
    }
    EXPECT_EQ(st, UCC_OK);
}

TEST(BootStore, TransientKeysAreErasedAfterTheirReads) {
    Served s;
    StoreClient c;
    c.set_log_level(core::LogLevel::kFatal);
    ASSERT_EQ(s.connect(c), UCC_OK);
    ASSERT_EQ(c.set("t", "v", 1, /*reads=*/2), UCC_OK);
    std::vector<uint8_t> v;
    ASSERT_EQ(c.wait({"t"}, kLong), UCC_OK);  // a wait is not a read
    ASSERT_EQ(c.get("t", kLong, &v), UCC_OK);
    ASSERT_EQ(c.get("t", kLong, &v), UCC_OK);
    EXPECT_EQ(s.server.key_count(), 0u);
    EXPECT_EQ(c.get("t", Millis(20), &v), UCC_ERR_TIMED_OUT);
}

TEST(BootStore, AbandonedRequestsAreHarmless) {
    Served s;
    StoreClient c;
    ASSERT_EQ(s.connect(c), UCC_OK);
    {
        auto dropped = c.post_get({"late"}, kLong);
        EXPECT_EQ(c.test(dropped), UCC_INPROGRESS);
    }
    ASSERT_EQ(c.set("late", "z", 1), UCC_OK);  // answers the dropped get too
    std::vector<uint8_t> v;
    ASSERT_EQ(c.get("late", kLong, &v), UCC_OK);
    EXPECT_EQ(v, bytes("z"));
}

// Rounds of allgather as the bootstrap does them: each client sets its key
// with a read budget of n and, pipelined, gets all n keys. Values of a
// different size per round and rank, large ones included.
void allgather_rounds(uint32_t n, int rounds, size_t bytes_max) {
    Served s;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (uint32_t rank = 0; rank < n; ++rank) {
        threads.emplace_back([&, rank] {
            StoreClient c;
            if (s.connect(c) != UCC_OK) {
                ++failures;
                return;
            }
            for (int r = 0; r < rounds; ++r) {
                size_t len = (static_cast<size_t>(r) * 7919) % (bytes_max + 1);
                std::vector<std::string> keys;
                for (uint32_t k = 0; k < n; ++k) {
                    keys.push_back("ag/" + std::to_string(r) + "/" + std::to_string(k));
                }
                std::vector<uint8_t> mine(len, static_cast<uint8_t>(rank * 31 + r));
                auto set = c.post_set(keys[rank], mine.data(), mine.size(), n);
                auto get = c.post_get(keys, kLong);
                if (c.wait(set) != UCC_OK || c.wait(get) != UCC_OK || get->values.size() != n) {
                    ++failures;
                    return;
                }
                for (uint32_t k = 0; k < n; ++k) {
                    auto v = get->values[k];
                    uint8_t want = static_cast<uint8_t>(k * 31 + r);
                    if (v.size() != len ||
                        std::any_of(v.begin(), v.end(), [&](uint8_t b) { return b != want; })) {
                        ++failures;
                    }
                }
            }
        });
    }
    for (auto &t : threads) {
        t.join();
    }
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(s.server.key_count(), 0u);  // every round cleaned up after itself
    EXPECT_TRUE(s.server.wait_idle(kLong));
}

TEST(BootStore, ManyClientsAllgatherRounds) {
    allgather_rounds(16, 25, 100);
}

TEST(BootStore, AllgatherOfLargeValues) {
    allgather_rounds(4, 3, 1 << 20);
}

TEST(BootStore, ClientStartedBeforeTheServerConnectsOnceItIsUp) {
    // A port that was free a moment ago.
    uint16_t port = 0;
    {
        StoreServer probe;
        ASSERT_EQ(probe.start(kHost, 0), UCC_OK);
        port = probe.port();
    }
    StoreClient c;
    ucc_status_t connected = UCC_INPROGRESS;
    std::thread t([&] { connected = c.connect(kHost, port, kLong); });
    std::this_thread::sleep_for(Millis(100));
    StoreServer server;
    ASSERT_EQ(server.start(kHost, port), UCC_OK);
    t.join();
    ASSERT_EQ(connected, UCC_OK);
    int64_t n = 0;
    EXPECT_EQ(c.add("x", 2, &n), UCC_OK);
    EXPECT_EQ(n, 2);
}

TEST(BootStore, ConnectGivesUpAtTheDeadline) {
    uint16_t port = 0;
    {
        StoreServer probe;
        ASSERT_EQ(probe.start(kHost, 0), UCC_OK);
        port = probe.port();
    }
    StoreClient c;
    c.set_log_level(core::LogLevel::kFatal);
    EXPECT_EQ(c.connect(kHost, port, Millis(100)), UCC_ERR_TIMED_OUT);
    // A request on a client that never connected fails at once.
    EXPECT_EQ(c.post_add("x", 1)->status, UCC_ERR_NO_MESSAGE);
}

TEST(BootStore, ServerGoingAwayFailsPendingRequests) {
    auto s = std::make_unique<Served>();
    StoreClient c;
    c.set_log_level(core::LogLevel::kFatal);
    ASSERT_EQ(s->connect(c), UCC_OK);
    auto req = c.post_get({"never"}, kLong);
    EXPECT_EQ(c.test(req), UCC_INPROGRESS);
    s->server.stop();
    // Lost connection, not a timeout: wait() returns long before kLong.
    EXPECT_EQ(c.wait(req), UCC_ERR_NO_MESSAGE);
    EXPECT_EQ(c.set("k", "v", 1), UCC_ERR_NO_MESSAGE);
    s.reset();
}

TEST(BootStore, CloseFailsPendingRequestsAndStopAcceptingRefusesNewClients) {
    Served s;
    StoreClient c;
    ASSERT_EQ(s.connect(c), UCC_OK);
    auto req = c.post_get({"never"}, kLong);
    c.close();
    EXPECT_EQ(req->status, UCC_ERR_NO_MESSAGE);
    EXPECT_TRUE(s.server.wait_idle(kLong));

    StoreClient kept;
    ASSERT_EQ(s.connect(kept), UCC_OK);
    int64_t n = 0;
    // A round trip: the server has accepted it (connect() returns once the
    // kernel has, and closing the listener resets connections not yet accepted).
    ASSERT_EQ(kept.add("still", 1, &n), UCC_OK);
    s.server.stop_accepting();
    StoreClient late;
    late.set_log_level(core::LogLevel::kFatal);
    EXPECT_EQ(s.connect(late, Millis(100)), UCC_ERR_TIMED_OUT);
    EXPECT_EQ(kept.add("still", 1, &n), UCC_OK);  // connected clients are still served
    EXPECT_EQ(n, 2);
}

TEST(BootStore, BindingABusyPortFails) {
    Served s;
    StoreServer other;
    other.set_log_level(core::LogLevel::kFatal);
    EXPECT_EQ(other.start(kHost, s.server.port()), UCC_ERR_NO_RESOURCE);
}

}  // namespace
}  // namespace ucc::boot
