// Found by proptests Validity.InitStatusMatchesModel (P45, rule V11).
//
// VALIDITY.md V11: entries of an info_v with a zero count are not checked (their
// displacement is unused). lib/core/validate.cc (check_info_v) range-checks the
// displacement of every entry, so an alltoallv whose src has counts {0, 1} and
// displacements {2^64 - 1, 0} gets UCC_ERR_INVALID_PARAM instead of UCC_OK.
// The library is wrong (a zero-count block's displacement may hold anything,
// as for zero-count pairs in P9).
// Fixed; kept as a regression test.
#include <gtest/gtest.h>

#include <vector>

#include "tests/regress/init_check.h"

TEST(Regress, VZeroCountDisplacement) {
    std::vector<uint8_t> buf(16);
    std::vector<uint8_t> out(16);  // dst apart from src (V12)
    uint64_t counts[2] = {0, 1};
    uint64_t displs[2] = {UINT64_MAX, 0};
    uint64_t ok_counts[2] = {0, 1};
    uint64_t ok_displs[2] = {0, 0};
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
    args[0].src.info_v.counts = counts;
    args[0].src.info_v.displacements = reinterpret_cast<ucc_aint_t *>(displs);
    ucc::regress::expect_init_statuses(args, {UCC_OK, UCC_OK});
}
