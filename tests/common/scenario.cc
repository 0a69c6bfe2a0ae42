#include "tests/common/scenario.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <exception>
#include <sstream>

#include "lib/core/core.h"
#include "lib/dt/dt.h"
#include "lib/dt/half.h"
#include "lib/net/network_model.h"
#include "model/datatypes.h"
#include "model/layout.h"
#include "model/oracle.h"

namespace ucc::testkit {

namespace {

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// A guarded allocation: [guard][payload][guard].
struct Region {
    std::vector<uint8_t> mem;
    size_t bytes = 0;
    uint8_t *data() { return mem.data() + kGuard; }
    void alloc(size_t b) {
        bytes = b;
        mem.assign(b + 2 * kGuard, kGuardByte);
    }
};

bool is_float(ucc_datatype_t dt) {
    return dt == UCC_DT_FLOAT16 || dt == UCC_DT_BFLOAT16 || dt == UCC_DT_FLOAT32 ||
           dt == UCC_DT_FLOAT64 || dt == UCC_DT_FLOAT128;
}
bool is_complex(ucc_datatype_t dt) {
    return dt == UCC_DT_FLOAT32_COMPLEX || dt == UCC_DT_FLOAT64_COMPLEX ||
           dt == UCC_DT_FLOAT128_COMPLEX;
}

void store_real(ucc_datatype_t dt, uint8_t *p, double v) {
    switch (dt) {
        case UCC_DT_FLOAT16: {
            uint16_t h = dt::float_to_half(static_cast<float>(v));
            std::memcpy(p, &h, 2);
            break;
        }
        case UCC_DT_BFLOAT16: {
            uint16_t h = dt::float_to_bfloat16(static_cast<float>(v));
            std::memcpy(p, &h, 2);
            break;
        }
        case UCC_DT_FLOAT32:
        case UCC_DT_FLOAT32_COMPLEX: {
            float f = static_cast<float>(v);
            std::memcpy(p, &f, 4);
            break;
        }
        case UCC_DT_FLOAT64:
        case UCC_DT_FLOAT64_COMPLEX:
            std::memcpy(p, &v, 8);
            break;
        default: {  // long double: 10 value bytes, padding zero
            long double l = v;
            std::memset(p, 0, 16);
            std::memcpy(p, &l, 10);
            break;
        }
    }
}

// Inputs whose reduction is exact in every order for floats (small integers,
// bounded sums, products of magnitude <= 16), random bits for integers.
void fill(uint8_t *p, ucc_datatype_t dt, ucc_reduction_op_t op, uint64_t count, uint32_t rank,
          uint64_t seed) {
    const size_t es = dt::size_of(dt);
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t h = mix(seed ^ mix(rank * 0x100000001ull + i));
        uint8_t *e = p + i * es;
        if (!is_float(dt) && !is_complex(dt)) {
            for (size_t b = 0; b < es; ++b) {
                e[b] = static_cast<uint8_t>(mix(h + b));
            }
            continue;
        }
        double re = 0;
        double im = 0;
        switch (op) {
            case UCC_OP_PROD:
                re = (h % 4 == 0) ? -1 : 1;
                if (rank < 4 && h % 3 == 0) {
                    re *= 2;
                }
                if (is_complex(dt) && h % 5 == 0) {
                    im = re;
                    re = 0;
                }
                break;
            case UCC_OP_MAX:
            case UCC_OP_MIN:
                re = static_cast<double>(h % 201) - 100;
                break;
            default:  // SUM, AVG: at most one rank in 8 contributes to an index
                if (rank % 8 == i % 8) {
                    re = static_cast<double>(h % 3) - 1;
                    im = static_cast<double>((h >> 8) % 3) - 1;
                }
                break;
        }
        if (is_complex(dt)) {
            size_t half = es / 2;
            store_real(dt, e, re);
            store_real(dt, e + half, im);
        } else {
            store_real(dt, e, re);
        }
    }
}

// Signed zeros of floating reductions depend on the order of operations, which
// legitimately differs between the model's sequential fold and a tree: compare
// -0 and +0 as equal (every other bit must match).
void canonical_zeros(ucc_datatype_t dt, uint8_t *p, uint64_t count) {
    if (!is_float(dt) && !is_complex(dt)) {
        return;
    }
    const size_t es = dt::size_of(dt);
    const size_t part = is_complex(dt) ? es / 2 : es;
    const size_t value_bytes = part == 16 ? 10 : part;  // long double: 10 value bytes
    for (uint64_t i = 0; i < count * es / part; ++i) {
        uint8_t *v = p + i * part;
        bool zero = (v[value_bytes - 1] & 0x7f) == 0;
        for (size_t b = 0; zero && b + 1 < value_bytes; ++b) {
            zero = v[b] == 0;
        }
        if (zero) {
            v[value_bytes - 1] = 0;
        }
    }
}

std::string upper(const char *s) {
    std::string u(s);
    for (char &c : u) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return u;
}

const char *type_name(ucc_coll_type_t t) {
    static constexpr const char *kNames[] = {
        "allgather",      "allgatherv",      "allreduce", "alltoall", "alltoallv", "barrier",
        "bcast",          "fanin",           "fanout",    "gather",   "gatherv",   "reduce",
        "reduce_scatter", "reduce_scatterv", "scatter",   "scatterv"};
    for (uint32_t b = 0; b < 16; ++b) {
        if (static_cast<uint64_t>(t) == (uint64_t{1} << b)) {
            return kNames[b];
        }
    }
    return "other";
}

struct RankData {
    Region src;
    Region dst;
    // v-collectives: counts and displacements as the library reads them
    // (32- or 64-bit entries per the scenario's flags).
    std::vector<uint8_t> src_counts;
    std::vector<uint8_t> src_displs;
    std::vector<uint8_t> dst_counts;
    std::vector<uint8_t> dst_displs;
    ucc_coll_args_t args{};
    ucc_status_t status = UCC_OK;
    std::string error;
};

// Where rank r's buffers, counts and inputs are, for every collective type.
struct Layout {
    uint64_t src_alloc = 0;  // elements allocated
    uint64_t dst_alloc = 0;
    uint64_t src_count = 0;  // info.count (non-v descriptions)
    uint64_t dst_count = 0;
    bool src_v = false;  // src is an info_v description
    bool dst_v = false;
    bool dst_displs = true;                // reduce_scatterv's dst has counts only
    std::vector<uint64_t> sc, sd, dc, dd;  // v counts and displacements (elements)
    // Input regions {in dst?, offset, count}, filled for every post.
    struct Input {
        bool in_dst;
        uint64_t off;
        uint64_t count;
    };
    std::vector<Input> inputs;
    bool dst_none = false;  // this rank passes no dst (NULL, count 0)
};

// Block sizes of the v-collectives: 0..count, zeros included, a function of
// the scenario so that every rank computes the same table.
uint64_t vcount(const Scenario &s, uint64_t i, uint64_t j) {
    if (s.count == 0) {
        return 0;
    }
    const uint64_t h = mix(s.value_seed * 7919 + i * 1000003 + j);
    return h % 5 == 0 ? 0 : 1 + h % s.count;
}

// Displacements of blocks `c` with a gap of 0..2 elements before each one.
std::vector<uint64_t> displs_with_gaps(const Scenario &s, const std::vector<uint64_t> &c,
                                       uint64_t salt, uint64_t *extent) {
    std::vector<uint64_t> d(c.size());
    uint64_t at = 0;
    for (size_t i = 0; i < c.size(); ++i) {
        at += mix(s.value_seed + salt * 31 + i) % 3;
        d[i] = at;
        at += c[i];
    }
    *extent = at + 1;
    return d;
}

// Rank r's layout, from the model's statement of each collective's layout
// (model/layout.h). A buffer the rank does not use in place is still described
// as it would be without IN_PLACE (real, allocated memory, which must stay
// unchanged); one it does not use at all (a non-root's) has no memory. With an
// active set, a member is laid out at its set position on a team of the set's
// size; a non-member gets buffers it never passes to the library (which must
// stay unchanged).
Layout layout_of(const Scenario &s, uint32_t r) {
    Layout L;
    uint64_t n = s.n;
    const uint64_t B = s.count;
    const bool root = r == s.root;
    if (s.active_set) {
        const std::vector<uint32_t> members = members_of(s);
        const auto at = std::find(members.begin(), members.end(), r);
        if (at == members.end()) {
            L.src_alloc = L.dst_alloc = s.count;
            return L;
        }
        n = members.size();
        r = static_cast<uint32_t>(at - members.begin());  // the set position from here on
    }
    const model::Layout used = model::layout_of(s.type, s.inplace, root);
    const model::Layout natural = model::layout_of(s.type, false, root);
    // Elements member i contributes to member j: B, or the v-collectives' table
    // (alltoallv symmetric in place: dst describes both ways).
    auto block = [&](uint64_t i, uint64_t j) -> uint64_t {
        if (!model::is_v(s.type)) {
            return B;
        }
        if (s.type == UCC_COLL_TYPE_ALLTOALLV) {
            return s.inplace ? vcount(s, std::min(i, j), std::max(i, j) + 1) : vcount(s, i, j + 1);
        }
        return vcount(s, i, 0);
    };
    // One buffer: its description, allocation and v-arrays.
    auto describe = [&](bool is_src, uint64_t *alloc, uint64_t *count, bool *v,
                        std::vector<uint64_t> *vc, std::vector<uint64_t> *vd) {
        const model::Buffer &b = (is_src ? used.src : used.dst).used()
                                     ? (is_src ? used.src : used.dst)
                                     : (is_src ? natural.src : natural.dst);
        std::vector<uint64_t> entries(n);
        uint64_t total = 0;
        for (uint64_t j = 0; j < n; ++j) {
            entries[j] = b.holds == model::Holds::kPeerBlocks ? (is_src ? block(r, j) : block(j, r))
                                                              : block(j, j);
            total += entries[j];
        }
        switch (b.holds) {
            case model::Holds::kNothing:
                return;
            case model::Holds::kVector:
            case model::Holds::kOwnBlock:
                *alloc = *count = block(r, r);
                break;
            case model::Holds::kAllBlocks:
            case model::Holds::kPeerBlocks:
                *alloc = *count = total;
                break;
        }
        if (b.v()) {
            *v = true;
            *vc = entries;  // every member's block (reduce_scatterv: its own is the result)
            if (b.desc == model::Desc::kInfoV) {
                const uint64_t salt =
                    s.type == UCC_COLL_TYPE_ALLTOALLV ? (is_src ? 3 : 5) + r : (is_src ? 2 : 1);
                *vd = displs_with_gaps(s, entries, salt, alloc);
            }
        }
    };
    describe(true, &L.src_alloc, &L.src_count, &L.src_v, &L.sc, &L.sd);
    describe(false, &L.dst_alloc, &L.dst_count, &L.dst_v, &L.dc, &L.dd);
    L.dst_displs = !L.dst_v || !L.dd.empty();
    L.dst_none = !used.dst.used() && !natural.dst.used();
    if (s.type == UCC_COLL_TYPE_REDUCE && !root) {
        // P6: a non-root may pass a real dst, which must stay unchanged.
        L.dst_none = !s.reduce_nonroot_dst;
        L.dst_alloc = L.dst_count = s.reduce_nonroot_dst ? B : 0;
    }
    // Where the rank's input is: in dst (at its own block, or all of it) in
    // place, in src otherwise; none for a non-root of scatter(v).
    const model::Holds input = natural.src.holds;
    if (input == model::Holds::kNothing) {
        return L;
    }
    if (used.input_in_dst && input == model::Holds::kOwnBlock) {
        L.inputs.push_back({true, L.dst_v ? L.dd[r] : r * B, block(r, r)});
    } else if (used.input_in_dst) {
        L.inputs.push_back({true, 0, L.dst_alloc});
    } else {
        L.inputs.push_back({false, 0, L.src_alloc});
    }
    return L;
}

// Serialises a v-array with 32- or 64-bit entries.
std::vector<uint8_t> v_array(const std::vector<uint64_t> &v, bool wide) {
    std::vector<uint8_t> out(v.size() * (wide ? 8 : 4) + 8);
    for (size_t i = 0; i < v.size(); ++i) {
        if (wide) {
            std::memcpy(out.data() + i * 8, &v[i], 8);
        } else {
            uint32_t x = static_cast<uint32_t>(v[i]);
            std::memcpy(out.data() + i * 4, &x, 4);
        }
    }
    return out;
}

// Inputs of post `post` on rank r: a pure function of (scenario, rank, post).
void fill_inputs(const Scenario &s, RankData &d, uint32_t r, uint32_t post) {
    if (post > 0 && !is_member(s, r)) {
        return;  // a non-member never calls: its memory keeps the first contents
    }
    const size_t es = dt::size_of(s.dt);
    const Layout L = layout_of(s, r);
    const uint64_t vseed = s.value_seed + post * 1000003ull;
    // src always holds this rank's inputs (also where in-place ignores it, so
    // that an unused src is still well-formed data); in-place inputs in dst.
    fill(d.src.data(), s.dt, s.op, L.src_alloc, r, vseed);
    for (const Layout::Input &in : L.inputs) {
        if (in.in_dst) {
            fill(d.dst.data() + in.off * es, s.dt, s.op, in.count, r, vseed);
        }
    }
    if (s.type == UCC_COLL_TYPE_BCAST && r != s.root) {
        fill(d.src.data(), s.dt, s.op, L.src_count, r + 5555, vseed);  // to be overwritten
    }
}

// Allocates buffers (stale dst contents, guards) and builds args for every rank.
void prepare(const Scenario &s, std::vector<RankData> &ranks) {
    const size_t es = dt::size_of(s.dt);
    for (uint32_t r = 0; r < s.n; ++r) {
        RankData &d = ranks[r];
        const Layout L = layout_of(s, r);
        d.src.alloc(L.src_alloc * es);
        d.dst.alloc(L.dst_alloc * es);
        fill(d.dst.data(), s.dt, s.op, L.dst_alloc, r + 7777, s.value_seed);  // stale contents
        fill_inputs(s, d, r, 0);
        d.src_counts = v_array(L.sc, s.wide_counts);
        d.src_displs = v_array(L.sd, s.wide_displs);
        d.dst_counts = v_array(L.dc, s.wide_counts);
        d.dst_displs = v_array(L.dd, s.wide_displs);
        ucc_coll_args_t &a = d.args;
        std::memset(&a, 0, sizeof(a));
        a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
        a.coll_type = s.type;
        a.flags = (s.inplace ? UCC_COLL_ARGS_FLAG_IN_PLACE : 0) |
                  (s.posts > 1 ? UCC_COLL_ARGS_FLAG_PERSISTENT : 0) |
                  (s.wide_counts ? UCC_COLL_ARGS_FLAG_COUNT_64BIT : 0) |
                  (s.wide_displs ? UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT : 0);
        a.root = s.root;
        a.op = s.op;
        if (L.src_v) {
            a.src.info_v = {d.src.data(), reinterpret_cast<ucc_count_t *>(d.src_counts.data()),
                            reinterpret_cast<ucc_aint_t *>(d.src_displs.data()), s.dt,
                            UCC_MEMORY_TYPE_HOST};
        } else {
            a.src.info = {d.src.data(), L.src_count, s.dt, UCC_MEMORY_TYPE_HOST};
        }
        if (L.dst_v) {
            a.dst.info_v = {
                d.dst.data(), reinterpret_cast<ucc_count_t *>(d.dst_counts.data()),
                L.dst_displs ? reinterpret_cast<ucc_aint_t *>(d.dst_displs.data()) : nullptr, s.dt,
                UCC_MEMORY_TYPE_HOST};
        } else {
            a.dst.info = {d.dst.data(), L.dst_count, s.dt, UCC_MEMORY_TYPE_HOST};
        }
        if (L.dst_none) {
            a.dst.info = {nullptr, 0, s.dt, UCC_MEMORY_TYPE_HOST};
        }
        if (s.poison_inplace_src && s.inplace &&
            !model::layout_of(s.type, true, r == s.root).src.used()) {
            // P23: an address no rank may touch, an absurd count, an invalid datatype.
            a.src.info = {reinterpret_cast<void *>(uintptr_t{0xdead0000}), UINT64_MAX,
                          UCC_PREDEFINED_DT(1000), UCC_MEMORY_TYPE_HOST};
        }
        if (s.null_buffers) {
            if (a.src.info.count == 0) {
                a.src.info.buffer = nullptr;
            }
            if (a.dst.info.count == 0) {
                a.dst.info.buffer = nullptr;
            }
        }
        if (s.tag >= 0) {
            a.mask |= UCC_COLL_ARGS_FIELD_TAG;
            a.tag = static_cast<ucc_coll_id_t>(s.tag);
        }
        if (s.active_set) {
            a.mask |= UCC_COLL_ARGS_FIELD_ACTIVE_SET;
            a.active_set.start = s.as_start;
            a.active_set.stride = s.as_stride;
            a.active_set.size = s.as_size;
            if (!is_member(s, r)) {
                a.mask = 0;  // never passed to the library (nor read by the model)
            }
        }
    }
}

}  // namespace

