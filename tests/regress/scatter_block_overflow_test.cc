// Found by proptests Validity.InitStatusMatchesModel (P45, rule V11).
//
// A scatter rank's dst holds one rank's block, so VALIDITY.md V11 requires
// N * dst.count * esize (the team's total) to fit in 2^63 - 1 bytes, not only
// dst.count * esize. lib/core/validate.cc does the N-fold check for the
// allgather and gather src only, so a non-root scatter rank with
// dst.count = 2^62 uint8 elements in a team of 2 (2^63 bytes in all) gets
// UCC_OK instead of UCC_ERR_INVALID_PARAM. The library is wrong (the model
// follows VALIDITY.md).
// Fixed; kept as a regression test.
#include <gtest/gtest.h>

#include <vector>

#include "tests/regress/init_check.h"

TEST(Regress, ScatterBlockOverflow) {
    std::vector<uint8_t> src(2), dst(1);
    std::vector<ucc_coll_args_t> args(2);
    for (ucc_coll_args_t &a : args) {
        a = ucc_coll_args_t{};
        a.coll_type = UCC_COLL_TYPE_SCATTER;
        a.root = 0;
        a.src.info = {src.data(), 2, UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
        a.dst.info = {dst.data(), 1, UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
    }
    args[1].dst.info.count = uint64_t{1} << 62;  // 2 * 2^62 bytes over the team
    ucc::regress::expect_init_statuses(args, {UCC_OK, UCC_ERR_INVALID_PARAM});
}
