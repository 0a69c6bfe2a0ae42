// Found by proptests Validity.InitStatusMatchesModel (P45, rule V11).
//
// VALIDITY.md V11: for a used info_v entry with counts[i] != 0,
// (displacements[i] + counts[i]) * esize must fit in 2^63 - 1 bytes, computed
// exactly. lib/core/validate.cc (check_info_v) guards the sum with
// `d > kMaxBytes - 1 - c`, which underflows when c > 2^63 - 1, and then
// computes c + d in 64 bits: counts[1] = 2^64 - 1 with displacements[1] = 1
// wraps to 0 bytes and alltoallv init returns UCC_OK instead of
// UCC_ERR_INVALID_PARAM. The library is wrong.
// Fixed; kept as a regression test.
#include <gtest/gtest.h>

#include <vector>

#include "tests/regress/init_check.h"

TEST(Regress, VCountDisplacementWrap) {
    std::vector<uint8_t> buf(16);
    std::vector<uint8_t> out(16);  // dst apart from src (V12)
    uint64_t counts[2] = {1, UINT64_MAX};
    uint64_t displs[2] = {0, 1};
    uint64_t ok_counts[2] = {1, 1};
    uint64_t ok_displs[2] = {0, 1};
    std::vector<ucc_coll_args_t> args(2);
    for (ucc_coll_args_t &a : args) {
        a = ucc_coll_args_t{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
        a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
        a.src.info_v = {buf.data(), ok_counts, reinterpret_cast<ucc_aint_t *>(ok_displs),
                        UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
        a.dst.info_v = {out.data(), ok_counts, reinterpret_cast<ucc_aint_t *>(ok_displs),
                        UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
    }
    args[0].src.info_v.counts = counts;  // block 1 ends at byte 2^64
    args[0].src.info_v.displacements = reinterpret_cast<ucc_aint_t *>(displs);
    ucc::regress::expect_init_statuses(args, {UCC_ERR_INVALID_PARAM, UCC_OK});
}
