// P45 and rules V1-V13 of model/VALIDITY.md: ucc_collective_init on the
// simulator returns exactly model::expected_init_status on every rank, for
// valid arguments (UCC_OK) and for arguments broken in one or two ways at
// random, never crashing. Fields the mask does not select, buffer descriptions
// the rank does not use and error_type (never read: V2 is withdrawn, as the
// reference has no mask bit for it) hold junk (P30). See coll_props.cc for the
// knobs (UCC_PROPTEST_SCALE, RC_PARAMS).
//
// Enumerations: a C caller may store any int in an enum field, but loading a
// value outside a C++ enum's range is undefined behaviour in the C++ library
// and model, and UBSan aborts on it. Sanitizer builds (ASan and UBSan are
// enabled together here, detected through __SANITIZE_ADDRESS__) therefore only
// draw junk enum values inside each enum's range for the fields that are read;
// V1's "a bit >= 16" (ucc_coll_type_t's range is 0..0xffff) is then not
// exercised. error_type, which nobody loads, holds any 32-bit value in every
// build. (lib/core/validate.cc once loaded these fields as enums: see
// tests/regress/enum_out_of_range_test.cc.)
#include <algorithm>
#include <bit>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/dt/dt.h"
#include "model/datatypes.h"
#include "model/layout.h"
#include "model/validity.h"
#include "proptests/prop_support.h"
#include "tests/common/scenario.h"

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

constexpr uint64_t kTwo63 = uint64_t{1} << 63;

using ucc::model::is_reduction;
using ucc::model::is_rooted;

std::string short_coll_name(uint64_t t) {
    std::string s = ucc::model::coll_name(t);
    const std::string prefix = "UCC_COLL_TYPE_";
    if (s.compare(0, prefix.size(), prefix) == 0) {
        s = s.substr(prefix.size());
    }
    for (char &ch : s) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    return s;
}

// Stores `value` into an enum field without an enum-typed load or conversion.
template <class E>
void set_raw(E &field, int64_t value) {
    const auto v = static_cast<std::underlying_type_t<E>>(value);
    std::memcpy(&field, &v, sizeof v);
}

template <class E>
int64_t get_raw(const E &field) {
    std::underlying_type_t<E> v;
    std::memcpy(&v, &field, sizeof v);
    return static_cast<int64_t>(v);
}

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// ---- generic datatypes (contiguous): one that reduces, one without a
// reduction, one that claims to reduce but has no callback.

ucc_status_t dummy_reduce(const ucc_reduce_cb_params_t *) {
    return UCC_OK;
}

struct Generics {
    ucc_datatype_t reducing = 0;     // contig_size 4, FLAG_REDUCE, callback
    ucc_datatype_t plain = 0;        // contig_size 8, no reduction
    ucc_datatype_t no_callback = 0;  // contig_size 2, FLAG_REDUCE without callback
    Generics() {
        ucc_generic_dt_ops_t ops{};
        ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
        ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
        ops.contig_size = 4;
        ops.reduce.cb = dummy_reduce;
        create(ops, &reducing);
        ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG;
        ops.contig_size = 8;
        ops.reduce.cb = nullptr;
        create(ops, &plain);
        ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
        ops.contig_size = 2;
        create(ops, &no_callback);
    }
    ~Generics() {
        for (ucc_datatype_t dt : {reducing, plain, no_callback}) {
            if (dt != 0) {
                ucc_dt_destroy(dt);
            }
        }
    }
    static void create(const ucc_generic_dt_ops_t &ops, ucc_datatype_t *out) {
        if (ucc_dt_create_generic(&ops, nullptr, out) != UCC_OK) {
            *out = 0;
        }
    }
};

const Generics &generics() {
    static const Generics g;
    return g;
}

std::vector<ucc_datatype_t> valid_datatypes() {
    std::vector<ucc_datatype_t> v;
    for (uint64_t id = 0; id < UCC_DT_PREDEFINED_LAST; ++id) {
        v.push_back(UCC_PREDEFINED_DT(id));
    }
    for (ucc_datatype_t g : {generics().reducing, generics().plain, generics().no_callback}) {
        if (g != 0) {
            v.push_back(g);
        }
    }
    return v;
}

size_t esize(ucc_datatype_t dt) {
    if (dt == generics().reducing) {
        return 4;
    }
    if (dt == generics().plain) {
        return 8;
    }
    if (dt == generics().no_callback) {
        return 2;
    }
    return ucc::dt::size_of(dt);
}

// Datatype values that are never a generic handle with a non-NULL pointer (so
// nobody dereferences them): predefined ids, valid or not, other low bits, and
// the NULL generic handle.
ucc_datatype_t safe_junk_datatype(uint64_t h) {
    switch (h % 4) {
        case 0:
            return UCC_PREDEFINED_DT((h >> 8) % 32);
        case 1:
            return 1;  // generic with a NULL pointer part
        case 2:
            return ((h >> 8) << 3) | (2 + (h >> 4) % 6);  // low bits 010..111
        default:
            return UCC_PREDEFINED_DT(18 + (h >> 8) % 1000);
    }
}

int64_t junk_mem_type(uint64_t h) {
    if (kSanitized) {
        return static_cast<int64_t>(h % 8);  // the enum's range
    }
    const int64_t v[] = {0, 1, 5, 6, 7, -1, 100, INT32_MAX};
    return v[h % 8];
}

// ---- per-rank storage and the valid base arguments

struct Base {
    ucc_coll_type_t type = UCC_COLL_TYPE_ALLREDUCE;
    ucc_datatype_t dt = UCC_DT_INT32;
    ucc_datatype_t dst_dt = UCC_DT_INT32;  // same size as dt (data movement types)
    ucc_reduction_op_t op = UCC_OP_SUM;
    uint64_t count = 4;  // one block
    uint64_t root = 0;
    bool inplace = false;
    bool flags_field = true;  // mask has UCC_COLL_ARGS_FIELD_FLAGS
    bool c64 = false;
    bool d64 = false;
    bool tag_field = false;
    uint64_t junk_seed = 0;
    // A valid active set (members (as_start + i*as_stride) mod n, distinct; a
    // rooted type's root is a member): members get args valid on a team of
    // as_size ranks at their set position, non-members the team's args.
    bool active_set = false;
    uint64_t as_start = 0;
    int64_t as_stride = 1;
    uint64_t as_size = 0;
};