struct PreparedColl::Impl {
    Scenario s;
    std::vector<RankData> ranks;
    // [post][rank]: expected src+dst image (with guards) after that post.
    std::vector<std::vector<std::vector<uint8_t>>> snapshots;
    std::string failure;
};

PreparedColl::PreparedColl(const Scenario &s) : impl_(std::make_unique<Impl>()) {
    Impl &m = *impl_;
    m.s = s;
    m.ranks.resize(s.n);
    m.snapshots.resize(s.posts);
    // Expected images of every post are computed up front: inputs of post k are
    // a pure function of (rank, k), so re-filling reproduces them exactly. The
    // dst image after post k is the state post k+1 starts from.
    prepare(s, m.ranks);
    for (uint32_t post = 0; post < s.posts; ++post) {
        if (post > 0) {
            for (uint32_t r = 0; r < s.n; ++r) {
                size_t sb = m.ranks[r].src.mem.size();
                const std::vector<uint8_t> &img = m.snapshots[post - 1][r];
                std::memcpy(m.ranks[r].dst.mem.data(), img.data() + sb, m.ranks[r].dst.mem.size());
                fill_inputs(s, m.ranks[r], r, post);
            }
        }
        std::vector<ucc_coll_args_t> args(s.n);
        for (uint32_t r = 0; r < s.n; ++r) {
            args[r] = m.ranks[r].args;
        }
        model::Expected e;
        try {
            e = model::expected(s.n, args);
        } catch (const std::exception &ex) {
            m.failure = std::string("the model refused the scenario: ") + ex.what();
            return;
        }
        m.snapshots[post].resize(s.n);
        for (uint32_t r = 0; r < s.n; ++r) {
            RankData &d = m.ranks[r];
            std::vector<uint8_t> img =
                model::expected_image(d.src.mem.data(), d.src.mem.size(), e.writes[r]);
            std::vector<uint8_t> dimg =
                model::expected_image(d.dst.mem.data(), d.dst.mem.size(), e.writes[r]);
            img.insert(img.end(), dimg.begin(), dimg.end());
            m.snapshots[post][r] = std::move(img);
        }
    }
    prepare(s, m.ranks);
}

