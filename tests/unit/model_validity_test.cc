// Unit tests of the model's argument checks (model/validity.h, rules in model/VALIDITY.md): one
// test per rule V1..V11 that fires it (with the rule's corner cases), rule order, and valid
// arguments of every collective type at several team sizes, ranks and roots returning UCC_OK
// while every unused field holds junk.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "model/validity.h"

namespace ucc::model {
namespace {

constexpr uint32_t kSizes[] = {1, 2, 3, 5, 8};
constexpr ucc_coll_type_t kAllTypes[] = {
    UCC_COLL_TYPE_ALLGATHER,      UCC_COLL_TYPE_ALLGATHERV,      UCC_COLL_TYPE_ALLREDUCE,
    UCC_COLL_TYPE_ALLTOALL,       UCC_COLL_TYPE_ALLTOALLV,       UCC_COLL_TYPE_BARRIER,
    UCC_COLL_TYPE_BCAST,          UCC_COLL_TYPE_FANIN,           UCC_COLL_TYPE_FANOUT,
    UCC_COLL_TYPE_GATHER,         UCC_COLL_TYPE_GATHERV,         UCC_COLL_TYPE_REDUCE,
    UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_SCATTER,
    UCC_COLL_TYPE_SCATTERV,
};
constexpr uint64_t kB = 2;  // block size used by the valid arguments

// Buffers and v-arrays the valid arguments point at (32-bit entries: every block kB elements).
struct Storage {
    std::vector<int64_t> src, dst;
    std::vector<uint32_t> counts, displs;