// Set position of team rank r in the base's active set, or -1.
int64_t set_position(const Base &b, uint32_t n, uint32_t r) {
    const auto sn = static_cast<int64_t>(n);
    const auto step = static_cast<uint64_t>(((b.as_stride % sn) + sn) % sn);
    for (uint64_t i = 0; i < b.as_size; ++i) {
        if ((b.as_start + i * step) % n == r) {
            return static_cast<int64_t>(i);
        }
    }
    return -1;
}

struct RankStore {
    std::vector<uint8_t> src;
    std::vector<uint8_t> dst;
    std::vector<uint64_t> arrays[4];  // src counts, src displs, dst counts, dst displs
};

// Fills a v-array of n entries of the given width: entry i = f(i).
template <class F>
void fill_array(std::vector<uint64_t> &a, uint32_t n, bool wide, F f) {
    a.assign(n, 0);
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t v = f(i);
        if (wide) {
            a[i] = v;
        } else {
            const uint32_t v32 = static_cast<uint32_t>(v);
            std::memcpy(reinterpret_cast<uint8_t *>(a.data()) + 4 * i, &v32, 4);
        }
    }
}

void set_info(ucc_coll_buffer_info_t &info, void *buf, uint64_t count, ucc_datatype_t dt) {
    info.buffer = buf;
    info.count = count;
    info.datatype = dt;
    info.mem_type = UCC_MEMORY_TYPE_HOST;
}

void junk_info(ucc_coll_buffer_info_t &info, uint64_t h) {
    info.buffer = reinterpret_cast<void *>(static_cast<uintptr_t>(mix(h) | 1));
    info.count = mix(h + 1) >> (mix(h + 2) % 64);
    info.datatype = safe_junk_datatype(mix(h + 3));
    set_raw(info.mem_type, junk_mem_type(mix(h + 4)));
}

// Fills a v-description with `entries` entries per array (the team's size, which is at least the
// n entries of the collective the args are built for, see build_args).
void set_info_v(ucc_coll_buffer_info_v_t &v, void *buf, RankStore &st, int which, uint32_t entries,
                const Base &b, ucc_datatype_t dt, bool displacements) {
    std::vector<uint64_t> &counts = st.arrays[which * 2];
    std::vector<uint64_t> &displs = st.arrays[which * 2 + 1];
    fill_array(counts, entries, b.c64, [&](uint32_t) { return b.count; });
    fill_array(displs, entries, b.d64, [&](uint32_t i) { return i * b.count; });
    v.buffer = buf;
    v.counts = reinterpret_cast<ucc_count_t *>(counts.data());
    v.displacements = displacements ? reinterpret_cast<ucc_aint_t *>(displs.data()) : nullptr;
    v.datatype = dt;
    v.mem_type = UCC_MEMORY_TYPE_HOST;
}

// Valid args of rank r of a collective on n ranks for the base; every field the mask does not
// select and every info description this rank does not use holds junk. v-arrays get team_n >= n
// entries (the first n are the collective's): the args may be built for an active set of n members
// of a team of team_n, and a mutation may give them another set, of up to team_n members (a larger
// one fails V5 before any array is read), whose every member must still find its entry.
ucc_coll_args_t build_args(const Base &b, uint32_t n, uint32_t r, uint32_t team_n, RankStore &st) {
    ucc_coll_args_t a;
    uint64_t h = mix(b.junk_seed ^ mix(r));
    {
        uint8_t *p = reinterpret_cast<uint8_t *>(&a);
        for (size_t i = 0; i < sizeof(a); i += 8) {
            const uint64_t v = mix(h + i);
            std::memcpy(p + i, &v, std::min<size_t>(8, sizeof(a) - i));
        }
    }
    // Enum fields and the unused descriptions get junk that no side can crash on
    // (op is read only by reductions, which overwrite it below).
    set_raw(a.op, static_cast<int64_t>(mix(h + 1) % 16));
    junk_info(a.src.info, h + 10);
    junk_info(a.dst.info, h + 20);
    a.timeout = std::bit_cast<double>(mix(h + 3));  // unread without FLAG_TIMEOUT
    a.mask = (b.flags_field ? UCC_COLL_ARGS_FIELD_FLAGS : 0) |
             (b.tag_field ? UCC_COLL_ARGS_FIELD_TAG : 0);
    a.coll_type = b.type;
    // error_type keeps its junk: it is never read (VALIDITY.md V2, withdrawn).
    if (b.flags_field) {
        a.flags = (b.inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0) |
                  (b.c64 ? UCC_COLL_ARGS_FLAG_COUNT_64BIT : 0) |
                  (b.d64 ? UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT : 0) |
                  (mix(h + 4) % 4 == 0 ? UCC_COLL_ARGS_FLAG_PERSISTENT : 0);
    }
    if (is_reduction(b.type)) {
        a.op = b.op;
    }
    if (is_rooted(b.type)) {
        a.root = b.root;
    }
    const bool is_root = is_rooted(b.type) && b.root == r;
    const bool inplace = b.flags_field && b.inplace;
    const uint64_t c = b.count;
    const size_t es = std::max<size_t>(esize(b.dt), 1);
    st.src.assign(c * team_n * es + 16, 0);
    st.dst.assign(c * team_n * es + 16, 0);
    void *sb = st.src.data();
    void *db = st.dst.data();
    const ucc_datatype_t dt = b.dt;
    const ucc_datatype_t ddt = is_reduction(b.type) ? b.dt : b.dst_dt;
    // The descriptions the rank uses get valid values (model/layout.h), the others junk (P30) --
    // except v-descriptions, which are always valid: their arrays are dereferenced whenever they
    // are used, and a mutation (root, IN_PLACE) may make an unused one used.
    const ucc::model::Layout l = ucc::model::layout_of(b.type, inplace, is_root);
    const ucc::model::Layout v_sides = ucc::model::layout_of(b.type, false, true);
    auto elements = [&](ucc::model::Holds h) {
        return h == ucc::model::Holds::kAllBlocks || h == ucc::model::Holds::kPeerBlocks ? c * n
                                                                                         : c;
    };
    auto describe = [&](auto &buf, const ucc::model::Buffer &used, const ucc::model::Buffer &v_side,
                        void *p, ucc_datatype_t dtype, int which, uint64_t junk) {
        if (v_side.v()) {
            set_info_v(buf.info_v, p, st, which, team_n, b, dtype,
                       v_side.desc == ucc::model::Desc::kInfoV);
        } else if (used.used()) {
            set_info(buf.info, p, elements(used.holds), dtype);
        } else {
            junk_info(buf.info, junk);
        }
    };
    describe(a.src, l.src, v_sides.src, sb, dt, 0, h + 30);
    describe(a.dst, l.dst, v_sides.dst, db, ddt, 1, h + 40);
    return a;
}