PreparedColl::~PreparedColl() = default;

const std::string &PreparedColl::failure() const {
    return impl_->failure;
}

ucc_coll_args_t &PreparedColl::args(uint32_t r) {
    return impl_->ranks[r].args;
}

void PreparedColl::refill(uint32_t r, uint32_t post) {
    fill_inputs(impl_->s, impl_->ranks[r], r, post);
}

std::string PreparedColl::check(uint32_t r, uint32_t post) const {
    const Scenario &s = impl_->s;
    const RankData &d = impl_->ranks[r];
    const std::vector<uint8_t> &want = impl_->snapshots[post][r];
    std::vector<uint8_t> got = d.src.mem;
    got.insert(got.end(), d.dst.mem.begin(), d.dst.mem.end());
    std::vector<uint8_t> want_c = want;
    if (coll_has_reduction(s.type)) {
        const size_t at = d.src.mem.size() + kGuard;
        canonical_zeros(s.dt, got.data() + at, d.dst.bytes / dt::size_of(s.dt));
        canonical_zeros(s.dt, want_c.data() + at, d.dst.bytes / dt::size_of(s.dt));
    }
    if (got == want_c) {
        return "";
    }
    size_t i = 0;
    while (i < got.size() && got[i] == want_c[i]) {
        ++i;
    }
    std::ostringstream os;
    os << "post " << post << ": rank " << r << " memory differs from the model at byte " << i
       << " of " << got.size() << " (src+dst with " << kGuard << "-byte guards)";
    return os.str();
}

