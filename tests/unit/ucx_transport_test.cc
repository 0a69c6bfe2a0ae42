// The UCX transport in one process: three transports (three UCP workers)
// talking to each other the way three processes would.
#ifdef UCC_WITH_UCX
#include "transports/ucx/ucx_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using ucc::Peer;
using ucc::Transport;
using ucc::Xfer;

class UcxTransportTest : public ::testing::Test {
  protected:
    static constexpr uint32_t kN = 3;

    void SetUp() override {
        for (uint32_t i = 0; i < kN; ++i) {
            ucc::TransportParams p;
            p.has_oob = true;
            p.oob_ep = i;
            p.n_oob_eps = kN;
            std::string why;
            ASSERT_EQ(ucc::ucx::create(p, &t_[i], &why), UCC_OK) << why;
        }
        for (uint32_t i = 0; i < kN; ++i) {
            std::vector<uint8_t> a(t_[i]->address_length());
            t_[i]->address(a.data());
            for (uint32_t j = 0; j < kN; ++j) {
                Peer p;
                ASSERT_EQ(t_[j]->resolve(a.data(), &p), UCC_OK);
                EXPECT_EQ(p, i) << "peer ids are OOB eps, the same in every process";
            }
        }
    }

    // Progresses every transport until `done` holds (at most 10 s).
    template <class F>
    bool drive(F done) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done()) {
            for (auto &t : t_) {
                t->progress();
            }
            if (std::chrono::steady_clock::now() > end) {
                return false;
            }
        }
        return true;
    }

    std::unique_ptr<Transport> t_[kN];
};

TEST_F(UcxTransportTest, TaggedMessagesMatchBySenderAndTagInOrder) {
    const ucc::Tag tag = ucc::tag::make(3, 42, 1);
    // Ranks 0 and 1 both send to 2 with the same tag, two messages each.
    std::vector<int> payload[2][2];
    Xfer sx[2][2];
    for (int s = 0; s < 2; ++s) {
        for (int m = 0; m < 2; ++m) {
            payload[s][m].assign(100, s * 10 + m);
            ASSERT_EQ(
                t_[s]->isend(2, tag, payload[s][m].data(), 400, UCC_MEMORY_TYPE_HOST, &sx[s][m]),
                UCC_OK);
        }
    }
    std::vector<int> got[2][2];
    Xfer rx[2][2];
    for (int s = 1; s >= 0; --s) {  // posted in another order than sent
        for (int m = 0; m < 2; ++m) {
            got[s][m].assign(100, -1);
            ASSERT_EQ(t_[2]->irecv(s, tag, got[s][m].data(), 400, UCC_MEMORY_TYPE_HOST, &rx[s][m]),
                      UCC_OK);
        }
    }
    ASSERT_TRUE(drive([&] {
        for (auto &row : rx) {
            for (auto &x : row) {
                if (!x.done()) {
                    return false;
                }
            }
        }
        for (auto &row : sx) {
            for (auto &x : row) {
                if (!x.done()) {
                    return false;
                }
            }
        }
        return true;
    }));
    for (int s = 0; s < 2; ++s) {
        for (int m = 0; m < 2; ++m) {
            EXPECT_EQ(rx[s][m].status, UCC_OK);
            EXPECT_EQ(rx[s][m].bytes, 400u);
            EXPECT_EQ(got[s][m], payload[s][m]) << "sender " << s << " message " << m;
        }
    }
}