// ---- mutations: each breaks (or, with some parameters, keeps) one rule

enum class Mut {
    kCollType,        // V1
    kErrorType,       // V2 (withdrawn): never changes the verdict
    kTimeout,         // V3
    kDropTag,         // V4
    kActiveSet,       // V5
    kRoot,            // V6
    kDatatype,        // V7
    kMemType,         // V7
    kNullArray,       // V7
    kOp,              // V8
    kUnsupportedOp,   // V8
    kDtMismatch,      // V8, V9
    kCountMismatch,   // V10
    kNullBuffer,      // V11
    kHugeCount,       // V11 (and V10 through wrap-around)
    kHugeVEntry,      // V11
    kToggleInPlace,   // which buffers are used
    kDropFlagsField,  // flags become unread junk
    kFlagBits,        // 64-bit array flags, hints
    kOverlap,         // V12: dst points into src's bytes
};

const char *mut_name(Mut m) {
    static const char *names[] = {
        "coll_type",      "error_type",      "timeout",          "drop_tag",    "active_set",
        "root",           "datatype",        "mem_type",         "null_array",  "op",
        "unsupported_op", "dt_mismatch",     "count_mismatch",   "null_buffer", "huge_count",
        "huge_v_entry",   "toggle_in_place", "drop_flags_field", "flag_bits",   "overlap"};
    return names[static_cast<int>(m)];
}

struct Mutation {
    Mut kind = Mut::kRoot;
    bool all_ranks = true;
    uint64_t rank_mask = 0;  // ranks r with bit (r % 64) set, when !all_ranks
    uint64_t which = 0;      // src/dst, array, entry ... (interpreted per kind)
    uint64_t value = 0;      // the new value (interpreted per kind)
    double real = 0;         // timeout
};

Mutation draw_mutation(uint32_t n) {
    Mutation m;
    // kErrorType in every build: error_type is never loaded, so any value is safe.
    const std::vector<Mut> kinds = {Mut::kCollType,      Mut::kErrorType,
                                    Mut::kTimeout,       Mut::kDropTag,
                                    Mut::kActiveSet,     Mut::kRoot,
                                    Mut::kDatatype,      Mut::kMemType,
                                    Mut::kNullArray,     Mut::kOp,
                                    Mut::kUnsupportedOp, Mut::kDtMismatch,
                                    Mut::kCountMismatch, Mut::kNullBuffer,
                                    Mut::kHugeCount,     Mut::kHugeVEntry,
                                    Mut::kToggleInPlace, Mut::kDropFlagsField,
                                    Mut::kFlagBits,      Mut::kOverlap};
    m.kind = *rc::gen::elementOf(kinds);
    m.all_ranks = *rc::gen::arbitrary<bool>();
    if (!m.all_ranks) {
        m.rank_mask = *rc::gen::inRange<uint64_t>(0, UINT64_MAX);
    }
    m.which = *rc::gen::inRange<uint64_t>(0, 1u << 20);
    switch (m.kind) {
        case Mut::kCollType:
            if (kSanitized) {  // ucc_coll_type_t's range is 0..0xffff
                m.value =
                    *rc::gen::element<uint64_t>(0, 3, 0x30, UCC_COLL_TYPE_LAST, 0xffff, 0xc000);
            } else {
                m.value =
                    *rc::gen::element<uint64_t>(0, 3, 0x30, 1u << 16, UCC_COLL_TYPE_LAST, 0xffff,
                                                0x1ffff, 1u << 20, 0xffffffffu, 0x80000000u);
            }
            break;
        case Mut::kErrorType:
            m.value = static_cast<uint64_t>(*rc::gen::element<int64_t>(
                UCC_ERR_TYPE_LOCAL, UCC_ERR_TYPE_GLOBAL, 2, 3, 100, -1, INT32_MIN, INT32_MAX));
            break;
        case Mut::kTimeout:
            m.real = *rc::gen::element(0.0, -0.0, -1.0, std::nan(""),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(),
                                       std::numeric_limits<double>::denorm_min(), 1e-9, 10.0);
            break;
        case Mut::kActiveSet:
            m.value = *rc::gen::inRange<uint64_t>(0, UINT64_MAX);
            break;
        case Mut::kRoot:
            m.value = *rc::gen::element<uint64_t>(n, n + 1, n + 1000, UINT64_MAX, uint64_t{1} << 32,
                                                  (uint64_t{1} << 32) + 1,
                                                  *rc::gen::inRange<uint64_t>(0, n));
            break;
        case Mut::kMemType:
            m.value = static_cast<uint64_t>(
                kSanitized ? *rc::gen::element<int64_t>(6, 7, 1, 5)
                           : *rc::gen::element<int64_t>(6, 7, 1, 5, -1, 100, INT32_MAX));
            break;
        case Mut::kOp:
            m.value = static_cast<uint64_t>(
                kSanitized ? *rc::gen::element<int64_t>(UCC_OP_LAST, 14, 15)
                           : *rc::gen::element<int64_t>(UCC_OP_LAST, 14, 15, 1000, -1));
            break;
        default:
            m.value = *rc::gen::inRange<uint64_t>(0, UINT64_MAX);
            break;
    }
    return m;
}