    explicit Storage(uint32_t n) : src(4 * kB * n), dst(4 * kB * n), counts(n, kB), displs(n) {
        for (uint32_t i = 0; i < n; ++i) {
            displs[i] = static_cast<uint32_t>(kB * i);
        }
    }
    ucc_count_t *c() { return reinterpret_cast<ucc_count_t *>(counts.data()); }
    ucc_aint_t *d() { return reinterpret_cast<ucc_aint_t *>(displs.data()); }
};

ucc_coll_buffer_info_t info(void *buffer, uint64_t count, ucc_datatype_t dt = UCC_DT_INT32) {
    return {buffer, count, dt, UCC_MEMORY_TYPE_HOST};
}

ucc_coll_buffer_info_v_t info_v(void *buffer, ucc_count_t *counts, ucc_aint_t *displs,
                                ucc_datatype_t dt = UCC_DT_INT32) {
    return {buffer, counts, displs, dt, UCC_MEMORY_TYPE_HOST};
}

// Valid arguments of `type` for rank `rank` of n (root `root` for rooted types), every field the
// type does not use left as junk (0xa5 bytes: also in flags, timeout, active_set and op).
ucc_coll_args_t valid_args(ucc_coll_type_t type, uint32_t n, uint32_t rank, uint64_t root,
                           bool in_place, Storage &s) {
    ucc_coll_args_t a;
    std::memset(&a, 0xa5, sizeof a);
    a.mask = 0;
    a.coll_type = type;
    a.error_type = UCC_ERR_TYPE_LOCAL;
    if (in_place) {
        a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
        a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
    }
    const bool is_root = rank == root;
    const bool src_used = !in_place;                    // non-rooted in-place types ignore src
    const bool src_used_root = !(in_place && is_root);  // rooted: only at the root
    switch (type) {
        case UCC_COLL_TYPE_ALLGATHER:
            if (src_used)
                a.src.info = info(s.src.data(), kB);
            a.dst.info = info(s.dst.data(), n * kB);
            break;
        case UCC_COLL_TYPE_ALLGATHERV:
            if (src_used)
                a.src.info = info(s.src.data(), kB);
            a.dst.info_v = info_v(s.dst.data(), s.c(), s.d());
            break;
        case UCC_COLL_TYPE_ALLREDUCE:
            if (src_used)
                a.src.info = info(s.src.data(), 3);
            a.dst.info = info(s.dst.data(), 3);
            a.op = UCC_OP_SUM;
            break;
        case UCC_COLL_TYPE_ALLTOALL:
            if (src_used)
                a.src.info = info(s.src.data(), n * kB);
            a.dst.info = info(s.dst.data(), n * kB);
            break;
        case UCC_COLL_TYPE_ALLTOALLV:
            if (src_used)
                a.src.info_v = info_v(s.src.data(), s.c(), s.d());
            a.dst.info_v = info_v(s.dst.data(), s.c(), s.d());
            break;
        case UCC_COLL_TYPE_BARRIER:
            break;
        case UCC_COLL_TYPE_BCAST:
            a.root = root;
            a.src.info = info(s.src.data(), 3);  // IN_PLACE has no effect
            break;
        case UCC_COLL_TYPE_FANIN:
        case UCC_COLL_TYPE_FANOUT:
            a.root = root;
            break;
        case UCC_COLL_TYPE_GATHER:
            a.root = root;
            if (src_used_root)
                a.src.info = info(s.src.data(), kB);
            if (is_root)
                a.dst.info = info(s.dst.data(), n * kB);
            break;
        case UCC_COLL_TYPE_GATHERV:
            a.root = root;
            if (src_used_root)
                a.src.info = info(s.src.data(), kB);
            if (is_root)
                a.dst.info_v = info_v(s.dst.data(), s.c(), s.d());
            break;
        case UCC_COLL_TYPE_REDUCE:
            a.root = root;
            a.op = UCC_OP_MAX;
            if (src_used_root)
                a.src.info = info(s.src.data(), 3);
            if (is_root)
                a.dst.info = info(s.dst.data(), 3);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            a.op = UCC_OP_SUM;
            if (src_used)
                a.src.info = info(s.src.data(), n * kB);
            a.dst.info = info(s.dst.data(), in_place ? n * kB : kB);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            a.op = UCC_OP_SUM;
            if (src_used)
                a.src.info = info(s.src.data(), n * kB);
            a.dst.info_v = info_v(s.dst.data(), s.c(), nullptr);  // no displacements
            break;
        case UCC_COLL_TYPE_SCATTER:
            a.root = root;
            if (is_root)
                a.src.info = info(s.src.data(), n * kB);
            if (src_used_root)
                a.dst.info = info(s.dst.data(), kB);
            break;
        case UCC_COLL_TYPE_SCATTERV:
            a.root = root;
            if (is_root)
                a.src.info_v = info_v(s.src.data(), s.c(), s.d());
            if (src_used_root)
                a.dst.info = info(s.dst.data(), kB);
            break;
        default:
            break;
    }
    return a;
}

// Stores any integer in an enum field, as a C caller may (static_cast to an out-of-range value
// would be undefined in C++).
template <class E>
void set_raw(E &field, int64_t value) {
    const auto v = static_cast<std::underlying_type_t<E>>(value);
    std::memcpy(&field, &v, sizeof v);
}

TeamView team(uint32_t n, uint32_t rank) {
    return TeamView{n, rank, true};
}

// Expects rule `rule` to fire with `status`.
void expect_rule(const ucc_coll_args_t &a, const TeamView &t, ucc_status_t status, int rule) {
    const Verdict v = validate(a, t);
    EXPECT_EQ(v.status, status) << v.why;
    EXPECT_EQ(v.rule, rule) << v.why;
    EXPECT_EQ(v.why.rfind("V" + std::to_string(rule) + ": ", 0), 0u) << v.why;
    std::string why;
    EXPECT_EQ(expected_init_status(a, t, &why), status);
    EXPECT_EQ(why, v.why);
}

void expect_ok(const ucc_coll_args_t &a, const TeamView &t) {
    std::string why = "unset";
    EXPECT_EQ(expected_init_status(a, t, &why), UCC_OK) << why;
    EXPECT_EQ(why, "");
}

// ---- valid arguments

TEST(ModelValidity, EveryCollectiveValidAtEveryRankAndRoot) {
    for (uint32_t n : kSizes) {
        Storage s(n);
        for (ucc_coll_type_t type : kAllTypes) {
            for (uint32_t rank = 0; rank < n; ++rank) {
                for (uint64_t root : {uint64_t{0}, uint64_t{n - 1}, uint64_t{n / 2}}) {
                    for (bool in_place : {false, true}) {
                        SCOPED_TRACE(testing::Message()
                                     << "type=" << type << " n=" << n << " rank=" << rank
                                     << " root=" << root << " in_place=" << in_place);
                        expect_ok(valid_args(type, n, rank, root, in_place, s), team(n, rank));
                    }
                }
            }
        }
    }
}

TEST(ModelValidity, ValidWithOptionalFields) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 1, 0, false, s);
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_TAG | UCC_COLL_ARGS_FIELD_CB;
    a.flags = UCC_COLL_ARGS_FLAG_PERSISTENT | UCC_COLL_ARGS_FLAG_TIMEOUT |
              UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY;
    a.timeout = 0.5;
    a.tag = 7;
    a.error_type = UCC_ERR_TYPE_GLOBAL;
    expect_ok(a, TeamView{4, 1, false});  // unordered team with a tag
    a.src.info.mem_type = UCC_MEMORY_TYPE_UNKNOWN;
    a.dst.info.mem_type = UCC_MEMORY_TYPE_ROCM_MANAGED;
    expect_ok(a, team(4, 1));
}

