// Found by proptests Validity.InitStatusMatchesModel (P45, rule V11).
//
// VALIDITY.md V11: for reduce_scatterv's dst (counts, no displacements),
// (sum of counts) * esize must fit in 2^63 - 1 bytes. lib/core/validate.cc
// checks each count * esize separately: an in-place reduce_scatterv of uint128
// (16 bytes) with dst counts {1, 2^59 - 1} (2^63 bytes in all) gets UCC_OK
// instead of UCC_ERR_INVALID_PARAM. (Not in place, V10's src.count == sum and
// src's own V11 check catch the same sizes.) The library is wrong.
// Fixed; kept as a regression test.
#include <gtest/gtest.h>

#include <vector>

#include "tests/regress/init_check.h"

TEST(Regress, ReduceScattervTotalOverflow) {
    std::vector<uint8_t> buf(64);
    uint64_t counts[2] = {1, (uint64_t{1} << 59) - 1};
    uint64_t ok_counts[2] = {1, 1};
    std::vector<ucc_coll_args_t> args(2);
    for (ucc_coll_args_t &a : args) {
        a = ucc_coll_args_t{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE | UCC_COLL_ARGS_FLAG_COUNT_64BIT;
        a.coll_type = UCC_COLL_TYPE_REDUCE_SCATTERV;
        a.op = UCC_OP_SUM;
        a.dst.info_v = {buf.data(), ok_counts, nullptr, UCC_DT_UINT128, UCC_MEMORY_TYPE_HOST};
    }
    args[0].dst.info_v.counts = counts;
    ucc::regress::expect_init_statuses(args, {UCC_ERR_INVALID_PARAM, UCC_OK});
}