bool applies(const Mutation &m, uint32_t r) {
    return m.all_ranks || ((m.rank_mask >> (r % 64)) & 1) != 0;
}

// Whether the type describes src (or dst) by an info_v on some rank (model/layout.h).
bool uses_info_v(ucc_coll_type_t t, bool src) {
    const ucc::model::Layout l = ucc::model::layout_of(t, false, true);
    return (src ? l.src : l.dst).v();
}

// The calling rank's place in the team (active sets are given in team ranks), as opposed to its
// place in the collective the args were built for.
struct Seat {
    uint32_t n = 1;     // team size
    uint32_t r = 0;     // team rank
    uint64_t root = 0;  // the base's root, a team rank
};

// Mutates rank r's args, built for the base b on a collective of n ranks (the team or the base's
// active set); seat places the rank in the team.
void apply(const Mutation &m, const Base &b, uint32_t n, uint32_t r, const Seat &seat,
           ucc_coll_args_t &a, RankStore &st) {
    const bool src = m.which % 2 == 0;
    ucc_coll_buffer_info_t &info = src ? a.src.info : a.dst.info;
    ucc_coll_buffer_info_v_t &info_v = src ? a.src.info_v : a.dst.info_v;
    const bool v = uses_info_v(b.type, src);
    const uint64_t h = mix(m.value ^ r);
    switch (m.kind) {
        case Mut::kCollType:
            set_raw(a.coll_type, static_cast<int64_t>(m.value));
            break;
        case Mut::kErrorType:
            set_raw(a.error_type, static_cast<int64_t>(m.value));
            break;
        case Mut::kTimeout:
            a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            if (!b.flags_field) {
                a.flags = 0;
            }
            a.flags |= UCC_COLL_ARGS_FLAG_TIMEOUT;
            a.timeout = m.real;
            break;
        case Mut::kDropTag:
            a.mask &= ~static_cast<uint64_t>(UCC_COLL_ARGS_FIELD_TAG);
            break;
        case Mut::kActiveSet: {
            // In team ranks, whatever the args were built for.
            const uint32_t tn = seat.n;
            a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
            const uint64_t x = m.value;
            a.active_set.start = (x % (tn + 2));
            a.active_set.stride =
                static_cast<int64_t>((x >> 16) % (2 * tn + 3)) - static_cast<int64_t>(tn + 1);
            a.active_set.size = (x >> 32) % (tn + 2);
            if ((x >> 60) % 2 == 0) {
                // A full set with stride 1 (or a set holding the root and this rank).
                a.active_set.start = std::min<uint64_t>(seat.root, tn - 1);
                a.active_set.stride = static_cast<int64_t>((seat.r + tn - a.active_set.start) % tn);
                a.active_set.size = a.active_set.stride == 0 ? 1 : 2;
                if ((x >> 61) % 2 == 0) {
                    a.active_set.start = 0;
                    a.active_set.stride = 1;
                    a.active_set.size = tn;
                }
            } else if ((x >> 56) % 4 == 1) {
                // Extremes: strides that overflow when negated or multiplied, huge starts and
                // sizes.
                const int64_t sn = static_cast<int64_t>(tn);
                const int64_t strides[] = {INT64_MIN, INT64_MAX, -sn, sn * 1000 + 1, -1, 1 - sn};
                const uint64_t starts[] = {UINT64_MAX, tn - 1u, 0, tn};
                const uint64_t sizes[] = {UINT64_MAX, tn, 1, tn + 1u, (tn + 1u) / 2};
                a.active_set.stride = strides[(x >> 8) % 6];
                a.active_set.start = starts[(x >> 12) % 4];
                a.active_set.size = sizes[(x >> 20) % 5];
            }
            break;
        }
        case Mut::kRoot:
            a.root = m.value;
            break;
        case Mut::kDatatype: {
            ucc_datatype_t dt = safe_junk_datatype(h);
            if (dt < (UCC_DT_PREDEFINED_LAST << 3) && (dt & 7) == 0) {
                dt = UCC_PREDEFINED_DT(18 + h % 7);  // keep it invalid
            }
            (v ? info_v.datatype : info.datatype) = dt;
            break;
        }
        case Mut::kMemType:
            set_raw(v ? info_v.mem_type : info.mem_type, static_cast<int64_t>(m.value));
            break;
        case Mut::kNullArray:
            if (v) {
                ((m.which >> 1) % 2 == 0 ? reinterpret_cast<void *&>(info_v.counts)
                                         : reinterpret_cast<void *&>(info_v.displacements)) =
                    nullptr;
            }
            break;
        case Mut::kOp:
            set_raw(a.op, static_cast<int64_t>(m.value));
            break;
        case Mut::kUnsupportedOp: {
            const std::vector<ucc_datatype_t> dts = valid_datatypes();
            const ucc_datatype_t dt = dts[h % dts.size()];
            std::vector<ucc_reduction_op_t> bad;
            for (int op = 0; op < UCC_OP_LAST; ++op) {
                if (!ucc::dt::reduction_supported(dt, static_cast<ucc_reduction_op_t>(op))) {
                    bad.push_back(static_cast<ucc_reduction_op_t>(op));
                }
            }
            if (!bad.empty()) {
                a.op = bad[(h >> 32) % bad.size()];
            }
            (uses_info_v(b.type, true) ? a.src.info_v.datatype : a.src.info.datatype) = dt;
            (uses_info_v(b.type, false) ? a.dst.info_v.datatype : a.dst.info.datatype) = dt;
            break;
        }
        case Mut::kDtMismatch: {
            const std::vector<ucc_datatype_t> dts = valid_datatypes();
            (v ? info_v.datatype : info.datatype) = dts[h % dts.size()];
            break;
        }
        case Mut::kCountMismatch:
            if (!v) {
                const uint64_t c = info.count;
                switch ((m.which >> 1) % 4) {
                    case 0:
                        info.count = c + 1 + h % 3;
                        break;
                    case 1:
                        info.count = c > 0 ? c - 1 : 1;
                        break;
                    case 2:
                        info.count = c * n;
                        break;
                    default:
                        info.count = 0;
                        break;
                }
            }
            break;
        case Mut::kNullBuffer:
            (v ? info_v.buffer : info.buffer) = nullptr;
            break;
        case Mut::kOverlap: {
            // dst starts at src, or a few elements into it (init reads no byte of either).
            void *at = st.src.data() + (h % 4 == 0 ? 0 : h % (st.src.size() + 1));
            (uses_info_v(b.type, false) ? a.dst.info_v.buffer : a.dst.info.buffer) = at;
            break;
        }
        case Mut::kHugeCount: {
            // Boundaries of the 2^63 - 1 byte limit for this element size and team size.
            const uint64_t es = std::max<uint64_t>(esize(b.dt), 1);
            const uint64_t vals[] = {kTwo63 / es - 1,
                                     kTwo63 / es,
                                     kTwo63 / es + 1,
                                     (kTwo63 - 1) / es,
                                     (kTwo63 - 1) / es + 1,
                                     kTwo63 / (es * n),
                                     kTwo63 / (es * n) + 1,
                                     (kTwo63 - 1) / (es * n) + 1,
                                     UINT64_MAX,
                                     UINT64_MAX / n,
                                     uint64_t{1} << 32,
                                     (uint64_t{1} << 32) + 1,
                                     uint64_t{1} << 62};
            const uint64_t c = vals[m.value % (sizeof(vals) / sizeof(vals[0]))];
            const int target = static_cast<int>((m.which >> 1) % 3);  // src, dst, both
            if (!uses_info_v(b.type, true) && target != 1) {
                a.src.info.count = c;
            }
            if (!uses_info_v(b.type, false) && target != 0) {
                const bool times_n =
                    b.type == UCC_COLL_TYPE_ALLGATHER || b.type == UCC_COLL_TYPE_GATHER;
                a.dst.info.count = target == 2 && times_n ? c * n : c;
            }
            break;
        }
        case Mut::kHugeVEntry:
            if (v) {
                const bool counts = (m.which >> 1) % 2 == 0;
                void *arr = counts ? static_cast<void *>(info_v.counts)
                                   : static_cast<void *>(info_v.displacements);
                const bool wide = counts ? b.c64 : b.d64;
                if (arr != nullptr) {
                    const uint64_t es = std::max<uint64_t>(esize(b.dt), 1);
                    const uint64_t vals[] = {UINT32_MAX, kTwo63 / es,       kTwo63 / es - 1,
                                             UINT64_MAX, uint64_t{1} << 62, 0};
                    const uint64_t val = vals[m.value % 6];
                    const uint32_t i = static_cast<uint32_t>((m.which >> 2) % n);
                    if (wide) {
                        static_cast<uint64_t *>(arr)[i] = val;
                    } else {
                        static_cast<uint32_t *>(arr)[i] = static_cast<uint32_t>(val);
                    }
                }
            }
            break;
        case Mut::kToggleInPlace:
            if (!(a.mask & UCC_COLL_ARGS_FIELD_FLAGS)) {
                a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = 0;
            }
            a.flags ^= UCC_COLL_ARGS_FLAG_IN_PLACE;
            break;
        case Mut::kDropFlagsField:
            a.mask &= ~static_cast<uint64_t>(UCC_COLL_ARGS_FIELD_FLAGS);
            break;
        case Mut::kFlagBits: {
            if (!(a.mask & UCC_COLL_ARGS_FIELD_FLAGS)) {
                a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
                a.flags = b.inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0;
            }
            const uint64_t bits[] = {
                UCC_COLL_ARGS_FLAG_COUNT_64BIT,       UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT,
                UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER, UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER,
                UCC_COLL_ARGS_FLAG_PERSISTENT,        UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY,
                UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS};  // V13 on alltoallv
            a.flags ^= bits[m.value % 7];
            break;
        }
    }
    (void)st;
}