// ---- V1

TEST(ModelValidity, V1CollType) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_BARRIER, 4, 0, 0, false, s);
    for (uint64_t bad : {uint64_t{0}, uint64_t{3}, uint64_t{1} << 16, uint64_t{UCC_COLL_TYPE_LAST},
                         uint64_t{0xffff}}) {
        set_raw(a.coll_type, static_cast<int64_t>(bad));
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 1);
    }
}

// ---- V2 (withdrawn): error_type is never read

TEST(ModelValidity, V2ErrorTypeIsNeverRead) {
    Storage s(4);
    for (ucc_coll_type_t type : {UCC_COLL_TYPE_BARRIER, UCC_COLL_TYPE_ALLREDUCE}) {
        ucc_coll_args_t a = valid_args(type, 4, 0, 0, false, s);
        for (int64_t junk : {int64_t{UCC_ERR_TYPE_LOCAL}, int64_t{UCC_ERR_TYPE_GLOBAL}, int64_t{2},
                             int64_t{-1}, int64_t{100}, int64_t{INT32_MIN}, int64_t{INT32_MAX}}) {
            set_raw(a.error_type, junk);
            expect_ok(a, team(4, 0));
        }
        // The other rules still decide: V1 with junk in error_type.
        set_raw(a.coll_type, 0);
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 1);
    }
}

// ---- V3

TEST(ModelValidity, V3Timeout) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_BARRIER, 4, 0, 0, false, s);
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
    for (double bad : {0.0, -0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()}) {
        a.timeout = bad;
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 3);
    }
    a.timeout = 1e-9;
    expect_ok(a, team(4, 0));
    // Without FIELD_FLAGS the flag (and the junk timeout) is not read (P30).
    a.mask = 0;
    a.timeout = -5;
    expect_ok(a, team(4, 0));
    // Without the TIMEOUT flag the timeout is not read either.
    a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = 0;
    expect_ok(a, team(4, 0));
}

// ---- V4

TEST(ModelValidity, V4UnorderedTeamNeedsTag) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 2, 0, false, s);
    expect_rule(a, TeamView{4, 2, false}, UCC_ERR_INVALID_PARAM, 4);
    expect_ok(a, TeamView{4, 2, true});
    a.mask |= UCC_COLL_ARGS_FIELD_TAG;
    expect_ok(a, TeamView{4, 2, false});
}

// ---- V5

ucc_coll_args_t active_bcast(uint64_t start, int64_t stride, uint64_t size, uint64_t root,
                             Storage &s) {
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_BCAST, 8, 0, root, false, s);
    a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
    a.active_set.start = start;
    a.active_set.stride = stride;
    a.active_set.size = size;
    return a;
}

TEST(ModelValidity, V5ActiveSet) {
    Storage s(8);
    // Members of (5, -3, 4) on 8 ranks: 5, 2, 7, 4.
    const ucc_coll_args_t good = active_bcast(5, -3, 4, 7, s);
    for (uint32_t r : {2u, 4u, 5u, 7u}) {
        expect_ok(good, team(8, r));
    }
    for (uint32_t r : {0u, 1u, 3u, 6u}) {  // the caller is not a member
        expect_rule(good, team(8, r), UCC_ERR_INVALID_PARAM, 5);
    }
    expect_rule(active_bcast(5, -3, 4, 3, s), team(8, 5), UCC_ERR_INVALID_PARAM, 5);   // root
    expect_rule(active_bcast(5, -3, 4, 9, s), team(8, 5), UCC_ERR_INVALID_PARAM, 5);   // root >= N
    expect_rule(active_bcast(0, 1, 0, 0, s), team(8, 0), UCC_ERR_INVALID_PARAM, 5);    // size 0
    expect_rule(active_bcast(0, 1, 9, 0, s), team(8, 0), UCC_ERR_INVALID_PARAM, 5);    // size > N
    expect_rule(active_bcast(8, 1, 2, 0, s), team(8, 0), UCC_ERR_INVALID_PARAM, 5);    // start
    expect_rule(active_bcast(0, 0, 2, 0, s), team(8, 0), UCC_ERR_INVALID_PARAM, 5);    // 0, 0
    expect_rule(active_bcast(0, 8, 2, 0, s), team(8, 0), UCC_ERR_INVALID_PARAM, 5);    // 0, 8=0
    expect_rule(active_bcast(1, 4, 3, 1, s), team(8, 1), UCC_ERR_INVALID_PARAM, 5);    // 1, 5, 1
    expect_rule(active_bcast(1, -12, 3, 1, s), team(8, 1), UCC_ERR_INVALID_PARAM, 5);  // -12=4
    expect_ok(active_bcast(0, -1, 8, 3, s), team(8, 6));  // the whole team, backwards
    expect_ok(active_bcast(6, 3, 2, 1, s), team(8, 1));   // a pair: 6, 9 = 1
    expect_ok(active_bcast(3, 0, 1, 3, s), team(8, 3));   // a set of one
    expect_ok(active_bcast(0, std::numeric_limits<int64_t>::min(), 1, 0, s), team(8, 0));
}