std::vector<uint8_t> PreparedColl::dst_bytes(uint32_t r) const {
    RankData &d = impl_->ranks[r];
    return std::vector<uint8_t>(d.dst.data(), d.dst.data() + d.dst.bytes);
}

namespace {

std::string status_error(const char *what, ucc_status_t st) {
    return std::string(what) + " -> " + ucc_status_string(st);
}

}  // namespace

void mark_call_returned(ucc_status_t st) {
    TraceEvent e;
    e.mark = UserMark::kCallReturned;
    e.status = st;
    sim::record_user_event(e);
}

namespace {

// P37 for one call (RankEnv::defect): `failed` is sim::failed_allocations()
// before it, `handle` whether it wrote its handle.
void p37_check(RankEnv *env, const char *call, uint32_t failed, ucc_status_t st, bool handle) {
    mark_call_returned(st);
    if (!env->defect.empty()) {
        return;
    }
    if (st != UCC_OK && handle) {
        env->defect =
            std::string(call) + " returned " + ucc_status_string(st) + " but wrote its handle";
    } else if (sim::failed_allocations() != failed && st != UCC_ERR_NO_MEMORY) {
        env->defect = std::string(call) + " returned " + ucc_status_string(st) +
                      " after an allocation in it failed (expected UCC_ERR_NO_MEMORY)";
    }
}

}  // namespace

