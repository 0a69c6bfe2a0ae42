// Found by proptests Validity.InitStatusMatchesModel under ASan
// (RC_PARAMS="seed=14305600825720544482"): a heap-buffer-overflow read in model/validity.cc
// (v_entry, from v11_sizes).
//
// Shrunk case: a team of 3, allgatherv on an active set. The generator built rank 0's args for
// the base set {start 0, stride -1, size 1} (rank 0 alone), with one-entry v-arrays as a program
// on that set passes, and a mutation then replaced the set by {start 2, stride -2, size 2}:
// members 2 and 0 in that order, a valid set, so V10 and V11 read one entry per member
// (VALIDITY.md V5), two, from one-entry arrays. The model read what the rule says; the generator
// was wrong to change the set without giving the arrays an entry per new member. Fixed in
// proptests/validity_props.cc: v-arrays get an entry per team rank, the mutation draws sets in
// team ranks, and the property checks before calling the model that every v-array covers the
// members the args describe.
//
// Kept as a regression test of how much the model and the library read: exactly one entry per
// member of a valid set, and nothing of any array when the set fails V5 (a non-member). The
// arrays are heap vectors of exactly that many entries (ASan sees a read past them); the
// variant with a poisoned tail (an extra entry that would fail V11) catches an over-read in
// every build.
#include <gtest/gtest.h>

#include <vector>

#include "tests/regress/init_check.h"

namespace {

// One rank's allgatherv args on the set {2, -2, 2} of a team of 3, with 64-bit v-arrays of
// `entries` entries (block i: one element at displacement i); entries past the set's two are
// a poison that V11 rejects if read.
struct RankArgs {
    std::vector<uint8_t> src = std::vector<uint8_t>(8);
    std::vector<uint8_t> dst = std::vector<uint8_t>(8);
    std::vector<uint64_t> counts;
    std::vector<uint64_t> displs;

    ucc_coll_args_t make(size_t entries) {
        counts.assign(entries, 1);
        displs.resize(entries);
        for (size_t i = 0; i < entries; ++i) {
            displs[i] = i;
            if (i >= 2) {
                counts[i] = UINT64_MAX;  // would overflow V11's byte limit
            }
        }
        ucc_coll_args_t a{};
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_ACTIVE_SET;
        a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
        a.coll_type = UCC_COLL_TYPE_ALLGATHERV;
        a.active_set.start = 2;
        a.active_set.stride = -2;  // 1 modulo 3: members 2, 0
        a.active_set.size = 2;
        a.src.info = {src.data(), 1, UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
        a.dst.info_v = {dst.data(), counts.data(), reinterpret_cast<ucc_aint_t *>(displs.data()),
                        UCC_DT_UINT8, UCC_MEMORY_TYPE_HOST};
        return a;
    }
};

void expect_set_statuses(size_t member_entries, size_t non_member_entries) {
    RankArgs store[3];
    std::vector<ucc_coll_args_t> args = {store[0].make(member_entries),
                                         store[1].make(non_member_entries),
                                         store[2].make(member_entries)};
    // Ranks 0 and 2 are the set's positions 1 and 0; rank 1 is no member (V5).
    ucc::regress::expect_init_statuses(args, {UCC_OK, UCC_ERR_INVALID_PARAM, UCC_OK});
}

}  // namespace

TEST(Regress, ActiveSetVArraysHoldOneEntryPerMember) {
    expect_set_statuses(2, 1);
}

TEST(Regress, ActiveSetVArraysAreReadNoFurtherThanTheSet) {
    expect_set_statuses(3, 3);
}