// Every type takes an active set; V6..V11 then see the set renumbered: N = the set's size, the
// caller's rank and the root are set positions, v-arrays have one entry per member.
TEST(ModelValidity, V5ActiveSetRenumbersEveryType) {
    // (7, -2, 3) on 8 ranks: members 7, 5, 3 at positions 0, 1, 2.
    const uint32_t members[] = {7, 5, 3};
    Storage s(3);  // v-arrays of 3 entries: reading an entry per team rank would overrun them
    for (ucc_coll_type_t type : kAllTypes) {
        const bool rooted = type == UCC_COLL_TYPE_BCAST || type == UCC_COLL_TYPE_REDUCE ||
                            type == UCC_COLL_TYPE_GATHER || type == UCC_COLL_TYPE_GATHERV ||
                            type == UCC_COLL_TYPE_SCATTER || type == UCC_COLL_TYPE_SCATTERV ||
                            type == UCC_COLL_TYPE_FANIN || type == UCC_COLL_TYPE_FANOUT;
        for (uint32_t pos = 0; pos < 3; ++pos) {
            for (uint32_t root_pos = 0; root_pos < 3; ++root_pos) {
                for (bool in_place : {false, true}) {
                    SCOPED_TRACE(testing::Message()
                                 << "type=" << type << " pos=" << pos << " root_pos=" << root_pos
                                 << " in_place=" << in_place);
                    // Valid on a team of 3 at rank `pos`, with the root as a team rank.
                    ucc_coll_args_t a = valid_args(type, 3, pos, root_pos, in_place, s);
                    a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
                    a.active_set.start = 7;
                    a.active_set.stride = -2;
                    a.active_set.size = 3;
                    if (rooted) {
                        a.root = members[root_pos];
                    }
                    expect_ok(a, team(8, members[pos]));
                    if (rooted) {
                        ucc_coll_args_t outside = a;
                        outside.root = 0;  // a team rank that is not a member
                        expect_rule(outside, team(8, members[pos]), UCC_ERR_INVALID_PARAM, 5);
                        ucc_coll_args_t as_position = a;
                        as_position.root = root_pos;  // positions 0..2 are not members either
                        expect_rule(as_position, team(8, members[pos]), UCC_ERR_INVALID_PARAM, 5);
                    }
                }
            }
        }
    }
    // Block counts follow the set's size, not the team's.
    Storage big(8);
    ucc_coll_args_t ag = valid_args(UCC_COLL_TYPE_ALLGATHER, 8, 1, 0, false, big);  // dst 8 blocks
    ag.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
    ag.active_set = {5, -3, 3};
    expect_rule(ag, team(8, 2), UCC_ERR_INVALID_PARAM, 10);
    ag.dst.info.count = 3 * kB;
    expect_ok(ag, team(8, 2));
    // A non-rooted type does not read root (it holds junk here).
    ucc_coll_args_t ar = valid_args(UCC_COLL_TYPE_ALLREDUCE, 8, 0, 0, false, big);
    ar.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
    ar.active_set = {1, 2, 2};
    expect_ok(ar, team(8, 3));
    expect_rule(ar, team(8, 2), UCC_ERR_INVALID_PARAM, 5);  // the caller is not a member
    // "At the root" means at the root member: reduce's dst is checked there only.
    ucc_coll_args_t rd = valid_args(UCC_COLL_TYPE_REDUCE, 2, 1, 1, false, big);
    rd.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
    rd.active_set = {1, 2, 2};  // members 1, 3
    rd.root = 3;
    expect_ok(rd, team(8, 3));
    rd.dst.info.count = 4;  // != src.count at the root
    expect_rule(rd, team(8, 3), UCC_ERR_INVALID_PARAM, 10);
}

// ---- V6