TEST_F(UcxTransportTest, LargeMessageAndTruncation) {
    const ucc::Tag tag = ucc::tag::make(1, 1, 0);
    std::vector<uint8_t> big(8u << 20);
    std::iota(big.begin(), big.end(), 0);
    std::vector<uint8_t> into(big.size(), 0);
    Xfer s, r;
    ASSERT_EQ(t_[0]->isend(1, tag, big.data(), big.size(), UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
    ASSERT_EQ(t_[1]->irecv(0, tag, into.data(), into.size(), UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
    ASSERT_TRUE(drive([&] { return s.done() && r.done(); }));
    EXPECT_EQ(r.status, UCC_OK);
    EXPECT_EQ(into, big);
    // A message longer than the receive buffer fails the receive.
    std::vector<uint8_t> small(16);
    ASSERT_EQ(t_[0]->isend(1, tag, big.data(), 64, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
    ASSERT_EQ(t_[1]->irecv(0, tag, small.data(), small.size(), UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
    ASSERT_TRUE(drive([&] { return s.done() && r.done(); }));
    EXPECT_EQ(r.status, UCC_ERR_NO_MESSAGE);
}

TEST_F(UcxTransportTest, CancelledReceiveIsNeverWritten) {
    const ucc::Tag tag = ucc::tag::make(1, 2, 0);
    std::vector<int> buf(16, -1);
    Xfer r;
    ASSERT_EQ(t_[1]->irecv(0, tag, buf.data(), 64, UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
    t_[1]->cancel(&r);
    std::vector<int> data(16, 7);
    Xfer s;
    ASSERT_EQ(t_[0]->isend(1, tag, data.data(), 64, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
    ASSERT_TRUE(drive([&] { return s.done(); }));
    for (int i = 0; i < 100; ++i) {
        t_[1]->progress();
    }
    EXPECT_EQ(buf, std::vector<int>(16, -1));
    // The message is still there for the next receive.
    Xfer r2;
    ASSERT_EQ(t_[1]->irecv(0, tag, buf.data(), 64, UCC_MEMORY_TYPE_HOST, &r2), UCC_OK);
    ASSERT_TRUE(drive([&] { return r2.done(); }));
    EXPECT_EQ(buf, data);
}

// Xfer::stage (a collective with a timeout): a send cancelled while its
// rendezvous is unread leaves the data as it was sent, whatever the caller
// writes into its buffer afterwards; the late receiver reads the copy.
TEST_F(UcxTransportTest, StagedSendCancelledUnreadDeliversTheDataAsSent) {
    const ucc::Tag tag = ucc::tag::make(1, 3, 0);
    std::vector<uint8_t> big(4u << 20);
    std::iota(big.begin(), big.end(), 0);
    const std::vector<uint8_t> sent = big;
    Xfer s;
    s.stage = true;
    ASSERT_EQ(t_[0]->isend(1, tag, big.data(), big.size(), UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
    for (int i = 0; i < 100; ++i) {
        t_[0]->progress();  // the receiver does not progress: the send stays unread
    }
    ASSERT_FALSE(s.done()) << "a 4 MiB send completed before its receive was posted";
    t_[0]->cancel(&s);
    std::fill(big.begin(), big.end(), 0xee);  // the caller reuses its buffer
    std::vector<uint8_t> into(big.size(), 0);
    Xfer r;
    ASSERT_EQ(t_[1]->irecv(0, tag, into.data(), into.size(), UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
    ASSERT_TRUE(drive([&] { return r.done(); }));
    EXPECT_EQ(r.status, UCC_OK);
    EXPECT_TRUE(into == sent) << "the receiver read the caller's buffer after the cancel";
}

// A staged receive lands in the caller's buffer when it completes, with its
// length; a longer message fails it as an unstaged one does.
TEST_F(UcxTransportTest, StagedReceiveCompletesIntoTheBuffer) {
    const ucc::Tag tag = ucc::tag::make(1, 4, 0);
    for (size_t bytes : {size_t{100}, size_t{1} << 20}) {
        std::vector<uint8_t> data(bytes);
        std::iota(data.begin(), data.end(), 3);
        std::vector<uint8_t> into(bytes + 10, 0);
        Xfer r;
        r.stage = true;
        r.expected = into.size();
        ASSERT_EQ(t_[1]->irecv(0, tag, into.data(), into.size(), UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
        Xfer s;
        ASSERT_EQ(t_[0]->isend(1, tag, data.data(), bytes, UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
        ASSERT_TRUE(drive([&] { return s.done() && r.done(); }));
        EXPECT_EQ(r.status, UCC_OK);
        EXPECT_EQ(r.bytes, bytes);
        EXPECT_TRUE(std::equal(data.begin(), data.end(), into.begin())) << bytes << " bytes";
        EXPECT_EQ(into[bytes], 0) << "written past the message";
    }
    std::vector<uint8_t> data(64, 1);
    std::vector<uint8_t> small(16, 0);
    Xfer s, r;
    r.stage = true;
    r.expected = small.size();
    ASSERT_EQ(t_[0]->isend(1, tag, data.data(), data.size(), UCC_MEMORY_TYPE_HOST, &s), UCC_OK);
    ASSERT_EQ(t_[1]->irecv(0, tag, small.data(), small.size(), UCC_MEMORY_TYPE_HOST, &r), UCC_OK);
    ASSERT_TRUE(drive([&] { return s.done() && r.done(); }));
    EXPECT_EQ(r.status, UCC_ERR_NO_MESSAGE);
    EXPECT_GT(r.bytes, small.size());
    EXPECT_EQ(small, std::vector<uint8_t>(16, 0));
}

TEST_F(UcxTransportTest, RmaPutGetAtomicFlush) {
    std::vector<uint64_t> window(64, 0);
    ucc::MemRegion region;
    ASSERT_EQ(t_[1]->mem_register(window.data(), window.size() * 8, &region), UCC_OK);
    const std::vector<uint8_t> key = t_[1]->rkey_pack(region);
    ASSERT_FALSE(key.empty());
    const auto base = reinterpret_cast<uint64_t>(window.data());

    std::vector<uint64_t> src(8);
    std::iota(src.begin(), src.end(), 100);
    Xfer put, flush;
    ASSERT_EQ(t_[0]->put(1, src.data(), 64, base + 8 * 8, key, &put), UCC_OK);
    ASSERT_TRUE(drive([&] { return put.done(); }));
    ASSERT_EQ(t_[0]->flush(1, &flush), UCC_OK);
    ASSERT_TRUE(drive([&] { return flush.done(); }));
    EXPECT_EQ(flush.status, UCC_OK);
    EXPECT_EQ(std::vector<uint64_t>(window.begin() + 8, window.begin() + 16), src);

    for (int i = 0; i < 2; ++i) {
        Xfer add;
        ASSERT_EQ(t_[i == 0 ? 0 : 2]->atomic_add(1, base, 5, key, &add), UCC_OK);
        ASSERT_TRUE(drive([&] { return add.done(); }));
        Xfer f;
        ASSERT_EQ(t_[i == 0 ? 0 : 2]->flush(1, &f), UCC_OK);
        ASSERT_TRUE(drive([&] { return f.done(); }));
    }
    EXPECT_EQ(window[0], 10u);

    std::vector<uint64_t> back(8, 0);
    Xfer get;
    ASSERT_EQ(t_[2]->get(1, back.data(), 64, base + 8 * 8, key, &get), UCC_OK);
    ASSERT_TRUE(drive([&] { return get.done(); }));
    EXPECT_EQ(back, src);
    t_[1]->mem_deregister(&region);
}

TEST(UcxTransportLimits, TooManyProcessesFailAtCreation) {
    ucc::TransportParams p;
    p.has_oob = true;
    p.n_oob_eps = static_cast<uint32_t>(ucc::tag::kMaxSenders + 1);
    std::unique_ptr<Transport> t;
    std::string why;
    EXPECT_EQ(ucc::ucx::create(p, &t, &why), UCC_ERR_NO_RESOURCE);
    EXPECT_NE(why.find("senders"), std::string::npos) << why;
}

}  // namespace
#endif  // UCC_WITH_UCX
