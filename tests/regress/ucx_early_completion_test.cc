// Regression: over UCX, a receive posted for an eager message that arrived in
// several fragments before it was posted never completed. UCX completes such a
// request inside ucp_tag_recv_nbx (the queued fragments are consumed there)
// and runs its callback before returning it; the transport's callback found
// the request not yet filled in, dropped the completion and freed the request,
// and the transport then filled in and waited on a freed request forever. Seen
// as a bcast whose root raced ahead (UCX_RNDV_THRESH raised so that 16 KiB go
// eager in two fragments over shared memory): the receiver's second bcast hung.
// Now a callback that runs while its request is being posted leaves the outcome
// to the posting call (UcxTransport::settle), which completes it at once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "tests/common/inproc_world.h"
#include "ucc/api/ucc.h"

namespace {

#ifdef UCC_WITH_UCX

TEST(Regress, UcxReceiveOfAMessageWhoseFragmentsAllArrivedFirstCompletes) {
    // Eager up to 1 MiB: a 64 KiB message is several shared-memory fragments.
    const char *old = std::getenv("UCX_RNDV_THRESH");
    const std::string saved = old != nullptr ? old : "";
    setenv("UCX_RNDV_THRESH", "1M", 1);
    ucc::testkit::InprocWorld world(2);
    const std::string opened = world.open();
    if (old != nullptr) {
        setenv("UCX_RNDV_THRESH", saved.c_str(), 1);
    } else {
        unsetenv("UCX_RNDV_THRESH");
    }
    ASSERT_EQ(opened, "");
    auto &ranks = world.ranks();
    constexpr uint64_t kCount = 16384;  // float32: 64 KiB
    std::vector<std::vector<float>> buf(2, std::vector<float>(kCount, 0));
    std::vector<ucc_coll_req_h> reqs(2, nullptr);
    for (uint32_t r = 0; r < 2; ++r) {
        ucc_coll_args_t a{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT;
        a.coll_type = UCC_COLL_TYPE_BCAST;
        a.root = 0;
        a.src.info = {buf[r].data(), kCount, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST};
        ASSERT_EQ(ucc_collective_init(&a, &reqs[r], ranks[r].team), UCC_OK);
    }
    for (int round = 0; round < 5; ++round) {
        for (uint64_t i = 0; i < kCount; ++i) {
            buf[0][i] = static_cast<float>(round * 100000 + i);
        }
        // The root alone: an eager send completes once its fragments are out.
        std::vector<ucc_coll_req_h> root{reqs[0], nullptr};
        ASSERT_TRUE(world.run(root)) << "round " << round;
        // The receiver's worker takes every fragment in, unexpected...
        for (int i = 0; i < 1000; ++i) {
            ucc_context_progress(ranks[1].ctx);
        }
        // ...before its receive is posted.
        std::vector<ucc_coll_req_h> leaf{nullptr, reqs[1]};
        ASSERT_TRUE(world.run(leaf, 1'000'000)) << "round " << round << ": the receive hangs";
        for (uint64_t i = 0; i < kCount; i += 997) {
            ASSERT_EQ(buf[1][i], static_cast<float>(round * 100000 + i)) << "element " << i;
        }
    }
    for (ucc_coll_req_h q : reqs) {
        EXPECT_EQ(ucc_collective_finalize(q), UCC_OK);
    }
}

#endif  // UCC_WITH_UCX

}  // namespace