TEST(ModelValidity, V6Root) {
    Storage s(4);
    for (ucc_coll_type_t type :
         {UCC_COLL_TYPE_BCAST, UCC_COLL_TYPE_REDUCE, UCC_COLL_TYPE_GATHER, UCC_COLL_TYPE_GATHERV,
          UCC_COLL_TYPE_SCATTER, UCC_COLL_TYPE_SCATTERV, UCC_COLL_TYPE_FANIN,
          UCC_COLL_TYPE_FANOUT}) {
        for (uint64_t root : {uint64_t{4}, uint64_t{5}, ~uint64_t{0}}) {
            ucc_coll_args_t a = valid_args(type, 4, 0, 0, false, s);
            a.root = root;
            expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 6);
        }
    }
    // Non-rooted types ignore root.
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
    a.root = 1000;
    expect_ok(a, team(4, 0));
}

// ---- V7

TEST(ModelValidity, V7Datatype) {
    Storage s(4);
    const ucc_datatype_t bad_dts[] = {
        UCC_PREDEFINED_DT(18), UCC_PREDEFINED_DT(1000), UCC_DT_INT32 | 2, UCC_DT_INT32 | 4,
        UCC_DATATYPE_GENERIC,  // a generic handle with a NULL pointer
    };
    for (ucc_datatype_t dt : bad_dts) {
        ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLGATHER, 4, 0, 0, false, s);
        a.src.info.datatype = dt;
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
        a = valid_args(UCC_COLL_TYPE_ALLTOALLV, 4, 0, 0, false, s);
        a.dst.info_v.datatype = dt;
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
        // A reduction: V7 fires before V8 looks at the datatype.
        a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
        a.src.info.datatype = dt;
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    }
    // Every predefined id is valid for data movement.
    for (uint64_t id = 0; id < 18; ++id) {
        ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_BCAST, 4, 0, 0, false, s);
        a.src.info.datatype = UCC_PREDEFINED_DT(id);
        expect_ok(a, team(4, 0));
    }
}

TEST(ModelValidity, V7MemType) {
    Storage s(4);
    for (int bad : {6, -1, 100}) {
        ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
        set_raw(a.dst.info.mem_type, bad);
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    }
    for (int good = UCC_MEMORY_TYPE_HOST; good <= UCC_MEMORY_TYPE_UNKNOWN; ++good) {
        ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
        a.src.info.mem_type = static_cast<ucc_memory_type_t>(good);
        expect_ok(a, team(4, 0));
    }
}

TEST(ModelValidity, V7VArrays) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLGATHERV, 4, 0, 0, false, s);
    a.dst.info_v.counts = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    a = valid_args(UCC_COLL_TYPE_ALLTOALLV, 4, 0, 0, false, s);
    a.src.info_v.displacements = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    a = valid_args(UCC_COLL_TYPE_SCATTERV, 4, 1, 1, false, s);  // root
    a.src.info_v.counts = nullptr;
    expect_rule(a, team(4, 1), UCC_ERR_INVALID_PARAM, 7);
    a = valid_args(UCC_COLL_TYPE_GATHERV, 4, 2, 2, false, s);  // root
    a.dst.info_v.displacements = nullptr;
    expect_rule(a, team(4, 2), UCC_ERR_INVALID_PARAM, 7);
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 0, 0, false, s);
    a.dst.info_v.counts = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    // reduce_scatterv's dst has no displacements: NULL is fine (valid_args already passes NULL).
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 0, 0, true, s);
    expect_ok(a, team(4, 0));
}

TEST(ModelValidity, V7IgnoresUnusedDescriptions) {
    Storage s(4);
    // Junk in every unused description (valid_args leaves them 0xa5): non-root gather(v)/reduce
    // dst, non-root scatter(v) src, in-place src, in-place root scatter(v) dst.
    for (ucc_coll_type_t type : {UCC_COLL_TYPE_GATHER, UCC_COLL_TYPE_GATHERV, UCC_COLL_TYPE_REDUCE,
                                 UCC_COLL_TYPE_SCATTER, UCC_COLL_TYPE_SCATTERV}) {
        expect_ok(valid_args(type, 4, 0, 3, false, s), team(4, 0));
        expect_ok(valid_args(type, 4, 3, 3, true, s), team(4, 3));
    }
    // An in-place non-root of a rooted type still uses its src.
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_GATHER, 4, 0, 3, true, s);
    a.src.info.datatype = UCC_PREDEFINED_DT(40);
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
}

// ---- V8

struct alignas(8) GenericDt {
    ucc_generic_dt_ops_t ops;
    void *context;
};

ucc_status_t noop_reduce(const ucc_reduce_cb_params_t *) {
    return UCC_OK;
}