std::string scenario_cls(const Scenario &s) {
    if (!s.cls.empty()) {
        return s.cls;
    }
    for (const coll::Algorithm &a : coll::algorithms(s.type)) {
        if (a.hierarchical && s.alg == a.name) {
            return "basic,hier";
        }
    }
    return "";
}

std::string setup(const EnvParams &p, uint32_t rank, uint32_t n, RankEnv *env) {
    ucc_lib_config_h lcfg;
    ucc_status_t st = ucc_lib_config_read(nullptr, nullptr, &lcfg);
    if (st != UCC_OK) {
        return status_error("ucc_lib_config_read", st);
    }
    if (!p.cls.empty() && (st = ucc_lib_config_modify(lcfg, "CLS", p.cls.c_str())) != UCC_OK) {
        ucc_lib_config_release(lcfg);
        return status_error("ucc_lib_config_modify(CLS)", st);
    }
    ucc_lib_params_t lp{};
    lp.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lp.thread_mode = UCC_THREAD_SINGLE;
    st = ucc_init(&lp, lcfg, &env->lib);
    ucc_lib_config_release(lcfg);
    if (st != UCC_OK) {
        env->lib = nullptr;
        return status_error("ucc_init", st);
    }
    ucc_context_config_h ccfg;
    st = ucc_context_config_read(env->lib, nullptr, &ccfg);
    if (st != UCC_OK) {
        return status_error("ucc_context_config_read", st);
    }
    if (!p.alg.empty()) {
        std::string var = upper(type_name(p.type)) + "_ALG";
        st = ucc_context_config_modify(ccfg, nullptr, var.c_str(), p.alg.c_str());
    }
    if (st == UCC_OK && !p.select.empty()) {
        st = ucc_context_config_modify(ccfg, nullptr, "SELECT", p.select.c_str());
    }
    if (st == UCC_OK && !p.log_level.empty()) {
        st = ucc_context_config_modify(ccfg, nullptr, "LOG_LEVEL", p.log_level.c_str());
    }
    if (st == UCC_OK && p.radix != 0) {
        st = ucc_context_config_modify(ccfg, nullptr, "KNOMIAL_RADIX",
                                       std::to_string(p.radix).c_str());
    }
    if (st == UCC_OK && p.reduce_chunk != 0) {
        st = ucc_context_config_modify(ccfg, nullptr, "REDUCE_CHUNK",
                                       std::to_string(p.reduce_chunk).c_str());
    }
    for (const char *var : {"BCAST_SEGMENT", "REDUCE_SEGMENT"}) {
        if (st == UCC_OK && p.segment >= 0) {
            st = ucc_context_config_modify(ccfg, nullptr, var, std::to_string(p.segment).c_str());
        }
    }
    ucc_context_params_t cp{};
    cp.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    if (st == UCC_OK) {
        st = sim::oob(&cp.oob);
    }
    if (st != UCC_OK) {
        ucc_context_config_release(ccfg);
        return status_error("context configuration", st);
    }
    uint32_t failed = sim::failed_allocations();
    st = ucc_context_create(env->lib, &cp, ccfg, &env->ctx);
    ucc_context_config_release(ccfg);
    p37_check(env, "ucc_context_create", failed, st, env->ctx != nullptr);
    if (st != UCC_OK) {
        env->ctx = nullptr;
        return status_error("ucc_context_create", st);
    }
    ucc_team_params_t tp{};
    tp.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE;
    tp.ep = rank;
    tp.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    if (p.team_ep_map) {
        tp.mask |= UCC_TEAM_PARAM_FIELD_EP_MAP;
        tp.ep_map.type = UCC_EP_MAP_FULL;
        tp.ep_map.ep_num = n;
    } else {
        tp.mask |= UCC_TEAM_PARAM_FIELD_OOB;
        st = sim::oob(&tp.oob);
        if (st != UCC_OK) {
            return status_error("sim::oob", st);
        }
    }
    if (p.unordered) {
        tp.mask |= UCC_TEAM_PARAM_FIELD_ORDERING;
        tp.ordering = UCC_COLLECTIVE_POST_UNORDERED;
    }
    if (p.sync) {
        tp.mask |= UCC_TEAM_PARAM_FIELD_SYNC_TYPE;
        tp.sync_type = UCC_SYNC_COLLECTIVES;
    }
    ucc_team_h team = nullptr;
    failed = sim::failed_allocations();
    st = ucc_team_create_post(&env->ctx, 1, &tp, &team);
    p37_check(env, "ucc_team_create_post", failed, st, team != nullptr);
    if (st != UCC_OK) {
        return status_error("ucc_team_create_post", st);
    }
    env->team = team;
    do {
        failed = sim::failed_allocations();
        st = ucc_team_create_test(team);
    } while (st == UCC_INPROGRESS);
    p37_check(env, "ucc_team_create_test", failed, st, false);
    if (st != UCC_OK) {
        return std::string("team creation: ") + ucc_status_string(st);
    }
    return "";
}