// How many entries of each v-array rules V10-V11 read for rank r: one per member of the
// collective, i.e. the team's size, or the active set's size when it passes V5 (when V5 fires,
// no later rule reads an array).
uint64_t entries_read(const ucc_coll_args_t &a, uint32_t n, uint32_t r) {
    if ((a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) == 0) {
        return n;
    }
    const uint64_t start = a.active_set.start, size = a.active_set.size;
    if (size == 0 || size > n || start >= n) {
        return 0;
    }
    const auto sn = static_cast<int64_t>(n);
    const auto step = static_cast<uint64_t>(((a.active_set.stride % sn) + sn) % sn);
    std::vector<bool> member(n, false);
    for (uint64_t i = 0; i < size; ++i) {
        const uint64_t m = (start + i * step) % n;
        if (member[m]) {
            return 0;
        }
        member[m] = true;
    }
    const uint64_t type = static_cast<uint64_t>(get_raw(a.coll_type));
    const bool rooted = std::has_single_bit(type) && is_rooted(static_cast<ucc_coll_type_t>(type));
    if ((rooted && (a.root >= n || !member[a.root])) || !member[r]) {
        return 0;
    }
    return size;
}

// ---- description of args for failure messages

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof(b), "0x%" PRIx64, v);
    return b;
}

std::string describe_dt(ucc_datatype_t dt) {
    if (dt == generics().reducing) {
        return "generic(reducing,4)";
    }
    if (dt == generics().plain) {
        return "generic(plain,8)";
    }
    if (dt == generics().no_callback) {
        return "generic(no_cb,2)";
    }
    return ucc::dt::is_predefined(dt) ? ucc::dt::name(dt) : hex(dt);
}

std::string describe_array(const void *arr, bool wide, uint32_t n) {
    if (arr == nullptr) {
        return "NULL";
    }
    std::string s = "[";
    for (uint32_t i = 0; i < n && i < 8; ++i) {
        s += (i ? "," : "") + std::to_string(wide ? static_cast<const uint64_t *>(arr)[i]
                                                  : static_cast<const uint32_t *>(arr)[i]);
    }
    return s + (n > 8 ? ",...]" : "]");
}