TEST(ModelValidity, V8DatatypeMismatch) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
    a.dst.info.datatype = UCC_DT_FLOAT32;  // same size, different type
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 8);
    a = valid_args(UCC_COLL_TYPE_REDUCE, 4, 1, 1, false, s);  // root
    a.src.info.datatype = UCC_DT_UINT32;
    expect_rule(a, team(4, 1), UCC_ERR_INVALID_PARAM, 8);
    // A non-root does not use dst; in place, src is not used.
    a = valid_args(UCC_COLL_TYPE_REDUCE, 4, 0, 1, false, s);
    a.src.info.datatype = UCC_DT_UINT32;
    expect_ok(a, team(4, 0));
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTER, 4, 0, 0, true, s);
    a.dst.info.datatype = UCC_DT_FLOAT64;
    expect_ok(a, team(4, 0));
    // The mismatch is found before the op is looked at.
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 0, 0, false, s);
    a.dst.info_v.datatype = UCC_DT_FLOAT32;
    a.op = UCC_OP_MAXLOC;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 8);
}

TEST(ModelValidity, V8OpOutOfRange) {
    Storage s(4);
    for (int bad : {int{UCC_OP_LAST}, 14, 1000, -1}) {
        ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
        set_raw(a.op, bad);
        expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 8);
    }
}

TEST(ModelValidity, V8Matrix) {
    Storage s(4);
    // Expected support, by predefined id (0..17) and op (0..12), from VALIDITY.md.
    auto supported = [](uint64_t id, int op) {
        if (op == UCC_OP_MAXLOC || op == UCC_OP_MINLOC) {
            return false;
        }
        if (id <= 9) {
            return true;  // integers: every other op
        }
        const bool arithmetic = op == UCC_OP_SUM || op == UCC_OP_PROD || op == UCC_OP_AVG;
        if (id <= 14) {
            return arithmetic || op == UCC_OP_MAX || op == UCC_OP_MIN;  // real floats
        }
        return arithmetic;  // complex
    };
    for (uint64_t id = 0; id < 18; ++id) {
        for (int op = 0; op < UCC_OP_LAST; ++op) {
            for (ucc_coll_type_t type :
                 {UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_REDUCE, UCC_COLL_TYPE_REDUCE_SCATTER,
                  UCC_COLL_TYPE_REDUCE_SCATTERV}) {
                SCOPED_TRACE(testing::Message() << "id=" << id << " op=" << op << " type=" << type);
                ucc_coll_args_t a = valid_args(type, 4, 0, 0, false, s);
                a.src.info.datatype = UCC_PREDEFINED_DT(id);
                if (type == UCC_COLL_TYPE_REDUCE_SCATTERV) {
                    a.dst.info_v.datatype = UCC_PREDEFINED_DT(id);
                } else {
                    a.dst.info.datatype = UCC_PREDEFINED_DT(id);
                }
                a.op = static_cast<ucc_reduction_op_t>(op);
                if (supported(id, op)) {
                    expect_ok(a, team(4, 0));
                } else {
                    expect_rule(a, team(4, 0), UCC_ERR_NOT_SUPPORTED, 8);
                }
            }
        }
    }
}

TEST(ModelValidity, V8GenericDatatype) {
    Storage s(4);
    GenericDt g{};
    g.ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    g.ops.contig_size = 4;
    g.ops.reduce.cb = noop_reduce;
    const auto dt = reinterpret_cast<ucc_datatype_t>(&g) | UCC_DATATYPE_GENERIC;
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
    a.src.info.datatype = a.dst.info.datatype = dt;
    set_raw(a.op, 1000);  // ignored for generic datatypes
    expect_ok(a, team(4, 0));
    g.ops.reduce.cb = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_NOT_SUPPORTED, 8);
    g.ops.reduce.cb = noop_reduce;
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
    expect_rule(a, team(4, 0), UCC_ERR_NOT_SUPPORTED, 8);
    g.ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
    g.ops.mask = 0;  // flags not valid
    expect_rule(a, team(4, 0), UCC_ERR_NOT_SUPPORTED, 8);
    // Data movement does not need FLAG_REDUCE.
    a = valid_args(UCC_COLL_TYPE_BCAST, 4, 0, 0, false, s);
    a.src.info.datatype = dt;
    expect_ok(a, team(4, 0));
}

// ---- V9