std::string teardown(RankEnv *env) {
    ucc_status_t st = UCC_OK;
    if (env->team != nullptr) {
        while ((st = ucc_team_destroy(env->team)) == UCC_INPROGRESS) {
        }
        if (st != UCC_OK) {
            return status_error("ucc_team_destroy", st);
        }
    }
    if (env->ctx != nullptr && (st = ucc_context_destroy(env->ctx)) != UCC_OK) {
        return status_error("ucc_context_destroy", st);
    }
    if (env->lib != nullptr && (st = ucc_finalize(env->lib)) != UCC_OK) {
        return status_error("ucc_finalize", st);
    }
    return "";
}

namespace {

// One rank's whole program: lib, context, team, the collective (posted
// `posts` times, each rank re-filling its own inputs before a re-post), teardown.
struct Shared {
    const Scenario *s;
    PreparedColl *prep;
    std::vector<std::string> *rank_errors;     // setup, API and teardown failures
    std::vector<std::string> *errors;          // memory that differs from the model
    std::vector<std::vector<double>> *post_s;  // [post][rank]
    std::vector<std::vector<double>> *done_s;
};

#define CHECK_UCC(call)                                                   \
    do {                                                                  \
        ucc_status_t st_ = (call);                                        \
        if (st_ != UCC_OK) {                                              \
            error = std::string(#call) + " -> " + ucc_status_string(st_); \
            return;                                                       \
        }                                                                 \
    } while (0)

// The program's own marks in the event trace (when it is recorded).
void mark(UserMark m, uint64_t req, ucc_status_t st = UCC_OK) {
    TraceEvent e;
    e.mark = m;
    e.req = req;
    e.status = st;
    sim::record_user_event(e);
}

void rank_program(const Shared &sh, uint32_t rank) {
    const Scenario &s = *sh.s;
    std::string &error = (*sh.rank_errors)[rank];
    ucc_coll_args_t &args = sh.prep->args(rank);
    EnvParams ep;
    ep.type = s.type;
    ep.alg = s.alg;
    ep.select = s.select;
    ep.cls = scenario_cls(s);
    ep.radix = s.radix;
    ep.reduce_chunk = s.reduce_chunk;
    ep.segment = s.segment;
    ep.team_ep_map = s.team_ep_map;
    ep.sync = s.sync;
    RankEnv env;
    error = setup(ep, rank, s.n, &env);
    if (!error.empty()) {
        teardown(&env);  // what setup made before it failed (its error is the one reported)
        return;
    }
    if (!is_member(s, rank)) {
        error = teardown(&env);  // not in the active set: never calls (run_scenario checks it)
        return;
    }
    ucc_status_t st;
    ucc_coll_req_h req = nullptr;
    const uint64_t req_number = 1;  // the only request of this rank (event trace)
    for (uint32_t post = 0; post < s.posts; ++post) {
        if (post > 0) {
            sh.prep->refill(rank, post);  // persistent: new inputs, same buffers
        } else if (!s.init_and_post) {
            st = ucc_collective_init(&args, &req, env.team);
            if (st != UCC_OK) {
                error = std::string("ucc_collective_init: ") + ucc_status_string(st);
                teardown(&env);  // nothing is in flight: the rank leaves nothing behind
                return;
            }
        }
        if (s.skew_ps > 0) {
            const uint64_t h = mix(s.seed ^ mix(rank * 0x10001ull + post * 0x9e37ull + 1));
            sim::Cluster::current()->advance(rank, static_cast<int64_t>(h % (s.skew_ps + 1)));
        }
        (*sh.post_s)[post][rank] = sim::now_s();
        if (post == 0 && s.init_and_post) {
            st = ucc_collective_init_and_post(&args, &req, env.team);
            if (st != UCC_OK) {
                error = std::string("ucc_collective_init_and_post: ") + ucc_status_string(st);
                teardown(&env);
                return;
            }
        } else {
            CHECK_UCC(ucc_collective_post(req));
        }
        while ((st = ucc_collective_test(req)) == UCC_INPROGRESS) {
            ucc_context_progress(env.ctx);
        }
        mark(UserMark::kDone, req_number, st);
        (*sh.done_s)[post][rank] = sim::now_s();
        if (st != UCC_OK) {
            error = std::string("collective completed with ") + ucc_status_string(st);
            ucc_collective_finalize(req);
            return;
        }
        // Check this iteration, then prepare the next one's inputs (only this
        // rank's memory is touched, and only after it completed).
        std::string diff = sh.prep->check(rank, post);
        if (!diff.empty() && (*sh.errors)[rank].empty()) {
            (*sh.errors)[rank] = diff;
        }
    }
    // Every scratch buffer came from ucc_collective_init (the algorithm's
    // ScratchPlan, lib/coll/coll.h), none from a post.
    const auto *cr = reinterpret_cast<const ucc::core::CollRequest *>(req);
    if (cr->scratch.unplanned() != 0 && (*sh.errors)[rank].empty()) {
        (*sh.errors)[rank] = "the algorithm allocated " + std::to_string(cr->scratch.unplanned()) +
                             " scratch buffer(s) its plan did not foresee";
    }
    CHECK_UCC(ucc_collective_finalize(req));
    error = teardown(&env);
}

struct InitShared {
    const InitCase *c;
    InitOutcome *out;
    std::vector<std::string> *errors;
};

void init_program(const InitShared &sh, uint32_t rank) {
    const InitCase &c = *sh.c;
    EnvParams ep;
    ep.team_ep_map = c.team_ep_map;
    ep.unordered = c.unordered;
    ep.log_level = c.quiet ? "FATAL" : "";
    RankEnv env;
    std::string &error = (*sh.errors)[rank];
    error = setup(ep, rank, c.n, &env);
    for (size_t k = 0; k < c.sets.size() && error.empty(); ++k) {
        ucc_coll_args_t args = c.sets[k][rank];
        ucc_coll_req_h req = nullptr;
        ucc_status_t st = ucc_collective_init(&args, &req, env.team);
        sh.out->status[k][rank] = st;
        sh.out->request_ok[k][rank] = st != UCC_OK || req != nullptr;
        if (st == UCC_OK && req != nullptr) {
            st = ucc_collective_finalize(req);
            if (st != UCC_OK) {
                error = status_error("ucc_collective_finalize of an unposted request", st);
            }
        }
    }
    std::string down = teardown(&env);
    if (error.empty()) {
        error = down;
    }
}

}  // namespace

bool coll_has_reduction(ucc_coll_type_t t) {
    return t == UCC_COLL_TYPE_ALLREDUCE || t == UCC_COLL_TYPE_REDUCE ||
           t == UCC_COLL_TYPE_REDUCE_SCATTER || t == UCC_COLL_TYPE_REDUCE_SCATTERV;
}

std::string describe(const Scenario &s) {
    std::ostringstream os;
    os << type_name(s.type) << " n=" << s.n << " dt=" << dt::name(s.dt)
       << " op=" << dt::op_name(s.op) << " count=" << s.count << " root=" << s.root
       << " inplace=" << s.inplace << " alg=" << s.alg
       << (s.select.empty() ? "" : " select=" + s.select) << " radix=" << s.radix
       << " reduce_chunk=" << s.reduce_chunk << " posts=" << s.posts << " ep_map=" << s.team_ep_map
       << " network=" << s.network << " seed=" << s.seed;
    if (s.segment >= 0) {
        os << " segment=" << s.segment;
    }
    if (!scenario_cls(s).empty()) {
        os << " cls=" << scenario_cls(s);
    }
    if (s.value_seed != Scenario{}.value_seed) {
        os << " value_seed=" << s.value_seed;
    }
    if (s.null_buffers) {
        os << " null_buffers=1";
    }
    if (s.init_and_post) {
        os << " init_and_post=1";
    }
    if (s.reduce_nonroot_dst) {
        os << " reduce_nonroot_dst=1";
    }
    if (s.poison_inplace_src) {
        os << " poison_inplace_src=1";
    }
    if (s.wide_counts || s.wide_displs) {
        os << " counts64=" << s.wide_counts << " displs64=" << s.wide_displs;
    }
    if (s.skew_ps > 0) {
        os << " skew=" << net::format_time_ps(static_cast<int64_t>(s.skew_ps));
    }
    if (s.active_set) {
        os << " active_set={" << s.as_start << "," << s.as_stride << "," << s.as_size << "}";
    }
    if (s.tag >= 0) {
        os << " tag=" << s.tag;
    }
    return os.str();
}

std::vector<uint32_t> members_of(const Scenario &s) {
    std::vector<uint32_t> members;
    if (!s.active_set) {
        for (uint32_t r = 0; r < s.n; ++r) {
            members.push_back(r);
        }
        return members;
    }
    if (s.as_size == 0 || s.as_size > s.n || s.as_start >= s.n) {
        return {};
    }
    const auto n = static_cast<int64_t>(s.n);
    const auto step = static_cast<uint64_t>(((s.as_stride % n) + n) % n);
    std::vector<bool> seen(s.n, false);
    for (uint64_t i = 0; i < s.as_size; ++i) {
        const auto m = static_cast<uint32_t>((s.as_start + i * step) % s.n);
        if (seen[m]) {
            return {};
        }
        seen[m] = true;
        members.push_back(m);
    }
    return members;
}

bool is_member(const Scenario &s, uint32_t r) {
    if (!s.active_set) {
        return r < s.n;
    }
    const std::vector<uint32_t> members = members_of(s);
    return std::find(members.begin(), members.end(), r) != members.end();
}

namespace {

// Whether the core lets the collective reduce in the network's switches
// (lib/core/api_coll.cc): the network reduces, no active set, and no two
// members share a node.
bool net_reduces(const Scenario &s) {
    net::NetworkModel m;
    if (s.active_set || net::parse_network(s.network.c_str(), &m, nullptr) != UCC_OK ||
        !m.reduces_in_network()) {
        return false;
    }
    std::vector<uint32_t> nodes;
    for (uint32_t r : members_of(s)) {
        nodes.push_back(m.node_of(r));
    }
    std::sort(nodes.begin(), nodes.end());
    return std::adjacent_find(nodes.begin(), nodes.end()) == nodes.end();
}

}  // namespace

bool alg_can_run(const Scenario &s) {
    for (const coll::Algorithm &a : coll::algorithms(s.type)) {
        if (s.alg != a.name || a.hierarchical) {
            continue;
        }
        coll::Args args;
        args.type = s.type;
        args.dt = s.dt;
        args.esize = dt::size_of(s.dt);
        args.op = s.op;
        args.count = s.count;
        args.inplace = s.inplace;
        args.net_reduce = net_reduces(s);
        return a.supports(args, static_cast<uint32_t>(members_of(s).size()));
    }
    return true;
}

Outcome run_scenario(const Scenario &s) {
    Outcome out;
    PreparedColl prep(s);
    if (!prep.failure().empty()) {
        out.failure = prep.failure();
        return out;
    }
    std::vector<std::string> rank_errors(s.n);
    std::vector<std::string> errors(s.n);
    out.post_s.assign(s.posts, std::vector<double>(s.n, -1.0));
    out.done_s.assign(s.posts, std::vector<double>(s.n, -1.0));
    Shared sh{&s, &prep, &rank_errors, &errors, &out.post_s, &out.done_s};

    sim::ClusterParams cp;
    cp.n_ranks = s.n;
    cp.seed = s.seed;
    cp.record_events = s.record_events;
    std::string err;
    if (net::parse_network(s.network.c_str(), &cp.net, &err) != UCC_OK) {
        out.failure = "bad network: " + err;
        return out;
    }
    out.run = sim::run(cp, [&sh](uint32_t rank) { rank_program(sh, rank); });
    if (out.run.status != UCC_OK) {
        out.failure = "simulation failed: " + std::string(ucc_status_string(out.run.status)) +
                      "\n" + out.run.report;
        return out;
    }
    for (uint32_t r = 0; r < s.n; ++r) {
        if (!rank_errors[r].empty()) {
            out.failure = "rank " + std::to_string(r) + ": " + rank_errors[r];
            return out;
        }
        if (!errors[r].empty()) {
            out.failure = errors[r];
            return out;
        }
        if (!is_member(s, r)) {
            // After every member finished: a non-member's memory is untouched.
            std::string diff = prep.check(r, s.posts - 1);
            if (!diff.empty()) {
                out.failure = "rank " + std::to_string(r) +
                              " is not in the active set, but its memory changed: " + diff;
                return out;
            }
        }
        out.dst.push_back(prep.dst_bytes(r));
    }
    return out;
}

InitOutcome run_init_only(const InitCase &c) {
    InitOutcome out;
    for (size_t k = 0; k < c.sets.size(); ++k) {
        if (c.sets[k].size() != c.n) {
            out.failure = "InitCase: sets[" + std::to_string(k) + "].size() " +
                          std::to_string(c.sets[k].size()) + " != n " + std::to_string(c.n);
            return out;
        }
    }
    out.status.assign(c.sets.size(), std::vector<ucc_status_t>(c.n, UCC_ERR_LAST));
    out.request_ok.assign(c.sets.size(), std::vector<bool>(c.n, true));
    std::vector<std::string> errors(c.n);
    InitShared sh{&c, &out, &errors};
    sim::ClusterParams cp;
    cp.n_ranks = c.n;
    cp.seed = c.seed;
    std::string err;
    if (net::parse_network(c.network.c_str(), &cp.net, &err) != UCC_OK) {
        out.failure = "bad network: " + err;
        return out;
    }
    out.run = sim::run(cp, [&sh](uint32_t rank) { init_program(sh, rank); });
    if (out.run.status != UCC_OK) {
        out.failure = "simulation failed: " + std::string(ucc_status_string(out.run.status)) +
                      "\n" + out.run.report;
        return out;
    }
    for (uint32_t r = 0; r < c.n; ++r) {
        if (!errors[r].empty()) {
            out.failure = "rank " + std::to_string(r) + ": " + errors[r];
            return out;
        }
    }
    return out;
}

const char *team_size_class(uint32_t n) {
    if (n == 1 || n == 2) {
        return n == 1 ? "1" : "2";
    }
    if ((n & (n - 1)) == 0) {
        return "pow2";
    }
    bool prime = true;
    for (uint32_t d = 2; d * d <= n && prime; ++d) {
        prime = n % d != 0;
    }
    return prime ? "prime" : "non-pow2";
}

const char *coll_name(ucc_coll_type_t t) {
    return type_name(t);
}

uint64_t fnv1a(const std::string &s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char ch : s) {
        h = (h ^ ch) * 0x100000001b3ull;
    }
    return h;
}

}  // namespace ucc::testkit
