// Found by proptests TraceProps.SingleCollective under ASan (heap-buffer-overflow
// in dst_hash, lib/core/api_coll.cc).
//
// A reduce_scatterv's dst (not in place) holds only this rank's block,
// counts[rank] elements, but the extent used for the event trace's result hash
// (and for staging pack/unpack generic datatypes) summed every rank's block,
// so the library read past the end of the user's dst.
// Fixed (coll::dst_extent_elems takes the rank); kept as a regression test: the
// completion's hash must cover exactly the rank's own block.
#include <gtest/gtest.h>

#include "tests/common/scenario.h"

TEST(Regress, ReduceScattervDstExtentIsTheRanksBlock) {
    ucc::testkit::Scenario s;
    s.type = UCC_COLL_TYPE_REDUCE_SCATTERV;
    s.n = 3;
    s.count = 5;
    s.dt = UCC_DT_INT32;
    s.record_events = true;
    const ucc::testkit::Outcome out = ucc::testkit::run_scenario(s);
    ASSERT_EQ(out.failure, "");
    int completions = 0;
    for (const ucc::TraceEvent &e : out.run.trace) {
        if (e.kind != ucc::TraceKind::kComplete) {
            continue;
        }
        uint64_t h = 0xcbf29ce484222325ull;
        for (uint8_t b : out.dst[e.rank]) {
            h = (h ^ b) * 0x100000001b3ull;
        }
        EXPECT_EQ(e.hash, out.dst[e.rank].empty() ? 0 : h) << "rank " << e.rank;
        ++completions;
    }
    EXPECT_EQ(completions, 3);
}