TEST(ModelValidity, V9ElementSizes) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLGATHER, 4, 0, 0, false, s);
    a.dst.info.datatype = UCC_DT_INT64;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 9);
    a.dst.info.datatype = UCC_DT_FLOAT32;  // same size: fine
    expect_ok(a, team(4, 0));
    a = valid_args(UCC_COLL_TYPE_ALLTOALLV, 4, 0, 0, false, s);
    a.src.info_v.datatype = UCC_DT_FLOAT16;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 9);
    a = valid_args(UCC_COLL_TYPE_SCATTERV, 4, 2, 2, false, s);  // root
    a.dst.info.datatype = UCC_DT_INT8;
    expect_rule(a, team(4, 2), UCC_ERR_INVALID_PARAM, 9);
    // A non-root gather uses only src; an in-place allgather only dst.
    a = valid_args(UCC_COLL_TYPE_GATHER, 4, 0, 2, false, s);
    a.src.info.datatype = UCC_DT_INT8;
    a.src.info.count = 5;
    expect_ok(a, team(4, 0));
    a = valid_args(UCC_COLL_TYPE_ALLGATHER, 4, 0, 0, true, s);
    a.dst.info.datatype = UCC_DT_INT64;
    expect_ok(a, team(4, 0));
    // Generic: contig_size is the element size.
    GenericDt g{};
    g.ops.contig_size = 8;
    a = valid_args(UCC_COLL_TYPE_ALLTOALL, 4, 0, 0, false, s);
    a.src.info.datatype = reinterpret_cast<ucc_datatype_t>(&g) | UCC_DATATYPE_GENERIC;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 9);
    a.dst.info.datatype = UCC_DT_FLOAT64;
    expect_ok(a, team(4, 0));
}

// ---- V10

TEST(ModelValidity, V10Counts) {
    const uint32_t n = 4;
    Storage s(n);
    auto fires = [&](ucc_coll_args_t a, uint32_t rank) {
        expect_rule(a, team(n, rank), UCC_ERR_INVALID_PARAM, 10);
    };
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, n, 0, 0, false, s);
    a.dst.info.count = 4;
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_REDUCE, n, 1, 1, false, s);
    a.src.info.count = 2;
    fires(a, 1);
    a = valid_args(UCC_COLL_TYPE_ALLGATHER, n, 0, 0, false, s);
    a.dst.info.count = n * kB + 1;
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_ALLGATHER, n, 0, 0, true, s);
    a.dst.info.count = n * kB + 1;
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_ALLTOALL, n, 0, 0, true, s);
    a.dst.info.count = 6;  // in place: only divisibility
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_ALLTOALL, n, 0, 0, false, s);
    a.src.info.count = 4;  // both divisible, but different
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_GATHER, n, 2, 2, false, s);
    a.src.info.count = 3;
    fires(a, 2);
    a = valid_args(UCC_COLL_TYPE_GATHER, n, 2, 2, true, s);
    a.dst.info.count = 5;
    fires(a, 2);
    a = valid_args(UCC_COLL_TYPE_SCATTER, n, 3, 3, false, s);
    a.dst.info.count = 3;
    fires(a, 3);
    a = valid_args(UCC_COLL_TYPE_SCATTER, n, 3, 3, true, s);
    a.src.info.count = 7;
    fires(a, 3);
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTER, n, 0, 0, false, s);
    a.dst.info.count = 3;
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTER, n, 0, 0, true, s);
    a.dst.info.count = 9;
    fires(a, 0);
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, n, 0, 0, false, s);
    a.src.info.count = n * kB - 1;
    fires(a, 0);

    // Local view only: a non-root's counts are not compared, in place needs no src.
    a = valid_args(UCC_COLL_TYPE_REDUCE, n, 0, 1, false, s);
    a.src.info.count = 1;
    expect_ok(a, team(n, 0));
    a = valid_args(UCC_COLL_TYPE_SCATTER, n, 0, 1, false, s);
    a.dst.info.count = 1;
    expect_ok(a, team(n, 0));
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, n, 0, 0, true, s);
    expect_ok(a, team(n, 0));
    // N * count is compared without wrap-around: 4 * 2^62 is 2^64, not 0.
    a = valid_args(UCC_COLL_TYPE_ALLGATHER, n, 0, 0, false, s);
    a.src.info.count = uint64_t{1} << 62;
    a.dst.info.count = 0;
    fires(a, 0);
}

// ---- V11

TEST(ModelValidity, V11NullBuffers) {
    Storage s(4);
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
    a.src.info.buffer = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    a.src.info.count = a.dst.info.count = 0;  // zero bytes: NULL is fine (P12)
    a.dst.info.buffer = nullptr;
    expect_ok(a, team(4, 0));
    a = valid_args(UCC_COLL_TYPE_ALLGATHERV, 4, 0, 0, false, s);
    a.dst.info_v.buffer = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    // All counts zero: NULL is fine.
    std::vector<uint32_t> zeros(4, 0);
    a.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(zeros.data());
    a.src.info.count = 0;
    a.src.info.buffer = nullptr;
    expect_ok(a, team(4, 0));
    // reduce_scatterv not in place touches only counts[r] of dst.
    std::vector<uint32_t> counts = {3, 0, 5, 1};
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 1, 0, false, s);
    a.src.info.count = 9;
    a.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(counts.data());
    a.dst.info_v.buffer = nullptr;
    expect_ok(a, team(4, 1));
    expect_rule(a, team(4, 2), UCC_ERR_INVALID_PARAM, 11);
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 1, 0, true, s);
    a.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(counts.data());
    a.dst.info_v.buffer = nullptr;  // in place it holds all 9 elements
    expect_rule(a, team(4, 1), UCC_ERR_INVALID_PARAM, 11);
}