std::string describe_args(const ucc_coll_args_t &a, uint32_t n) {
    std::ostringstream os;
    const uint64_t type = static_cast<uint64_t>(get_raw(a.coll_type));
    os << "mask=" << hex(a.mask) << " coll_type=" << hex(type) << " ("
       << ucc::model::coll_name(type) << ") flags=" << hex(a.flags) << " root=" << a.root
       << " op=" << get_raw(a.op) << " error_type=" << get_raw(a.error_type)
       << " timeout=" << a.timeout << " tag=" << a.tag;
    if (a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) {
        os << " active_set={start " << a.active_set.start << ", stride " << a.active_set.stride
           << ", size " << a.active_set.size << "}";
        if (a.active_set.size < n) {
            n = static_cast<uint32_t>(a.active_set.size);  // v-arrays have one entry per member
        }
    }
    const bool c64 = (a.flags & UCC_COLL_ARGS_FLAG_COUNT_64BIT) != 0;
    const bool d64 = (a.flags & UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT) != 0;
    for (int s = 0; s < 2; ++s) {
        const ucc_coll_buffer_info_t &info = s == 0 ? a.src.info : a.dst.info;
        const ucc_coll_buffer_info_v_t &info_v = s == 0 ? a.src.info_v : a.dst.info_v;
        const bool v = ucc::model::is_coll_type(type) &&
                       uses_info_v(static_cast<ucc_coll_type_t>(type), s == 0);
        os << (s == 0 ? " src=" : " dst=");
        if (v) {
            os << "v{buf=" << (info_v.buffer ? "set" : "NULL")
               << " counts=" << describe_array(info_v.counts, c64, n)
               << " displs=" << describe_array(info_v.displacements, d64, n)
               << " dt=" << describe_dt(info_v.datatype) << " mem=" << get_raw(info_v.mem_type)
               << "}";
        } else {
            os << "{buf=" << (info.buffer ? "set" : "NULL") << " count=" << info.count
               << " dt=" << describe_dt(info.datatype) << " mem=" << get_raw(info.mem_type) << "}";
        }
    }
    return os.str();
}

// One argument set for a team of n: a base collective valid on every rank,
// broken on some ranks by up to two mutations, with the model's verdict per
// rank. `store` holds what the args point into.
struct DrawnSet {
    Base b;
    std::vector<Mutation> muts;
    std::vector<RankStore> store;
    std::vector<ucc_coll_args_t> args;
    std::vector<ucc::model::Verdict> want;
    std::string mut_desc;
    bool huge = false;  // buffers may have been made huge (then NO_MEMORY is an answer)
};

