// SimTransport on a simulated cluster: point-to-point, ordering, matching
// paths, cancel, RMA, virtual time, determinism, deadlock reports.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "transports/sim/cluster.h"
#include "transports/sim/sim_transport.h"

namespace ucc::sim {
namespace {

constexpr double kNoDeadline = INFINITY;

ClusterParams params(uint32_t n, const char *net, uint64_t seed = 1) {
    ClusterParams p;
    p.n_ranks = n;
    p.seed = seed;
    std::string err;
    EXPECT_EQ(parse_network(net, &p.net, &err), UCC_OK) << err;
    return p;
}

SimTransport *sim(const std::unique_ptr<Transport> &t) {
    return static_cast<SimTransport *>(t.get());
}

// Polls until x completes (or the run is aborted).
void wait(Transport *t, Xfer *x) {
    while (!x->done() && !t->simulated()->aborted()) {
        if (t->progress() == 0 && !x->done()) {
            t->idle(kNoDeadline);
        }
    }
}

// Polls until the rank's clock reaches `deadline` (virtual seconds).
void wait_until(Transport *t, double deadline) {
    while (t->now() < deadline && !t->simulated()->aborted()) {
        t->progress();
        t->idle(deadline);
    }
    t->progress();
}

// Records the order in which Xfers complete asynchronously.
class OrderSink : public CompletionSink {
  public:
    void on_complete(Xfer *x) override { order.push_back(x); }
    std::vector<Xfer *> order;
};

TEST(SimTransport, MakeTransportOutsideRankIsNull) {
    EXPECT_EQ(make_transport(), nullptr);
    EXPECT_FALSE(in_rank());
    EXPECT_EQ(cluster_size(), 0u);
    ucc_oob_coll_t o;
    EXPECT_EQ(oob(&o), UCC_ERR_INVALID_PARAM);
}

TEST(SimTransport, AddressesAndEndpointIds) {
    RunResult res = run(params(4, "hdr"), [](uint32_t r) {
        EXPECT_TRUE(in_rank());
        EXPECT_EQ(current_rank(), r);
        EXPECT_EQ(cluster_size(), 4u);
        auto a = make_transport();
        auto b = make_transport();
        ASSERT_NE(a, nullptr);
        EXPECT_STREQ(a->name(), "sim");
        EXPECT_EQ(a->self(), r);
        // Second endpoints: ranks run in order at time 0, so ids 4 + r.
        EXPECT_EQ(b->self(), 4u + r);
        ASSERT_EQ(a->address_length(), 8u);
        uint64_t addr = 0;
        b->address(&addr);
        Peer p = 0;
        EXPECT_EQ(a->resolve(&addr, &p), UCC_OK);
        EXPECT_EQ(p, b->self());
        uint64_t bogus = 1000;
        EXPECT_EQ(a->resolve(&bogus, &p), UCC_ERR_NOT_FOUND);
        // Exchange the second endpoints' addresses, as a context would.
        uint32_t n = 4;
        ucc_oob_coll_t o;
        ASSERT_EQ(oob(&o), UCC_OK);
        std::vector<uint64_t> addrs(n);
        void *req = nullptr;
        ASSERT_EQ(o.allgather(&addr, addrs.data(), sizeof(addr), o.coll_info, &req), UCC_OK);
        while (o.req_test(req) == UCC_INPROGRESS) {
        }
        o.req_free(req);
        Peer next = 0, prev = 0;
        ASSERT_EQ(a->resolve(&addrs[(r + 1) % n], &next), UCC_OK);
        ASSERT_EQ(a->resolve(&addrs[(r + n - 1) % n], &prev), UCC_OK);
        EXPECT_EQ(next, 4 + (r + 1) % n);
        // Traffic between second endpoints of neighbours.
        uint64_t out = 100 + r, in = 0;
        Xfer s, rv;
        ASSERT_EQ(b->irecv(prev, 9, &in, sizeof(in), UCC_MEMORY_TYPE_HOST, &rv), UCC_OK);
        ASSERT_EQ(b->isend(next, 9, &out, sizeof(out), UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
        EXPECT_EQ(s.status, UCC_OK);  // eager: complete at once
        wait(b.get(), &rv);
        EXPECT_EQ(rv.status, UCC_OK);
        EXPECT_EQ(in, 100u + (r + n - 1) % n);
        EXPECT_EQ(sim(a)->stats().msgs_sent, 0u);
        EXPECT_EQ(sim(b)->stats().msgs_sent, 1u);
        EXPECT_EQ(sim(b)->stats().msgs_recv, 1u);
        EXPECT_EQ(b->isend(1'000'000, 1, &out, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_ERR_INVALID_PARAM);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, PingPongTwoRanks) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        Peer peer = 1 - r;
        for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}, size_t{1} << 20}) {
            std::vector<uint8_t> buf(bytes), got(bytes + 16, 0xee);
            for (int iter = 0; iter < 3; ++iter) {
                for (size_t i = 0; i < bytes; ++i) {
                    buf[i] = static_cast<uint8_t>(i * 31 + iter + bytes);
                }
                Tag tag = (uint64_t{1} << 48) | (uint64_t(iter) << 16) | bytes % 65536;
                Xfer s, rv;
                if (r == 0) {
                    ASSERT_EQ(t->isend(peer, tag, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &s),
                              UCC_OK);
                    ASSERT_EQ(
                        t->irecv(peer, tag, got.data(), got.size(), UCC_MEMORY_TYPE_HOST, &rv),
                        UCC_OK);
                    wait(t.get(), &rv);
                } else {
                    ASSERT_EQ(
                        t->irecv(peer, tag, got.data(), got.size(), UCC_MEMORY_TYPE_HOST, &rv),
                        UCC_OK);
                    wait(t.get(), &rv);
                    ASSERT_EQ(t->isend(peer, tag, got.data(), rv.bytes, UCC_MEMORY_TYPE_HOST, &s),
                              UCC_OK);
                }
                ASSERT_EQ(rv.status, UCC_OK);
                ASSERT_EQ(rv.bytes, bytes);
                ASSERT_TRUE(std::equal(buf.begin(), buf.end(), got.begin()));
                EXPECT_EQ(got[bytes], 0xee);
            }
        }
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    EXPECT_GT(res.virtual_time_s, 0);
}

TEST(SimTransport, Ring64) {
    const uint32_t n = 64;
    RunResult res = run(params(n, "hdr,ppn=8", 3), [n](uint32_t r) {
        auto t = make_transport();
        std::vector<uint32_t> acc(16, r);
        // After n - 1 shifts every rank has seen every other rank's value once.
        uint64_t sum = r;
        std::vector<uint32_t> in(16);
        for (uint32_t step = 0; step + 1 < n; ++step) {
            Xfer s, rv;
            ASSERT_EQ(t->irecv((r + n - 1) % n, step, in.data(), in.size() * 4,
                               UCC_MEMORY_TYPE_HOST, &rv),
                      UCC_OK);
            ASSERT_EQ(
                t->isend((r + 1) % n, step, acc.data(), acc.size() * 4, UCC_MEMORY_TYPE_HOST, &s),
                UCC_OK);
            wait(t.get(), &rv);
            ASSERT_EQ(rv.status, UCC_OK);
            ASSERT_EQ(in[0], (r + 2 * n - 1 - step) % n);
            ASSERT_EQ(in[15], in[0]);
            sum += in[0];
            acc = in;
        }
        EXPECT_EQ(sum, uint64_t{n} * (n - 1) / 2);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, SameTagNeverOvertakesUnderJitter) {
    const int kMsgs = 64;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        for (bool post_first : {true, false}) {
            RunResult res = run(params(2, "ideal,lat=1us,jitter=1ms", seed), [&](uint32_t r) {
                auto t = make_transport();
                if (r == 0) {
                    for (int i = 0; i < kMsgs; ++i) {
                        Xfer s;
                        uint32_t v = i;
                        ASSERT_EQ(t->isend(1, 42, &v, 4, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
                    }
                    return;
                }
                std::vector<uint32_t> got(kMsgs, 999);
                std::vector<Xfer> rv(kMsgs);
                if (!post_first) {
                    wait_until(t.get(), 0.1);  // everything has arrived: unexpected path
                    EXPECT_EQ(sim(t)->unexpected_messages(), size_t{kMsgs});
                }
                for (int i = 0; i < kMsgs; ++i) {
                    ASSERT_EQ(t->irecv(0, 42, &got[i], 4, UCC_MEMORY_TYPE_HOST, &rv[i]), UCC_OK);
                }
                for (int i = 0; i < kMsgs; ++i) {
                    wait(t.get(), &rv[i]);
                    ASSERT_EQ(got[i], uint32_t(i)) << "seed " << seed;
                }
                // Nothing in flight: the ordering table is empty again.
                EXPECT_EQ(Cluster::current()->order_keys(), 0u);
            });
            ASSERT_EQ(res.status, UCC_OK) << res.report;
        }
    }
}

// A send's booking of the receiver's port waits (Cluster::book_ports) until
// something could tell: a run whose ranks force it at once after every send
// (pending_events() books what waits) is the same run, on a network whose
// ports are busy, with jitter and nodes that share their NIC.
TEST(SimTransport, BookingPortsLaterChangesNothing) {
    const uint32_t n = 12;
    auto exchange = [&](bool flush_each) {
        return run(params(n, "hdr,ppn=4,nic_bw=10GB/s,jitter=300ns", 7), [&](uint32_t r) {
            auto t = make_transport();
            std::vector<uint64_t> out(256, r), in(256 * n);
            std::vector<Xfer> sends(n), recvs(n);
            for (uint32_t k = 1; k < n; ++k) {
                const uint32_t to = (r + k) % n;
                const uint32_t from = (r + n - k) % n;
                ASSERT_EQ(
                    t->irecv(from, 9, &in[256 * from], 256 * 8, UCC_MEMORY_TYPE_HOST, &recvs[k]),
                    UCC_OK);
                ASSERT_EQ(
                    t->isend(to, 9, out.data(), 8 * (k * 16), UCC_MEMORY_TYPE_HOST, &sends[k]),
                    UCC_OK);
                if (flush_each) {
                    EXPECT_GT(Cluster::current()->pending_events(), 0u);
                }
            }
            for (uint32_t k = 1; k < n; ++k) {
                wait(t.get(), &recvs[k]);
                wait(t.get(), &sends[k]);
            }
        });
    };
    const RunResult later = exchange(false);
    const RunResult at_once = exchange(true);
    ASSERT_EQ(later.status, UCC_OK) << later.report;
    ASSERT_EQ(at_once.status, UCC_OK) << at_once.report;
    EXPECT_EQ(later.trace_hash, at_once.trace_hash);
    EXPECT_EQ(later.virtual_time_s, at_once.virtual_time_s);
    EXPECT_EQ(later.events, at_once.events);
}

TEST(SimTransport, DifferentTagsMayReorder) {
    // Tag A is sent before tag B; with a jitter far above the sending gap some
    // seed delivers B first.
    bool reordered = false;
    for (uint64_t seed = 1; seed <= 200 && !reordered; ++seed) {
        run(params(2, "ideal,lat=1us,jitter=10us", seed), [&](uint32_t r) {
            auto t = make_transport();
            uint32_t a = 1, b = 2;
            if (r == 0) {
                Xfer s1, s2;
                t->isend(1, 0xA, &a, 4, UCC_MEMORY_TYPE_HOST, &s1);
                t->isend(1, 0xB, &b, 4, UCC_MEMORY_TYPE_HOST, &s2);
                return;
            }
            OrderSink sink;
            t->set_sink(&sink);
            uint32_t ga = 0, gb = 0;
            Xfer ra, rb;
            t->irecv(0, 0xA, &ga, 4, UCC_MEMORY_TYPE_HOST, &ra);
            t->irecv(0, 0xB, &gb, 4, UCC_MEMORY_TYPE_HOST, &rb);
            wait(t.get(), &ra);
            wait(t.get(), &rb);
            EXPECT_EQ(ga, 1u);
            EXPECT_EQ(gb, 2u);
            ASSERT_EQ(sink.order.size(), 2u);
            if (sink.order[0] == &rb) {
                reordered = true;
            }
            t->set_sink(nullptr);
        });
    }
    EXPECT_TRUE(reordered);
}

TEST(SimTransport, UnexpectedMessagePath) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 0) {
            uint64_t v = 0x1234;
            Xfer s;
            t->isend(1, 7, &v, 8, UCC_MEMORY_TYPE_HOST, &s);
            return;
        }
        wait_until(t.get(), 1e-3);
        EXPECT_EQ(sim(t)->unexpected_messages(), 1u);
        EXPECT_EQ(sim(t)->stats().unexpected, 1u);
        uint64_t got = 0;
        Xfer rv;
        ASSERT_EQ(t->irecv(0, 7, &got, 8, UCC_MEMORY_TYPE_HOST, &rv), UCC_OK);
        EXPECT_EQ(rv.status, UCC_OK);  // matched at once
        EXPECT_EQ(rv.bytes, 8u);
        EXPECT_EQ(got, 0x1234u);
        EXPECT_EQ(sim(t)->unexpected_messages(), 0u);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, TruncatedMessageIsAnError) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        uint64_t v[2] = {1, 2};
        if (r == 0) {
            Xfer s;
            t->isend(1, 7, v, 16, UCC_MEMORY_TYPE_HOST, &s);
            return;
        }
        uint64_t got = 0;
        Xfer rv;
        t->irecv(0, 7, &got, 8, UCC_MEMORY_TYPE_HOST, &rv);
        wait(t.get(), &rv);
        EXPECT_EQ(rv.status, UCC_ERR_NO_MESSAGE);
        EXPECT_EQ(rv.bytes, 16u);  // the message's length, for the core's DESYNC line
        EXPECT_EQ(got, 0u);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, CancelRemovesPostedReceive) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 0) {
            uint64_t v = 77;
            Xfer s;
            t->isend(1, 3, &v, 8, UCC_MEMORY_TYPE_HOST, &s);
            return;
        }
        uint64_t lost = 0, got = 0;
        Xfer cancelled, rv;
        t->irecv(0, 3, &lost, 8, UCC_MEMORY_TYPE_HOST, &cancelled);
        EXPECT_EQ(sim(t)->posted_receives(), 1u);
        t->cancel(&cancelled);
        EXPECT_EQ(sim(t)->posted_receives(), 0u);
        wait_until(t.get(), 1e-3);
        EXPECT_EQ(cancelled.status, UCC_INPROGRESS);  // never touched again
        EXPECT_EQ(lost, 0u);
        EXPECT_EQ(sim(t)->unexpected_messages(), 1u);
        t->irecv(0, 3, &got, 8, UCC_MEMORY_TYPE_HOST, &rv);
        EXPECT_EQ(rv.status, UCC_OK);
        EXPECT_EQ(got, 77u);
        t->cancel(&rv);  // completed: no-op
        EXPECT_EQ(rv.status, UCC_OK);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

// A send whose receive is already posted writes its bytes there at once (no
// copy on the simulated wire); the receive still completes at the arrival.
TEST(SimTransport, SendIntoAPostedReceiveCompletesAtTheArrival) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 0) {
            wait_until(t.get(), 1e-6);  // rank 1 posted at time 0
            uint64_t v = 77;
            Xfer s;
            ASSERT_EQ(t->isend(1, 3, &v, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
            v = 0;  // the send's bytes are taken: the buffer is the sender's again
            EXPECT_EQ(sim(t)->stats().direct, 1u);
            return;
        }
        uint64_t got = 0;
        Xfer rv;
        ASSERT_EQ(t->irecv(0, 3, &got, 8, UCC_MEMORY_TYPE_HOST, &rv), UCC_OK);
        wait(t.get(), &rv);
        EXPECT_EQ(rv.status, UCC_OK);
        EXPECT_EQ(rv.bytes, 8u);
        EXPECT_EQ(got, 77u);
        EXPECT_GT(t->now(), 1e-6 + 0.3e-6);  // sent at 1 us, 300 ns of latency at least
        EXPECT_EQ(sim(t)->stats().msgs_recv, 1u);
        EXPECT_EQ(sim(t)->stats().unexpected, 0u);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

// A message still on its way without a receive matches the first receive
// posted after it: a later send on the same key must not take that receive.
TEST(SimTransport, AMessageOnItsWayKeepsItsReceive) {
    RunResult res = run(params(2, "slow"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 0) {
            uint64_t a = 1, b = 2, c = 3;
            Xfer s;
            ASSERT_EQ(t->isend(1, 5, &a, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);  // no receive yet
            wait_until(t.get(), 3e-6);  // rank 1 posted two receives; a (7 us) is on its way
            ASSERT_EQ(t->isend(1, 5, &b, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
            EXPECT_EQ(sim(t)->stats().direct, 0u);
            wait_until(t.get(), 1e-3);  // both arrived; rank 1 posted a third
            ASSERT_EQ(t->isend(1, 5, &c, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
            EXPECT_EQ(sim(t)->stats().direct, 1u);
            return;
        }
        uint64_t got[3] = {0, 0, 0};
        Xfer rv[3];
        ASSERT_EQ(t->irecv(0, 5, &got[0], 8, UCC_MEMORY_TYPE_HOST, &rv[0]), UCC_OK);
        ASSERT_EQ(t->irecv(0, 5, &got[1], 8, UCC_MEMORY_TYPE_HOST, &rv[1]), UCC_OK);
        wait(t.get(), &rv[1]);
        ASSERT_EQ(t->irecv(0, 5, &got[2], 8, UCC_MEMORY_TYPE_HOST, &rv[2]), UCC_OK);
        wait(t.get(), &rv[2]);
        for (int i = 0; i < 3; ++i) {
            EXPECT_EQ(rv[i].status, UCC_OK);
            EXPECT_EQ(got[i], uint64_t(i + 1)) << "receive " << i;
        }
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

// A receive cancelled after a send wrote into it gives the bytes back to the
// message, which a later receive then gets; an endpoint destroyed before such
// a message arrives drops it.
TEST(SimTransport, AClaimedReceiveCancelledOrDestroyedLosesNothing) {
    RunResult res = run(params(3, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 0) {
            wait_until(t.get(), 1e-8);  // ranks 1 and 2 posted at time 0
            uint64_t v = 77;
            Xfer s;
            ASSERT_EQ(t->isend(1, 3, &v, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
            ASSERT_EQ(t->isend(2, 3, &v, 8, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
            EXPECT_EQ(sim(t)->stats().direct, 2u);
            return;
        }
        uint64_t first = 0, got = 0;
        Xfer cancelled, rv;
        ASSERT_EQ(t->irecv(0, 3, &first, 8, UCC_MEMORY_TYPE_HOST, &cancelled), UCC_OK);
        wait_until(t.get(), 0.4e-6);  // rank 0 has sent both; they arrive after 0.5 us
        if (r == 2) {
            t.reset();  // its message finds no endpoint
            return;
        }
        t->cancel(&cancelled);
        EXPECT_EQ(sim(t)->posted_receives(), 0u);
        wait_until(t.get(), 1e-3);
        EXPECT_EQ(cancelled.status, UCC_INPROGRESS);  // never touched again
        EXPECT_EQ(sim(t)->unexpected_messages(), 1u);
        ASSERT_EQ(t->irecv(0, 3, &got, 8, UCC_MEMORY_TYPE_HOST, &rv), UCC_OK);
        EXPECT_EQ(rv.status, UCC_OK);
        EXPECT_EQ(got, 77u);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, RmaPutGetAtomicFlush) {
    RunResult res = run(params(2, "slow", 5), [](uint32_t r) {
        auto t = make_transport();
        std::vector<uint64_t> mem(64, 0);
        if (r == 1) {
            MemRegion region;
            ASSERT_EQ(t->mem_register(mem.data(), mem.size() * 8, &region), UCC_OK);
            std::vector<uint8_t> rkey = t->rkey_pack(region);
            uint64_t base = reinterpret_cast<uint64_t>(mem.data());
            Xfer s, done;
            t->isend(0, 1, rkey.data(), rkey.size(), UCC_MEMORY_TYPE_HOST, &s);
            t->isend(0, 2, &base, 8, UCC_MEMORY_TYPE_HOST, &s);
            uint8_t token = 0;
            t->irecv(0, 3, &token, 1, UCC_MEMORY_TYPE_HOST, &done);
            wait(t.get(), &done);
            // The origin flushed before telling us: every write is visible.
            for (int i = 0; i < 32; ++i) {
                EXPECT_EQ(mem[i], uint64_t(1000 + i));
            }
            EXPECT_EQ(mem[40], 3u * 5u);
            t->mem_deregister(&region);
            return;
        }
        std::vector<uint8_t> rkey(32);
        uint64_t base = 0;
        Xfer r1, r2;
        t->irecv(1, 1, rkey.data(), rkey.size(), UCC_MEMORY_TYPE_HOST, &r1);
        t->irecv(1, 2, &base, 8, UCC_MEMORY_TYPE_HOST, &r2);
        wait(t.get(), &r1);
        wait(t.get(), &r2);
        Xfer f0;
        ASSERT_EQ(t->flush(1, &f0), UCC_OK);
        EXPECT_EQ(f0.status, UCC_OK);  // nothing outstanding
        std::vector<uint64_t> src(32);
        for (int i = 0; i < 32; ++i) {
            src[i] = 1000 + i;
        }
        Xfer p1, p2, a;
        ASSERT_EQ(t->put(1, src.data(), 16 * 8, base, rkey, &p1), UCC_OK);
        EXPECT_EQ(p1.status, UCC_OK);  // local completion at once
        src[0] = 0xdead;               // the source may be reused
        src[0] = 1000;
        ASSERT_EQ(t->put(1, src.data() + 16, 16 * 8, base + 16 * 8, rkey, &p2), UCC_OK);
        for (int i = 0; i < 3; ++i) {
            ASSERT_EQ(t->atomic_add(1, base + 40 * 8, 5, rkey, &a), UCC_OK);
        }
        // Out of bounds and foreign keys are refused.
        EXPECT_EQ(t->put(1, src.data(), 16, base + 63 * 8, rkey, &p1), UCC_ERR_INVALID_PARAM);
        EXPECT_EQ(t->put(0, src.data(), 8, base, rkey, &p1), UCC_ERR_INVALID_PARAM);
        Xfer f;
        ASSERT_EQ(t->flush(1, &f), UCC_OK);
        EXPECT_EQ(f.status, UCC_INPROGRESS);
        wait(t.get(), &f);
        EXPECT_EQ(f.status, UCC_OK);
        // Read back part of it.
        std::vector<uint64_t> back(8, 0);
        Xfer g;
        ASSERT_EQ(t->get(1, back.data(), 8 * 8, base + 10 * 8, rkey, &g), UCC_OK);
        EXPECT_EQ(g.status, UCC_INPROGRESS);
        wait(t.get(), &g);
        EXPECT_EQ(g.status, UCC_OK);
        EXPECT_EQ(g.bytes, 64u);
        for (int i = 0; i < 8; ++i) {
            EXPECT_EQ(back[i], uint64_t(1010 + i));
        }
        EXPECT_EQ(sim(t)->stats().puts, 2u);
        EXPECT_EQ(sim(t)->stats().atomics, 3u);
        EXPECT_EQ(sim(t)->stats().gets, 1u);
        uint8_t token = 1;
        Xfer s;
        t->isend(1, 3, &token, 1, UCC_MEMORY_TYPE_HOST, &s);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, FlushReportsFailedRemoteWrites) {
    RunResult res = run(params(2, "hdr"), [](uint32_t r) {
        auto t = make_transport();
        uint64_t word = 0;
        if (r == 1) {
            MemRegion region;
            t->mem_register(&word, 8, &region);
            std::vector<uint8_t> rkey = t->rkey_pack(region);
            t->mem_deregister(&region);  // gone before the put arrives
            Xfer s;
            t->isend(0, 1, rkey.data(), rkey.size(), UCC_MEMORY_TYPE_HOST, &s);
            wait_until(t.get(), 1e-3);  // stay alive (a gone endpoint gives NOT_FOUND)
            return;
        }
        std::vector<uint8_t> rkey(32);
        Xfer rv;
        t->irecv(1, 1, rkey.data(), rkey.size(), UCC_MEMORY_TYPE_HOST, &rv);
        wait(t.get(), &rv);
        uint64_t addr;
        std::memcpy(&addr, rkey.data() + 16, 8);
        uint64_t v = 5;
        Xfer p, f;
        ASSERT_EQ(t->put(1, &v, 8, addr, rkey, &p), UCC_OK);
        ASSERT_EQ(t->flush(1, &f), UCC_OK);
        wait(t.get(), &f);
        EXPECT_EQ(f.status, UCC_ERR_INVALID_PARAM);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, VirtualTimeMatchesLogGP) {
    // Two ranks on different nodes; L = 1us, G = 1 ps/B (1 GB/s), no jitter.
    RunResult res = run(params(2, "ideal,ppn=1,lat_inter=1us,bw_inter=1GB/s"), [](uint32_t r) {
        auto t = make_transport();
        std::vector<uint8_t> buf(1000, 1);
        Xfer x;
        if (r == 0) {
            t->isend(1, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
            EXPECT_EQ(t->now(), 0.0);  // o = 0
            return;
        }
        t->irecv(0, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
        wait(t.get(), &x);
        EXPECT_NEAR(t->now(), 2e-6, 1e-15);  // L + 1000 B * 1 ns/B
    });
    EXPECT_EQ(res.status, UCC_OK);
    EXPECT_NEAR(res.virtual_time_s, 2e-6, 1e-15);

    // Now with overheads and NIC gap: o = 100ns, g = 50ns; two messages back to back.
    res = run(params(2, "ideal,ppn=1,lat_inter=1us,bw_inter=1GB/s,o=100ns,g=50ns"), [](uint32_t r) {
        auto t = make_transport();
        std::vector<uint8_t> buf(1000, 1);
        Xfer x, y;
        if (r == 0) {
            t->isend(1, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
            EXPECT_NEAR(t->now(), 100e-9, 1e-15);
            t->isend(1, 2, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &y);
            EXPECT_NEAR(t->now(), 200e-9, 1e-15);
            return;
        }
        t->irecv(0, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
        wait(t.get(), &x);
        // departs at 100ns, arrives 100ns + 1us + 1us, then o_recv.
        EXPECT_NEAR(t->now(), 2.2e-6, 1e-15);
        t->irecv(0, 2, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &y);
        wait(t.get(), &y);
        // The NIC is busy until 100ns + g + 1us = 1.15us; arrival 3.15us.
        EXPECT_NEAR(t->now(), 3.25e-6, 1e-15);
    });
    EXPECT_EQ(res.status, UCC_OK);
    EXPECT_NEAR(res.virtual_time_s, 3.25e-6, 1e-15);

    // Same node uses the intra-node numbers; charge() costs copy/reduce time.
    res = run(params(2, "ideal,ppn=2,lat_intra=300ns,bw_intra=2GB/s,copy=1GB/s,reduce=500MB/s"),
              [](uint32_t r) {
                  auto t = make_transport();
                  std::vector<uint8_t> buf(1000, 1);
                  Xfer x;
                  if (r == 0) {
                      t->simulated()->charge(Work::kCopy, 1000);  // 1us
                      t->isend(1, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
                      return;
                  }
                  t->irecv(0, 1, buf.data(), 1000, UCC_MEMORY_TYPE_HOST, &x);
                  wait(t.get(), &x);
                  EXPECT_NEAR(t->now(), 1.8e-6, 1e-15);         // 1us + 300ns + 500ns
                  t->simulated()->charge(Work::kReduce, 1000);  // 2us
                  EXPECT_NEAR(t->now(), 3.8e-6, 1e-15);
              });
    EXPECT_EQ(res.status, UCC_OK);
}

// Ranks r < half each send `bytes` to rank r + half at time 0; the receivers'
// completion times go to *done (indexed by receiver - half) when given.
RunResult one_way(const char *spec, uint32_t half, size_t bytes,
                  std::vector<double> *done = nullptr, bool input = false) {
    if (done != nullptr) {
        done->assign(half, 0);
    }
    return run(params(2 * half, spec), [half, bytes, done, input](uint32_t r) {
        auto t = make_transport();
        std::vector<uint8_t> buf(bytes, 1);
        Xfer x;
        x.input = input;
        if (r < half) {
            t->isend(r + half, 1, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &x);
            return;
        }
        t->irecv(r - half, 1, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &x);
        wait(t.get(), &x);
        if (done != nullptr) {
            (*done)[r - half] = t->now();
        }
    });
}

// What a node's ranks share (network.h): the NIC between nodes, memory
// within one, and the rendezvous round trip above its threshold.
TEST(SimTransport, NodesShareTheirNicAndMemory) {
    // Four ranks per node, each sending 1000 B to its peer on the other
    // node at time 0. Links of 1 GB/s per rank (1us), one NIC of 1 GB/s
    // per node: the node's four messages leave one after another.
    std::vector<double> got;
    RunResult res = one_way("ideal,ppn=4,lat_inter=1us,bw_inter=1GB/s,nic_bw=1GB/s", 4, 1000, &got);
    EXPECT_EQ(res.status, UCC_OK);
    std::sort(got.begin(), got.end());
    // The sender's NIC takes them at 0, 1, 2, 3us, 1us each; the
    // receiver's NIC, a latency later, one after another too (a message
    // cuts through both: one alone takes L + 1us): 2, 3, 4, 5us.
    EXPECT_NEAR(got[0], 2e-6, 1e-15);
    EXPECT_NEAR(got[1], 3e-6, 1e-15);
    EXPECT_NEAR(got[3], 5e-6, 1e-15);
    // Without the shared NIC all four arrive at 2us.
    res = one_way("ideal,ppn=4,lat_inter=1us,bw_inter=1GB/s", 4, 1000);
    EXPECT_NEAR(res.virtual_time_s, 2e-6, 1e-15);
    // The message rate: 1M messages per second is 1us per message at the NIC.
    res = one_way("ideal,ppn=4,lat_inter=1us,nic_rate=1M", 4, 1);
    EXPECT_NEAR(res.virtual_time_s, 5e-6, 1e-15);  // out at 0..3us, in 1us each, from 1us
    // Within a node: two 1000 B messages share 1 GB/s of memory.
    res = one_way("ideal,ppn=4,lat_intra=100ns,node_bw=1GB/s", 2, 1000);
    EXPECT_NEAR(res.virtual_time_s, 2.1e-6, 1e-15);
    // Rendezvous above 512 B: one round trip (2 x 1us) before the data.
    for (size_t bytes : {512u, 513u}) {
        res = one_way("ideal,ppn=1,lat_inter=1us,rndv=512", 1, bytes);
        EXPECT_NEAR(res.virtual_time_s, bytes > 512 ? 3e-6 : 1e-6, 1e-15) << bytes;
    }
}

// The operating system's detours (network.h: noise_hz, noise): work they
// interrupt takes longer, a message that arrives during one is seen at its
// end, and a node's cores stop at the same instants.
TEST(SimTransport, DetoursOfTheOperatingSystemDelayARank) {
    // 10 us of work, detours of 500 ns every microsecond: about twice as
    // long, whatever the node's phase.
    std::vector<double> done(4, 0);
    RunResult res = run(params(4, "ideal,ppn=2,noise_hz=1M,noise=500ns"), [&](uint32_t r) {
        auto t = make_transport();
        Cluster::current()->advance(r, 10'000'000);
        done[r] = t->now();
    });
    ASSERT_EQ(res.status, UCC_OK);
    for (double d : done) {
        EXPECT_GE(d, 19.5e-6);
        EXPECT_LE(d, 20.5e-6);
    }
    EXPECT_EQ(done[0], done[1]);  // one node: the same detours
    EXPECT_EQ(done[2], done[3]);
    // Without the detours, 10 us.
    res = run(params(1, "ideal"), [&](uint32_t r) {
        auto t = make_transport();
        Cluster::current()->advance(r, 10'000'000);
        done[r] = t->now();
    });
    EXPECT_EQ(done[0], 10e-6);
    // A message that arrives while its receiver's node is in a detour is
    // seen when the detour ends; a sender in one sends after it. Detours of
    // 900 ns every microsecond, 16 pairs of nodes: some are late.
    std::vector<double> got;
    res = one_way("ideal,ppn=1,lat=1us,noise_hz=1M,noise=900ns", 16, 8, &got);
    ASSERT_EQ(res.status, UCC_OK);
    for (double g : got) {
        EXPECT_GE(g, 1e-6);
        EXPECT_LE(g, 2.8e-6);  // a detour at each end at most
    }
    EXPECT_GT(*std::max_element(got.begin(), got.end()), 1e-6);
}

// UCX's protocols by size (network.h): inline up to `short`, then a copy on
// each side (o_bcopy + bytes / bcopy) up to the zero-copy threshold; between
// nodes a payload that is not inline is read by the NIC first (dma_read).
TEST(SimTransport, ProtocolsBySizeChargeTheirCopiesAndReads) {
    const char *spec =
        "ideal,ppn=2,lat_intra=1us,short_intra=100,o_bcopy=1us,bcopy_intra=1GB/s,"
        "zcopy_intra=4000";
    // Inline: the latency alone.
    EXPECT_NEAR(one_way(spec, 1, 100).virtual_time_s, 1e-6, 1e-15);
    // 1000 B: the sender's copy (1 + 1us), the latency, the receiver's copy (1 + 1us).
    EXPECT_NEAR(one_way(spec, 1, 1000).virtual_time_s, 5e-6, 1e-15);
    // Zero-copy above 4000 B: the latency alone again.
    EXPECT_NEAR(one_way(spec, 1, 4001).virtual_time_s, 1e-6, 1e-15);
    // Between nodes the intra-node settings do not apply.
    EXPECT_NEAR(
        one_way("ideal,ppn=1,lat_inter=1us,o_bcopy=1us,bcopy_intra=1GB/s", 1, 1000).virtual_time_s,
        1e-6, 1e-15);
    // The NIC's read: above short_inter, between nodes only.
    const char *dma = "ideal,ppn=1,lat=1us,short_inter=256,dma_read=500ns";
    EXPECT_NEAR(one_way(dma, 1, 256).virtual_time_s, 1e-6, 1e-15);
    EXPECT_NEAR(one_way(dma, 1, 257).virtual_time_s, 1.5e-6, 1e-15);
    EXPECT_NEAR(one_way("ideal,ppn=2,lat=1us,dma_read=500ns", 1, 4096).virtual_time_s, 1e-6, 1e-15);
}

// A rendezvous send (above rndv) completes once its receiver matched it,
// a latency later; an eager one at once. The receiver posts at 5us.
TEST(SimTransport, RendezvousSendsCompleteWhenTheirReceiverMatches) {
    for (size_t bytes : {512u, 513u}) {
        double sent_s = -1;
        double cancelled_s = -1;
        RunResult res = run(params(2, "ideal,ppn=1,lat_inter=1us,rndv=512"), [&](uint32_t r) {
            auto t = make_transport();
            std::vector<uint8_t> buf(bytes, 1);
            Xfer x;
            if (r == 0) {
                ASSERT_EQ(t->isend(1, 7, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &x), UCC_OK);
                wait(t.get(), &x);
                EXPECT_EQ(x.status, UCC_OK);
                EXPECT_EQ(x.bytes, bytes);
                sent_s = t->now();
                // A cancelled one is never touched again, even once matched.
                Xfer y;
                ASSERT_EQ(t->isend(1, 8, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &y), UCC_OK);
                t->cancel(&y);
                wait_until(t.get(), 20e-6);
                if (bytes > 512) {
                    EXPECT_EQ(y.status, UCC_INPROGRESS);
                }
                cancelled_s = t->now();
                return;
            }
            Cluster::current()->advance(1, 5'000'000);
            Xfer rx;
            t->irecv(0, 7, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &rx);
            wait(t.get(), &rx);
            EXPECT_EQ(rx.status, UCC_OK);
            Xfer ry;
            t->irecv(0, 8, buf.data(), bytes, UCC_MEMORY_TYPE_HOST, &ry);
            wait(t.get(), &ry);
        });
        EXPECT_EQ(res.status, UCC_OK) << bytes;
        // Eager: at once. Rendezvous: matched at 5us (the data came at 3us:
        // the round trip, then the latency), acknowledged at 6us.
        EXPECT_NEAR(sent_s, bytes > 512 ? 6e-6 : 0, 1e-15) << bytes;
        EXPECT_GE(cancelled_s, 20e-6);
    }
}

// Within a node a zero-copy message may be copied by its receiver (cma):
// no wire, bytes / cma on the receiver's CPU.
TEST(SimTransport, PulledMessagesCostTheReceiversCopy) {
    const char *spec = "ideal,ppn=2,lat_intra=1us,bw_intra=1GB/s,zcopy_intra=4000,cma=2GB/s";
    EXPECT_NEAR(one_way(spec, 1, 4000).virtual_time_s, 5e-6, 1e-15);       // L + the wire
    EXPECT_NEAR(one_way(spec, 1, 4001).virtual_time_s, 3.0005e-6, 1e-15);  // L + the copy
    // Its fixed cost, and beyond the cache the memory's bandwidth (a lone
    // message's working set: its bytes twice).
    const char *cached =
        "ideal,ppn=2,lat_intra=1us,zcopy_intra=4000,cma=2GB/s,o_cma=1us,cache=16000,cma_mem=1GB/s";
    EXPECT_NEAR(one_way(cached, 1, 8000).virtual_time_s, 6e-6, 1e-15);       // 1 + 1 + 4us
    EXPECT_NEAR(one_way(cached, 1, 8001).virtual_time_s, 10.001e-6, 1e-15);  // 1 + 1 + 8.001us
    // Between nodes, and without cma, the wire.
    EXPECT_NEAR(
        one_way("ideal,ppn=1,lat=1us,bw=1GB/s,zcopy_intra=4000,cma=2GB/s", 1, 4001).virtual_time_s,
        5.001e-6, 1e-15);
    EXPECT_NEAR(one_way("ideal,ppn=2,lat_intra=1us,bw_intra=1GB/s,zcopy_intra=4000", 1, 4001)
                    .virtual_time_s,
                5.001e-6, 1e-15);
}

// With cma_written, a pull of the sender's unchanged input (Xfer::input)
// costs cma's, every other pull cma_written's.
TEST(SimTransport, PullsOfJustWrittenDataCostTheirOwn) {
    const char *spec =
        "ideal,ppn=2,lat_intra=1us,zcopy_intra=4000,cma=2GB/s,o_cma=1us,cma_written=1GB/s,"
        "o_cma_written=2us";
    EXPECT_NEAR(one_way(spec, 1, 8000, nullptr, true).virtual_time_s, 6e-6, 1e-15);    // 1+1+4us
    EXPECT_NEAR(one_way(spec, 1, 8000, nullptr, false).virtual_time_s, 11e-6, 1e-15);  // 1+2+8us
    // Without cma_written every pull is cma's.
    const char *one = "ideal,ppn=2,lat_intra=1us,zcopy_intra=4000,cma=2GB/s,o_cma=1us";
    EXPECT_NEAR(one_way(one, 1, 8000, nullptr, false).virtual_time_s, 6e-6, 1e-15);
}

// A node of more ranks than cores: rank r runs on core r % cores of its
// node, and work after another rank's on that core pays `wake` first.
TEST(SimTransport, RanksBeyondTheCoresTakeTurns) {
    const char *spec = "ideal,ppn=4,lat_intra=1us,o=1us,cores=2,wake=3us";
    // Four ranks on the node, 0 and 1 sending to 2 and 3 (cores 0 and 1):
    // o_send 1us, L 1us, the switch from the sender 3us, o_recv 1us.
    EXPECT_NEAR(one_way(spec, 2, 8).virtual_time_s, 6e-6, 1e-15);
    // Ranks 0 and 2 share core 0 and both send to rank 1 at 0: one send
    // waits for the other and a switch (leaves at 5us, in at 6us); rank 1,
    // alone with the idle rank 3 on core 1, switches nothing: done at 7us.
    std::vector<double> done(4, 0);
    RunResult res = run(params(4, spec), [&done](uint32_t r) {
        auto t = make_transport();
        uint8_t a = 1;
        uint8_t b = 2;
        Xfer x;
        Xfer y;
        if (r == 0 || r == 2) {
            t->isend(1, r, &a, 1, UCC_MEMORY_TYPE_HOST, &x);
        } else if (r == 1) {
            t->irecv(0, 0, &a, 1, UCC_MEMORY_TYPE_HOST, &x);
            t->irecv(2, 2, &b, 1, UCC_MEMORY_TYPE_HOST, &y);
            wait(t.get(), &x);
            wait(t.get(), &y);
        }
        done[r] = t->now();
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    EXPECT_NEAR(done[1], 7e-6, 1e-15);
    EXPECT_NEAR(std::max(done[0], done[2]), 5e-6, 1e-15);
    EXPECT_NEAR(std::min(done[0], done[2]), 1e-6, 1e-15);
    // Two ranks (the run's last node holds only them): a core each.
    EXPECT_NEAR(one_way(spec, 1, 8).virtual_time_s, 3e-6, 1e-15);
    // cores=0: a core per rank.
    EXPECT_NEAR(one_way("ideal,ppn=4,lat_intra=1us,o=1us,wake=3us", 2, 8).virtual_time_s, 3e-6,
                1e-15);
}

// The switches reduce (network.h sharp_lat): every member gets the sum of
// all contributions, folded in member order, sharp_lat + bytes / sharp_bw
// after the last is in, whatever order they arrived in.
TEST(SimTransport, SwitchesReduceInMemberOrder) {
    constexpr uint32_t kN = 5;
    std::vector<double> done(kN, 0);
    auto sum = [](void *dst, const void *a, const void *b, size_t count) {
        for (size_t i = 0; i < count; ++i) {
            // Not commutative: the order of the fold shows in the result.
            static_cast<int64_t *>(dst)[i] =
                static_cast<const int64_t *>(a)[i] * 10 + static_cast<const int64_t *>(b)[i];
        }
    };
    RunResult res = run(params(kN, "ideal,ppn=1,sharp_lat=2us,sharp_bw=1GB/s"), [&](uint32_t r) {
        auto t = make_transport();
        ucc::SimulatedWorld *w = t->simulated();
        ASSERT_TRUE(w->reduces_in_network());
        // Rank r contributes at r us: the last one at 4us.
        t->idle(r * 1e-6);
        int64_t mine[2] = {r + 1, 7};
        int64_t out[2] = {0, 0};
        Xfer rx;
        Xfer sx;
        ASSERT_EQ(t->irecv(r, 9, out, sizeof(out), UCC_MEMORY_TYPE_HOST, &rx), UCC_OK);
        ASSERT_EQ(w->reduce_in_network(0, 9, r, kN, mine, 2, sizeof(mine), sum, &sx), UCC_OK);
        EXPECT_EQ(sx.status, UCC_OK);
        wait(t.get(), &rx);
        EXPECT_EQ(out[0], 12345);
        EXPECT_EQ(out[1], 77777);
        done[r] = t->now();
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    for (double t : done) {
        EXPECT_NEAR(t, 4e-6 + 2e-6 + 16e-9, 1e-15);  // 16 B at 1 GB/s
    }
    // A network whose switches do not reduce refuses.
    res = run(params(2, "ideal"), [](uint32_t) {
        auto t = make_transport();
        int64_t v = 0;
        Xfer x;
        EXPECT_FALSE(t->simulated()->reduces_in_network());
        EXPECT_EQ(t->simulated()->reduce_in_network(0, 9, 0, 2, &v, 1, 8, nullptr, &x),
                  UCC_ERR_NOT_SUPPORTED);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
}

TEST(SimTransport, IdleWakesAtDeadline) {
    RunResult res = run(params(2, "ideal,lat=3us"), [](uint32_t r) {
        auto t = make_transport();
        if (r == 1) {
            uint32_t v = 1;
            Xfer s;
            t->isend(0, 1, &v, 4, UCC_MEMORY_TYPE_HOST, &s);
            return;
        }
        EXPECT_EQ(t->now(), 0.0);
        // A message arrives at 3us, before the deadline: idle returns then.
        t->idle(10e-6);
        EXPECT_NEAR(t->now(), 3e-6, 1e-15);
        EXPECT_EQ(t->progress(), 0);  // nothing posted: it goes to unexpected
        EXPECT_EQ(sim(t)->unexpected_messages(), 1u);
        // Nothing else comes: idle returns at the deadline exactly.
        t->idle(10e-6);
        EXPECT_EQ(t->now(), 10e-6);
        t->idle(25e-6);
        EXPECT_EQ(t->now(), 25e-6);
        // A deadline in the past returns at once.
        t->idle(1e-6);
        EXPECT_EQ(t->now(), 25e-6);
        EXPECT_NEAR(now_s(), 25e-6, 1e-18);
    });
    EXPECT_EQ(res.status, UCC_OK) << res.report;
    EXPECT_EQ(res.virtual_time_s, 25e-6);
}

TEST(SimTransport, TimingOnlyMovesNoBytesButTakesTheSameTime) {
    auto body = [](uint32_t r) {
        auto t = make_transport();
        uint64_t v = 5, got = 0;
        Xfer x;
        if (r == 0) {
            t->isend(1, 1, t->simulated()->timing_only() ? nullptr : &v, 8, UCC_MEMORY_TYPE_HOST,
                     &x);
            return;
        }
        t->irecv(0, 1, &got, 8, UCC_MEMORY_TYPE_HOST, &x);
        wait(t.get(), &x);
        EXPECT_EQ(x.status, UCC_OK);
        EXPECT_EQ(x.bytes, 8u);
        EXPECT_EQ(got, t->simulated()->timing_only() ? 0u : 5u);
    };
    ClusterParams p = params(2, "hdr");
    RunResult full = run(p, body);
    p.timing_only = true;
    RunResult timing = run(p, body);
    EXPECT_EQ(full.status, UCC_OK);
    EXPECT_EQ(timing.status, UCC_OK);
    EXPECT_EQ(full.virtual_time_s, timing.virtual_time_s);
    EXPECT_EQ(full.trace_hash, timing.trace_hash);
}

// A ring exchange with random-ish sizes: a workload for determinism checks.
void ring_workload(uint32_t r) {
    auto t = make_transport();
    uint32_t n = cluster_size();
    std::vector<uint8_t> out(64 + r * 8, uint8_t(r)), in(64 + n * 8);
    for (uint32_t step = 0; step < 8; ++step) {
        Xfer s, rv;
        t->irecv((r + n - 1) % n, step, in.data(), in.size(), UCC_MEMORY_TYPE_HOST, &rv);
        t->isend((r + 1) % n, step, out.data(), out.size(), UCC_MEMORY_TYPE_HOST, &s);
        Xfer s2, rv2;
        t->irecv((r + 1) % n, 100 + step, in.data(), in.size(), UCC_MEMORY_TYPE_HOST, &rv2);
        t->isend((r + n - 1) % n, 100 + step, out.data(), 8, UCC_MEMORY_TYPE_HOST, &s2);
        wait(t.get(), &rv);
        wait(t.get(), &rv2);
        t->simulated()->charge(Work::kReduce, rv.bytes);
    }
}

TEST(SimTransport, SameSeedSameHash) {
    RunResult a = run(params(16, "hdr", 42), ring_workload);
    RunResult b = run(params(16, "hdr", 42), ring_workload);
    RunResult c = run(params(16, "hdr", 43), ring_workload);
    ASSERT_EQ(a.status, UCC_OK) << a.report;
    EXPECT_EQ(a.trace_hash, b.trace_hash);
    EXPECT_EQ(a.virtual_time_s, b.virtual_time_s);
    EXPECT_EQ(a.events, b.events);
    EXPECT_NE(a.trace_hash, c.trace_hash);
    EXPECT_NE(a.trace_hash, 0u);
}

TEST(SimTransport, DeadlockIsReportedAndDoesNotHang) {
    const Tag tag = 0x0001000000020003ull;
    RunResult res = run(params(3, "hdr"), [tag](uint32_t r) {
        auto t = make_transport();
        if (r != 0) {
            return;
        }
        uint64_t got;
        Xfer x;
        t->irecv(1, tag, &got, 8, UCC_MEMORY_TYPE_HOST, &x);
        wait(t.get(), &x);  // returns once the run is aborted
        EXPECT_TRUE(t->simulated()->aborted());
        EXPECT_FALSE(x.done());
        t->idle(kNoDeadline);  // returns at once in abort mode
    });
    EXPECT_EQ(res.status, UCC_ERR_NO_MESSAGE);
    EXPECT_NE(res.report.find("DEADLOCK"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("rank 0"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("0x0001000000020003"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("team=1 seq=2 step=3"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("from endpoint 1 (rank 1)"), std::string::npos) << res.report;
}

}  // namespace
}  // namespace ucc::sim

namespace ucc::sim {
namespace {

// A rank that ignores aborted() and keeps calling idle() does not hang: the
// simulator gives up with a message.
TEST(SimTransportDeathTest, SpinningAfterAbortAborts) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            run(params(2, "hdr"), [](uint32_t r) {
                auto t = make_transport();
                if (r != 0) {
                    return;
                }
                uint64_t got;
                Xfer x;
                t->irecv(1, 5, &got, 8, UCC_MEMORY_TYPE_HOST, &x);
                while (!x.done()) {
                    if (t->progress() == 0) {
                        t->idle(kNoDeadline);
                    }
                }
            });
        },
        "without blocking; giving up");
}

}  // namespace
}  // namespace ucc::sim

namespace ucc::sim {
namespace {

// A ping-pong where each side is ahead of the world when it waits: the
// library's idle() needs no timer, so every processed event is a message.
TEST(SimTransport, LibraryIdleAheadOfTheWorldArmsNoTimer) {
    constexpr int kRounds = 50;
    RunResult res = run(params(2, "hdr,ppn=1"), [](uint32_t r) {
        auto t = make_transport();
        uint8_t b = 0;
        for (int i = 0; i < kRounds; ++i) {
            Xfer s, q;
            if (r == 0) {
                t->isend(1, i, &b, 1, UCC_MEMORY_TYPE_HOST, &s);  // now ahead by o_send
                t->irecv(1, i, &b, 1, UCC_MEMORY_TYPE_HOST, &q);
            } else {
                t->irecv(0, i, &b, 1, UCC_MEMORY_TYPE_HOST, &q);
                wait(t.get(), &q);
                t->isend(0, i, &b, 1, UCC_MEMORY_TYPE_HOST, &s);
            }
            wait(t.get(), &q);
        }
    });
    EXPECT_EQ(res.status, UCC_OK);
    EXPECT_EQ(res.events, 2u * kRounds);
}

// Cluster::idle() (not the library's) still returns once the world reaches
// the rank's own time: a rank that lets time pass sees the world as it is then,
// not when the world next runs dry.
TEST(SimTransport, PauseAheadOfTheWorldResumesAtItsOwnTime) {
    struct Shared {
        bool flag = false;
        double seen_s = -1;
    } sh;
    RunResult res = run(params(2, "ideal"), [&sh](uint32_t r) {
        Cluster *c = Cluster::current();
        if (r == 0) {
            c->advance(0, 10'000'000);  // 10 us
            c->idle(0, kNoDeadline);
            sh.flag = true;
            return;
        }
        for (int i = 0; i < 100 && sh.seen_s < 0; ++i) {  // 1 us steps up to 100 us
            c->advance(1, 1'000'000);
            c->idle(1, kNoDeadline);
            if (sh.flag) {
                sh.seen_s = now_s();
            }
        }
    });
    EXPECT_EQ(res.status, UCC_OK);
    EXPECT_NEAR(sh.seen_s, 11e-6, 1.5e-6);
}

}  // namespace
}  // namespace ucc::sim