TEST(ModelValidity, V11Overflow) {
    Storage s(4);
    // 2^62 int32 elements = 2^64 bytes.
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_ALLREDUCE, 4, 0, 0, false, s);
    a.src.info.count = a.dst.info.count = uint64_t{1} << 62;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    a.src.info.count = a.dst.info.count = uint64_t{1} << 60;  // 2^62 bytes: fine
    // (Two ranges of 2^62 bytes at different addresses overlap (V12): the same
    // bytes, which an allreduce runs in place.)
    a.dst.info.buffer = a.src.info.buffer;
    expect_ok(a, team(4, 0));
    a.src.info.count = a.dst.info.count = (uint64_t{1} << 61);  // exactly 2^63 bytes
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    // A block buffer: N * count * esize = 4 * 2^60 * 4 = 2^64 bytes (non-root gather).
    a = valid_args(UCC_COLL_TYPE_GATHER, 4, 0, 1, false, s);
    a.src.info.count = uint64_t{1} << 60;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    // v-buffers: displacement + count, in elements, times esize.
    std::vector<uint64_t> counts = {1, 0, 1, 1}, displs = {0, ~uint64_t{0}, uint64_t{1} << 61, 5};
    a = valid_args(UCC_COLL_TYPE_ALLGATHERV, 4, 0, 0, false, s);
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT | UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT;
    a.src.info.count = 1;
    a.dst.info_v.counts = counts.data();
    a.dst.info_v.displacements = displs.data();
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    displs[2] = uint64_t{1} << 59;  // (2^59 + 1) * 4 bytes: fine; entry 1 has count 0
    expect_ok(a, team(4, 0));
    // reduce_scatterv: the sum of the counts.
    std::vector<uint64_t> big = {uint64_t{1} << 60, uint64_t{1} << 60, 0, 0};
    a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 2, 0, true, s);
    a.flags |= UCC_COLL_ARGS_FLAG_COUNT_64BIT;
    a.dst.info_v.counts = big.data();
    expect_rule(a, team(4, 2), UCC_ERR_INVALID_PARAM, 11);
}

TEST(ModelValidity, VArrayWidthFollowsFlags) {
    // 32-bit entries {2, 2, 2, 2, ...} read as 64-bit would be {2 + 2^33, ...}: V10 would fire.
    Storage s(4);
    std::vector<uint32_t> narrow(8, kB);  // long enough to be read either way
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_REDUCE_SCATTERV, 4, 0, 0, false, s);
    a.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(narrow.data());
    expect_ok(a, team(4, 0));
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_COUNT_64BIT;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 10);
    std::vector<uint64_t> wide(4, kB);
    a.dst.info_v.counts = wide.data();
    expect_ok(a, team(4, 0));
    // Without FIELD_FLAGS the flag bits are not read: entries are 32-bit.
    a.dst.info_v.counts = reinterpret_cast<ucc_count_t *>(narrow.data());
    a.mask = 0;
    expect_ok(a, team(4, 0));
    a.dst.info_v.counts = wide.data();
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 10);
}

TEST(ModelValidity, RulesApplyInOrder) {
    Storage s(4);
    // Broken for V3, V6, V7, V10 and V11 at once: V3 decides.
    ucc_coll_args_t a = valid_args(UCC_COLL_TYPE_GATHER, 4, 0, 0, false, s);
    a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
    a.flags = UCC_COLL_ARGS_FLAG_TIMEOUT;
    a.timeout = -1;
    a.root = 9;
    a.src.info.datatype = UCC_PREDEFINED_DT(99);
    a.src.info.buffer = nullptr;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 3);
    a.timeout = 1;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 6);
    a.root = 0;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 7);
    a.src.info.datatype = UCC_DT_INT32;
    a.src.info.count = 3;  // dst is 4 * 2
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 10);
    a.src.info.count = kB;
    expect_rule(a, team(4, 0), UCC_ERR_INVALID_PARAM, 11);
    a.src.info.buffer = s.src.data();
    expect_ok(a, team(4, 0));
}

}  // namespace
}  // namespace ucc::model