DrawnSet draw_set(uint32_t n, bool unordered) {
    struct {
        uint32_t n;
        bool unordered;
        std::vector<ucc_coll_args_t> args;
    } c{n, unordered, {}};
    const std::vector<uint64_t> kAllTypes = {
        UCC_COLL_TYPE_ALLGATHER,      UCC_COLL_TYPE_ALLGATHERV,      UCC_COLL_TYPE_ALLREDUCE,
        UCC_COLL_TYPE_ALLTOALL,       UCC_COLL_TYPE_ALLTOALLV,       UCC_COLL_TYPE_BARRIER,
        UCC_COLL_TYPE_BCAST,          UCC_COLL_TYPE_FANIN,           UCC_COLL_TYPE_FANOUT,
        UCC_COLL_TYPE_GATHER,         UCC_COLL_TYPE_GATHERV,         UCC_COLL_TYPE_REDUCE,
        UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_SCATTER,
        UCC_COLL_TYPE_SCATTERV};
    Base b;
    b.type = static_cast<ucc_coll_type_t>(*rc::gen::weightedOneOf<uint64_t>({
        {5, rc::gen::elementOf(kAllTypes)},
        {2, rc::gen::element<uint64_t>(UCC_COLL_TYPE_ALLGATHERV, UCC_COLL_TYPE_ALLTOALLV,
                                       UCC_COLL_TYPE_GATHERV, UCC_COLL_TYPE_SCATTERV,
                                       UCC_COLL_TYPE_REDUCE_SCATTERV)},
    }));
    const std::vector<ucc_datatype_t> dts = valid_datatypes();
    if (is_reduction(b.type)) {
        std::vector<ucc_datatype_t> reducible;
        for (ucc_datatype_t dt : dts) {
            if (dt == generics().reducing || (ucc::dt::is_predefined(dt))) {
                reducible.push_back(dt);
            }
        }
        b.dt = *rc::gen::elementOf(reducible);
        std::vector<ucc_reduction_op_t> ops;
        for (int op = 0; op < UCC_OP_LAST; ++op) {
            if (ucc::dt::reduction_supported(b.dt, static_cast<ucc_reduction_op_t>(op))) {
                ops.push_back(static_cast<ucc_reduction_op_t>(op));
            }
        }
        b.op = *rc::gen::elementOf(ops);
        b.dst_dt = b.dt;
    } else {
        b.dt = *rc::gen::elementOf(dts);
        std::vector<ucc_datatype_t> same;
        for (ucc_datatype_t dt : dts) {
            if (esize(dt) == esize(b.dt)) {
                same.push_back(dt);
            }
        }
        b.dst_dt = *rc::gen::weightedOneOf<ucc_datatype_t>(
            {{3, rc::gen::just(b.dt)}, {1, rc::gen::elementOf(same)}});
    }
    b.count = *rc::gen::weightedElement<uint64_t>({{1, 0}, {2, 1}, {3, 3}, {2, 16}});
    b.root = *rc::gen::inRange<uint64_t>(0, c.n);
    b.inplace = *rc::gen::arbitrary<bool>();
    b.flags_field = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
    b.c64 = *rc::gen::arbitrary<bool>();
    b.d64 = *rc::gen::arbitrary<bool>();
    b.tag_field = c.unordered || *rc::gen::arbitrary<bool>();
    b.junk_seed = *rc::gen::inRange<uint64_t>(0, UINT64_MAX);
    b.active_set = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    if (b.active_set) {
        const auto sn = static_cast<int64_t>(c.n);
        b.as_start = *rc::gen::inRange<uint64_t>(0, c.n);
        b.as_stride = *rc::gen::weightedOneOf<int64_t>({
            {3, rc::gen::element<int64_t>(1, -1)},
            {3, rc::gen::inRange<int64_t>(-sn, sn + 1)},
            {1, rc::gen::element<int64_t>(sn + 1, -3 * sn - 1, INT64_MIN, INT64_MAX)},
        });
        // Members are distinct for sizes up to the stride's orbit n / gcd(stride mod n, n).
        const auto step = static_cast<uint64_t>(((b.as_stride % sn) + sn) % sn);
        const uint64_t orbit = step == 0 ? 1 : c.n / std::gcd(step, uint64_t{c.n});
        b.as_size = *rc::gen::inRange<uint64_t>(1, orbit + 1);
        if (is_rooted(b.type)) {
            const uint64_t root_pos = *rc::gen::inRange<uint64_t>(0, b.as_size);
            b.root = (b.as_start + root_pos * step) % c.n;
        }
    }
    const int n_mut = *rc::gen::weightedElement<int>({{1, 0}, {4, 1}, {4, 2}});
    std::vector<Mutation> muts;
    for (int i = 0; i < n_mut; ++i) {
        muts.push_back(draw_mutation(c.n));
    }

    std::vector<RankStore> store(c.n);
    c.args.resize(c.n);
    for (uint32_t r = 0; r < c.n; ++r) {
        // What rank r's args are built (and mutated) for: the team, or for a member of the
        // active set the set's view (its size, this rank's position, the root's position).
        Base view = b;
        uint32_t view_n = c.n;
        uint32_t view_r = r;
        const int64_t pos = b.active_set ? set_position(b, c.n, r) : -1;
        if (pos >= 0) {
            view.root = static_cast<uint64_t>(set_position(b, c.n, static_cast<uint32_t>(b.root)));
            view_n = static_cast<uint32_t>(b.as_size);
            view_r = static_cast<uint32_t>(pos);
        }
        c.args[r] = build_args(view, view_n, view_r, c.n, store[r]);
        if (pos >= 0 && is_rooted(b.type)) {
            c.args[r].root = b.root;  // given as a team rank
        }
        if (b.active_set) {
            c.args[r].mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
            c.args[r].active_set.start = b.as_start;
            c.args[r].active_set.stride = b.as_stride;
            c.args[r].active_set.size = b.as_size;
        }
        for (const Mutation &m : muts) {
            if (applies(m, r)) {
                apply(m, view, view_n, view_r, Seat{c.n, r, b.root}, c.args[r], store[r]);
            }
        }
    }
    // The generator's own invariant: every v-array a rank passes has an entry for every member of
    // the collective its args describe (the team, or the active set they carry), so neither the
    // model nor the library can read past it. A breach is the generator's bug: it fails (and
    // shrinks) here instead of reading out of bounds below.
    for (uint32_t r = 0; r < c.n; ++r) {
        const ucc_coll_args_t &a = c.args[r];
        const uint64_t members = entries_read(a, c.n, r);
        for (const std::vector<uint64_t> &arr : store[r].arrays) {
            if (!arr.empty() && arr.size() < members) {
                RC_FAIL("generator: rank " + std::to_string(r) + " has a v-array of " +
                        std::to_string(arr.size()) + " entries for " + std::to_string(members) +
                        " members: coll_type " + short_coll_name(b.type) + ", team of " +
                        std::to_string(c.n) + ", active_set {" +
                        std::to_string(a.active_set.start) + ", " +
                        std::to_string(a.active_set.stride) + ", " +
                        std::to_string(a.active_set.size) + "}, base set {" +
                        std::to_string(b.as_start) + ", " + std::to_string(b.as_stride) + ", " +
                        std::to_string(b.as_size) + "}, root " + std::to_string(b.root) +
                        ", mutations " + std::to_string(muts.size()));
            }
        }
    }
    std::vector<ucc::model::Verdict> want(c.n);
    std::set<int> rules;
    for (uint32_t r = 0; r < c.n; ++r) {
        want[r] = ucc::model::validate(c.args[r], ucc::model::TeamView{c.n, r, !c.unordered});
        rules.insert(want[r].rule);
    }
    // Coverage: which rules decided on some rank ("V0" = UCC_OK), which mutations were drawn.
    for (int rule : rules) {
        RC_TAG("rule=V" + std::to_string(rule));
    }
    std::string mut_desc;
    for (const Mutation &m : muts) {
        RC_TAG(std::string("mutation=") + mut_name(m.kind));
        mut_desc += std::string(mut_desc.empty() ? "" : "+") + mut_name(m.kind) +
                    (m.all_ranks ? "(all)" : "(some)");
    }
    if (muts.empty()) {
        RC_TAG("mutation=none");
        mut_desc = "none";
    }
    RC_TAG(std::string("active_set=") + (b.active_set ? "1" : "0"));
    bool error_type_junk = false;  // some rank's error_type is neither LOCAL nor GLOBAL
    for (const ucc_coll_args_t &a : c.args) {
        const int64_t e = get_raw(a.error_type);
        error_type_junk = error_type_junk || (e != UCC_ERR_TYPE_LOCAL && e != UCC_ERR_TYPE_GLOBAL);
    }
    RC_TAG(std::string("error_type=") + (error_type_junk ? "junk" : "local/global"));
    RC_TAG(std::string("coll=") + short_coll_name(b.type));

    // A case whose buffers may have been made huge may run out of memory for
    // its scratch.
    bool huge = false;
    for (const Mutation &m : muts) {
        // flag_bits may turn 32-bit counts into 64-bit ones (two entries read as one).
        huge = huge || m.kind == Mut::kHugeCount || m.kind == Mut::kHugeVEntry ||
               m.kind == Mut::kFlagBits;
    }
    // So may one whose mutation (root, in place, type) made a rank use a
    // description that held junk: a buffer whose bytes, times the team size
    // (a tree algorithm's scratch holds a subtree's blocks), reach 1 GiB.
    // Whether such a reservation fails depends on the machine's memory and
    // what runs beside the test (regression: a gather of 4.2e9 int16 per
    // rank on 16 ranks got UCC_ERR_NO_MEMORY in one run under ctest -j2).
    const auto big = [&](const ucc_coll_buffer_info_t &info) {
        constexpr unsigned __int128 kBig = uint64_t{1} << 30;
        return static_cast<unsigned __int128>(info.count) * esize(info.datatype) * c.n >= kBig;
    };
    for (uint32_t r = 0; r < c.n && !huge; ++r) {
        const ucc_coll_args_t &a = c.args[r];
        const bool in_place = (a.mask & UCC_COLL_ARGS_FIELD_FLAGS) != 0 &&
                              (a.flags & UCC_COLL_ARGS_FLAG_IN_PLACE) != 0;
        const ucc::model::Layout l =
            ucc::model::layout_of(get_raw(a.coll_type), in_place, a.root == r);
        huge = (l.src.used() && !l.src.v() && big(a.src.info)) ||
               (l.dst.used() && !l.dst.v() && big(a.dst.info));
    }
    const bool invalid = std::any_of(
        want.begin(), want.end(), [](const ucc::model::Verdict &v) { return v.status != UCC_OK; });
    RC_TAG(std::string("set=") + (invalid ? "invalid on some rank" : "valid"));
    DrawnSet d;
    d.b = b;
    d.muts = std::move(muts);
    d.store = std::move(store);
    d.args = std::move(c.args);
    d.want = std::move(want);
    d.mut_desc = mut_desc;
    d.huge = huge;
    return d;
}

}  // namespace

