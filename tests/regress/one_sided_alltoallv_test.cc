// Found by running the reference UCC's own MPI test suite (test/mpi,
// ucc_test_mpi, one-sided alltoallv) over this library.
//
// With UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS the reference reads an
// alltoallv's dst.displacements[i] as the offset in member i's buffer where
// this rank puts its block (a one-sided alltoallv over mapped memory). The
// library did not read the flag and took the displacements as offsets in its
// own dst, so every one-sided alltoallv completed UCC_OK with the blocks in
// the wrong places. The one-sided alltoallv now exists (alltoallv_onesided,
// tests/integration/onesided_test.cc); without the global work buffer it
// counts completion in, init refuses it with UCC_ERR_NOT_SUPPORTED on every
// rank (VALIDITY.md V13), as the reference does. Alltoall, whose layout means
// the same either way, still runs two-sided with the flag, and every byte
// equals the model's. Kept as a regression test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/scenario.h"
#include "tests/regress/init_check.h"
#include "tests/regress/run_once.h"

TEST(Regress, OneSidedAlltoallvIsRefusedNotMisplaced) {
    const uint32_t n = 3;
    std::vector<std::vector<uint32_t>> src(n, std::vector<uint32_t>(6));
    std::vector<std::vector<uint32_t>> dst(n, std::vector<uint32_t>(6));
    // Each rank sends 2 elements to every peer; with the one-sided meaning the
    // dst displacements name where in the peer's buffer they go.
    ucc_count_t counts[3] = {2, 2, 2};
    ucc_aint_t displs[3] = {0, 2, 4};
    std::vector<ucc_coll_args_t> args(n);
    for (uint32_t r = 0; r < n; ++r) {
        ucc_coll_args_t &a = args[r];
        a = ucc_coll_args_t{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS | UCC_COLL_ARGS_FLAG_COUNT_64BIT |
                  UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
        a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
        a.src.info_v = {src[r].data(), counts, displs, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
        a.dst.info_v = {dst[r].data(), counts, displs, UCC_DT_UINT32, UCC_MEMORY_TYPE_HOST};
    }
    ucc::regress::expect_init_statuses(args, std::vector<ucc_status_t>(n, UCC_ERR_NOT_SUPPORTED));
    // Without the flag the same arguments are a valid two-sided alltoallv.
    for (ucc_coll_args_t &a : args) {
        a.flags &= ~uint64_t{UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS};
    }
    ucc::regress::expect_init_statuses(args, std::vector<ucc_status_t>(n, UCC_OK));
}

TEST(Regress, AlltoallWithMappedBuffersKeepsItsLayout) {
    ucc::testkit::Scenario s;
    s.n = 4;
    s.type = UCC_COLL_TYPE_ALLTOALL;
    s.count = 3;
    ucc::testkit::PreparedColl prep(s);
    ASSERT_TRUE(prep.failure().empty()) << prep.failure();
    for (uint32_t r = 0; r < s.n; ++r) {
        prep.args(r).mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        prep.args(r).flags |= UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS;
    }
    EXPECT_EQ(ucc::regress::run_prepared_once(s, prep), "") << ucc::testkit::describe(s);
}