// P45 / V1-V13: every rank's ucc_collective_init status equals the model's.
// Each case creates one team and initialises 40-100 argument sets on it
// (about 220,000 sets per run at the default scale, over 100,000 of them
// invalid on some rank: bad input at volume for the price of 4,000 team
// creations; the "set=" line of the coverage report counts them).
UCC_PROP(Validity, InitStatusMatchesModel, 4000, ()) {
    using ucc::testkit::InitCase;
    InitCase c;
    c.n = *rc::gen::weightedOneOf<uint32_t>({
        {5, rc::gen::inRange<uint32_t>(1, 9)},
        {2, rc::gen::element<uint32_t>(16, 32, 64)},
        {2, rc::gen::inRange<uint32_t>(9, 65)},
    });
    c.unordered = *rc::gen::weightedElement<bool>({{5, false}, {1, true}});
    c.team_ep_map = *rc::gen::arbitrary<bool>();
    c.network = *rc::gen::element<std::string>("ideal", "hdr", "slow");
    c.seed = *rc::gen::inRange<uint64_t>(1, UINT64_MAX);
    // Under the sanitizers (an unoptimised build) a few sets per team: they
    // look for memory errors on every path, which fewer sets reach.
    const auto n_sets =
        kSanitized ? *rc::gen::inRange<uint32_t>(2, 6) : *rc::gen::inRange<uint32_t>(40, 101);
    std::vector<DrawnSet> sets;
    sets.reserve(n_sets);
    for (uint32_t k = 0; k < n_sets; ++k) {
        sets.push_back(draw_set(c.n, c.unordered));
        c.sets.push_back(sets.back().args);
    }
    RC_TAG(std::string("team=") + (c.unordered ? "unordered" : "ordered"),
           std::string("n=") + ucc::testkit::team_size_class(c.n));
    const ucc::testkit::InitOutcome o = ucc::testkit::run_init_only(c);
    std::ostringstream err;
    const DrawnSet *bad = nullptr;
    if (!o.failure.empty()) {
        err << "setup/teardown failed: " << o.failure << "\n";
    }
    for (size_t k = 0; k < sets.size() && o.failure.empty() && bad == nullptr; ++k) {
        const DrawnSet &d = sets[k];
        int shown = 0;
        for (uint32_t r = 0; r < c.n; ++r) {
            const ucc_status_t got = o.status[k][r];
            const ucc_status_t exp = d.want[r].status;
            bool ok = got == exp;
            if (!ok && exp == UCC_OK && got == UCC_ERR_NO_MEMORY && d.huge) {
                // Scratch is allocated at init, sized by the data: buffers of
                // up to 2^63 bytes may need more than this machine has.
                ok = true;
                RC_TAG("valid but out of memory (huge buffers)");
            }
            if (!o.request_ok[k][r]) {
                err << "set " << k << ", rank " << r << ": UCC_OK without a request\n";
                bad = &d;
            }
            if (!ok) {
                bad = &d;
                if (shown++ < 4) {
                    err << "set " << k << ", rank " << r << ": ucc_collective_init returned "
                        << ucc_status_string(got) << ", the model expects "
                        << ucc_status_string(exp)
                        << (d.want[r].why.empty() ? "" : " (" + d.want[r].why + ")") << "\n  args "
                        << describe_args(d.args[r], c.n) << "\n";
                }
            }
        }
    }
    if (!err.str().empty()) {
        std::ostringstream os;
        os << "init-only n=" << c.n << " ordered=" << !c.unordered << " ep_map=" << c.team_ep_map
           << " network=" << c.network << " sets=" << sets.size();
        if (bad != nullptr) {
            const Base &b = bad->b;
            os << " base type=" << short_coll_name(b.type);
            if (b.active_set) {
                os << " active_set={" << b.as_start << "," << b.as_stride << "," << b.as_size
                   << "} root=" << b.root;
            }
            os << " mutations=" << bad->mut_desc;
        }
        const std::string d = os.str();
        char line[128];
        std::snprintf(line, sizeof(line), "\nsim seed %" PRIu64 ", config hash 0x%016" PRIx64,
                      c.seed, ucc::testkit::fnv1a(d));
        const std::string msg = err.str() + d + line;
        RC_FAIL(msg);
    }
}
