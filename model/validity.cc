// Rules V1..V13 of model/VALIDITY.md, applied in order. Each rule is a small function that returns
// a verdict when it fires; the first one that fires decides. Fields are read only where VALIDITY.md
// ("Fields read") allows: error_type never (V2 is withdrawn), root for rooted types only.
#include "model/validity.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

#include "model/datatypes.h"
#include "model/layout.h"
#include "model/reduce.h"

namespace ucc::model {
namespace {

__extension__ typedef unsigned __int128 UInt128;

constexpr UInt128 kMaxBytes = (UInt128{1} << 63) - 1;  // byte sizes must fit in 63 bits

using Result = std::optional<Verdict>;

// a * b, saturating at the largest UInt128 (any saturated value is far above kMaxBytes).
UInt128 times(UInt128 a, UInt128 b) {
    const UInt128 product = a * b;
    if (a != 0 && product / a != b) {
        return ~UInt128{0};
    }
    return product;
}

Verdict verdict(ucc_status_t status, int rule, const std::string &why) {
    return Verdict{status, rule, "V" + std::to_string(rule) + ": " + why};
}

Verdict invalid(int rule, const std::string &why) {
    return verdict(UCC_ERR_INVALID_PARAM, rule, why);
}

uint64_t coll_type(const ucc_coll_args_t &a) {
    return static_cast<uint64_t>(raw_value(a.coll_type));
}

bool has_flag(const ucc_coll_args_t &a, uint64_t flag) {
    return (a.mask & UCC_COLL_ARGS_FIELD_FLAGS) != 0 && (a.flags & flag) != 0;
}

// Whether rank r is the root: only rooted types have one (root is not read otherwise).
bool is_root_rank(const ucc_coll_args_t &a, uint64_t r) {
    return is_rooted(coll_type(a)) && a.root == r;
}

// One buffer description the calling rank uses.
struct Used {
    std::string name;                                  // "src" or "dst"
    const ucc_coll_buffer_info_t *info = nullptr;      // set for an info buffer
    const ucc_coll_buffer_info_v_t *info_v = nullptr;  // set for an info_v buffer
    bool displacements = true;  // info_v only: reduce_scatterv's dst has none
    bool block = false;         // info only: count is one rank's block (the team holds N of them)

    ucc_datatype_t datatype() const { return info != nullptr ? info->datatype : info_v->datatype; }
    int64_t mem_type() const {
        return info != nullptr ? raw_value(info->mem_type) : raw_value(info_v->mem_type);
    }
    void *buffer() const { return info != nullptr ? info->buffer : info_v->buffer; }
};

// The buffer descriptions this rank uses, src first. Requires root < N for rooted types (V6).
std::vector<Used> used_buffers(const ucc_coll_args_t &a, const TeamView &t) {
    const Layout layout =
        layout_of(coll_type(a), has_flag(a, UCC_COLL_ARGS_FLAG_IN_PLACE), is_root_rank(a, t.rank));
    std::vector<Used> used;
    auto add = [&used](const char *name, Desc desc, const auto &buffer) {
        Used u;
        u.name = name;
        switch (desc) {
            case Desc::kUnused:
                return;
            case Desc::kInfo:
            case Desc::kInfoBlock:
                u.info = &buffer.info;
                u.block = desc == Desc::kInfoBlock;
                break;
            case Desc::kInfoV:
            case Desc::kInfoVNoDispl:
                u.info_v = &buffer.info_v;
                u.displacements = desc == Desc::kInfoV;
                break;
        }
        used.push_back(u);
    };
    add("src", layout.src.desc, a.src);
    add("dst", layout.dst.desc, a.dst);
    return used;
}

const Used *find(const std::vector<Used> &used, const char *name) {
    for (const Used &u : used) {
        if (u.name == name) {
            return &u;
        }
    }
    return nullptr;
}

uint64_t v_entry(const ucc_coll_args_t &a, const void *array, uint32_t i, uint64_t flag_64bit) {
    if (has_flag(a, flag_64bit)) {
        return static_cast<const uint64_t *>(array)[i];
    }
    return static_cast<const uint32_t *>(array)[i];
}

uint64_t v_count(const ucc_coll_args_t &a, const ucc_coll_buffer_info_v_t &v, uint32_t i) {
    return v_entry(a, v.counts, i, UCC_COLL_ARGS_FLAG_COUNT_64BIT);
}

uint64_t v_displacement(const ucc_coll_args_t &a, const ucc_coll_buffer_info_v_t &v, uint32_t i) {
    return v_entry(a, v.displacements, i, UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT);
}

UInt128 sum_counts(const ucc_coll_args_t &a, const ucc_coll_buffer_info_v_t &v, uint32_t n) {
    UInt128 sum = 0;
    for (uint32_t i = 0; i < n; ++i) {
        sum += v_count(a, v, i);
    }
    return sum;
}

std::string str(UInt128 v) {
    std::string s;
    do {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    } while (v != 0);
    return s;
}

// ---- the rules

Result v1_coll_type(const ucc_coll_args_t &a) {
    if (!is_coll_type(coll_type(a))) {
        return invalid(1, "coll_type " + std::to_string(raw_value(a.coll_type)) +
                              " is not one of the 16 UCC_COLL_TYPE_* bits");
    }
    return {};
}

// V2 is withdrawn: error_type is never read (any value is accepted).

Result v3_timeout(const ucc_coll_args_t &a) {
    if (has_flag(a, UCC_COLL_ARGS_FLAG_TIMEOUT) && (!std::isfinite(a.timeout) || a.timeout <= 0)) {
        return invalid(3, "FLAG_TIMEOUT with timeout " + std::to_string(a.timeout));
    }
    return {};
}

Result v4_tag(const ucc_coll_args_t &a, const TeamView &t) {
    if (!t.ordered && (a.mask & UCC_COLL_ARGS_FIELD_TAG) == 0) {
        return invalid(4, "unordered team and no UCC_COLL_ARGS_FIELD_TAG");
    }
    return {};
}

// The members of an active set in set order: member i = (start + i * stride) mod n, with stride
// reduced into [0, n). Empty when the set is out of range (size 0 or > n, start >= n); a rank
// selected twice appears twice.
std::vector<uint64_t> set_members(const ucc_coll_args_t &a, uint64_t n) {
    const uint64_t start = a.active_set.start, size = a.active_set.size;
    if (size == 0 || size > n || start >= n) {
        return {};
    }
    const auto sn = static_cast<int64_t>(n);
    const auto step = static_cast<uint64_t>(((a.active_set.stride % sn) + sn) % sn);
    std::vector<uint64_t> members;
    for (uint64_t i = 0; i < size; ++i) {
        members.push_back((start + i * step) % n);
    }
    return members;
}

Result v5_active_set(const ucc_coll_args_t &a, const TeamView &t) {
    if ((a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) == 0) {
        return {};
    }
    const uint64_t n = t.size, start = a.active_set.start, size = a.active_set.size;
    if (size == 0 || size > n) {
        return invalid(5, "active set size " + std::to_string(size) + " not in [1, team size]");
    }
    if (start >= n) {
        return invalid(5, "active set start " + std::to_string(start) + " >= team size");
    }
    std::vector<bool> member(n, false);
    for (const uint64_t m : set_members(a, n)) {
        if (member[m]) {
            return invalid(5, "active set selects rank " + std::to_string(m) + " twice");
        }
        member[m] = true;
    }
    if (is_rooted(coll_type(a)) && (a.root >= n || !member[a.root])) {
        return invalid(5, "root " + std::to_string(a.root) + " is not in the active set");
    }
    if (!member[t.rank]) {
        return invalid(5,
                       "the calling rank " + std::to_string(t.rank) + " is not in the active set");
    }
    return {};
}

// What rules V6..V11 see (API.md §4.12): with an active set that passes V5, the collective runs
// on a team of the set's size, the caller's rank is its set position and the root is the root's
// set position. Otherwise the args and team unchanged.
struct View {
    ucc_coll_args_t args;
    TeamView team;
};

View view_of(const ucc_coll_args_t &a, const TeamView &t) {
    View v{a, t};
    if ((a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) == 0 || v5_active_set(a, t)) {
        return v;  // no set, or V5 fires and no later rule runs
    }
    const std::vector<uint64_t> members = set_members(a, t.size);
    const bool rooted = is_rooted(coll_type(a));
    v.team.size = static_cast<uint32_t>(members.size());
    for (uint32_t i = 0; i < members.size(); ++i) {
        if (members[i] == t.rank) {
            v.team.rank = i;
        }
        if (rooted && members[i] == a.root) {
            v.args.root = i;
        }
    }
    return v;
}

Result v6_root(const ucc_coll_args_t &a, const TeamView &t) {
    if (is_rooted(coll_type(a)) && a.root >= t.size) {
        return invalid(
            6, "root " + std::to_string(a.root) + " >= team size " + std::to_string(t.size));
    }
    return {};
}

Result v7_descriptions(const std::vector<Used> &used) {
    for (const Used &u : used) {
        const ucc_datatype_t dt = u.datatype();
        const bool dt_ok =
            is_predefined_dt(dt) || (is_generic_dt(dt) && generic_ops(dt) != nullptr);
        if (!dt_ok) {
            return invalid(7, u.name + " datatype " + std::to_string(dt) + " is not valid");
        }
        const int64_t mem = u.mem_type();
        if (mem < UCC_MEMORY_TYPE_HOST || mem > UCC_MEMORY_TYPE_UNKNOWN) {
            return invalid(7, u.name + " mem_type " + std::to_string(mem) + " is not valid");
        }
        if (u.info_v != nullptr && u.info_v->counts == nullptr) {
            return invalid(7, u.name + ".info_v.counts is NULL");
        }
        if (u.info_v != nullptr && u.displacements && u.info_v->displacements == nullptr) {
            return invalid(7, u.name + ".info_v.displacements is NULL");
        }
    }
    return {};
}

Result v8_reduction(const ucc_coll_args_t &a, const std::vector<Used> &used) {
    if (!is_reduction(coll_type(a))) {
        return {};
    }
    const Used *src = find(used, "src");
    const Used *dst = find(used, "dst");
    if (src != nullptr && dst != nullptr && src->datatype() != dst->datatype()) {
        return invalid(8, "src datatype " + dt_name(src->datatype()) + " differs from dst " +
                              dt_name(dst->datatype()));
    }
    const ucc_datatype_t dt = src != nullptr ? src->datatype() : dst->datatype();
    if (is_predefined_dt(dt)) {
        const int64_t op = raw_value(a.op);
        if (op < 0 || op >= UCC_OP_LAST) {
            return invalid(8, op_name(op) + " is not a reduction op");
        }
        if (!op_supported(dt, static_cast<ucc_reduction_op_t>(op))) {
            return verdict(UCC_ERR_NOT_SUPPORTED, 8,
                           op_name(op) + " is not supported on " + dt_name(dt));
        }
        return {};
    }
    const ucc_generic_dt_ops_t *ops = generic_ops(dt);
    const bool reducible = (ops->mask & UCC_GENERIC_DT_OPS_FIELD_FLAGS) != 0 &&
                           (ops->flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) != 0 &&
                           ops->reduce.cb != nullptr;
    if (!reducible) {
        return verdict(UCC_ERR_NOT_SUPPORTED, 8, "generic datatype without a reduce callback");
    }
    return {};
}

Result v9_element_sizes(const ucc_coll_args_t &a, const std::vector<Used> &used) {
    const Used *src = find(used, "src");
    const Used *dst = find(used, "dst");
    if (is_reduction(coll_type(a)) || src == nullptr || dst == nullptr) {
        return {};
    }
    const size_t s = element_size(src->datatype()), d = element_size(dst->datatype());
    if (s != d) {
        return invalid(
            9, "src element size " + std::to_string(s) + " differs from dst " + std::to_string(d));
    }
    return {};
}

// V10 fires with `what` (the requirement that failed) unless `holds`.
Result require(bool holds, const char *what) {
    if (holds) {
        return {};
    }
    return invalid(10, std::string("required ") + what);
}

Result v10_counts(const ucc_coll_args_t &a, const TeamView &t) {
    const bool in_place = has_flag(a, UCC_COLL_ARGS_FLAG_IN_PLACE);
    const bool is_root = is_root_rank(a, t.rank);
    const UInt128 n = t.size;
    // Read lazily: a count is read only by a requirement for which that buffer is used.
    const auto src = [&a] { return UInt128{a.src.info.count}; };
    const auto dst = [&a] { return UInt128{a.dst.info.count}; };
    switch (coll_type(a)) {
        case UCC_COLL_TYPE_ALLREDUCE:
            return in_place ? Result{}
                            : require(src() == dst(), "allreduce src.count == dst.count");
        case UCC_COLL_TYPE_REDUCE:
            return !is_root || in_place ? Result{}
                                        : require(src() == dst(), "reduce src.count == dst.count");
        case UCC_COLL_TYPE_ALLGATHER:
            return in_place ? require(dst() % n == 0, "in-place allgather dst.count % N == 0")
                            : require(dst() == n * src(), "allgather dst.count == N * src.count");
        case UCC_COLL_TYPE_ALLTOALL:
            if (dst() % n != 0) {
                return require(false, "alltoall dst.count % N == 0");
            }
            return in_place ? Result{} : require(src() == dst(), "alltoall src.count == dst.count");
        case UCC_COLL_TYPE_GATHER:
            if (!is_root) {
                return {};
            }
            return in_place ? require(dst() % n == 0, "in-place gather dst.count % N == 0")
                            : require(dst() == n * src(), "gather dst.count == N * src.count");
        case UCC_COLL_TYPE_SCATTER:
            if (!is_root) {
                return {};
            }
            return in_place ? require(src() % n == 0, "in-place scatter src.count % N == 0")
                            : require(src() == n * dst(), "scatter src.count == N * dst.count");
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            return in_place
                       ? require(dst() % n == 0, "in-place reduce_scatter dst.count % N == 0")
                       : require(src() == n * dst(), "reduce_scatter src.count == N * dst.count");
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            return in_place ? Result{}
                            : require(src() == sum_counts(a, a.dst.info_v, t.size),
                                      "reduce_scatterv src.count == sum of dst counts");
        default:
            return {};
    }
}

Result v11_sizes(const ucc_coll_args_t &a, const TeamView &t, const std::vector<Used> &used) {
    const bool in_place = has_flag(a, UCC_COLL_ARGS_FLAG_IN_PLACE);
    for (const Used &u : used) {
        const UInt128 esize = element_size(u.datatype());
        UInt128 extent = 0;  // bytes of this buffer the rank touches
        if (u.info != nullptr) {
            extent = times(u.info->count, esize);
            const UInt128 team_bytes = u.block ? times(extent, t.size) : extent;
            if (team_bytes > kMaxBytes) {
                return invalid(11, u.name + " byte size " + str(team_bytes) + " overflows");
            }
        } else if (u.displacements) {
            for (uint32_t i = 0; i < t.size; ++i) {
                const uint64_t count = v_count(a, *u.info_v, i);
                if (count == 0) {
                    continue;  // a zero-count block touches nothing; its displacement is unused
                }
                const UInt128 end = times(UInt128{v_displacement(a, *u.info_v, i)} + count, esize);
                if (end > kMaxBytes) {
                    return invalid(11, u.name + " block " + std::to_string(i) + " ends at byte " +
                                           str(end) + ", which overflows");
                }
                extent = std::max(extent, end);
            }
        } else {  // reduce_scatterv dst: T = sum of counts, no displacements
            const UInt128 total = times(sum_counts(a, *u.info_v, t.size), esize);
            if (total > kMaxBytes) {
                return invalid(11, u.name + " byte size " + str(total) + " overflows");
            }
            extent = in_place ? total : times(v_count(a, *u.info_v, t.rank), esize);
        }
        if (u.buffer() == nullptr && extent != 0) {
            return invalid(11, u.name + " buffer is NULL for " + str(extent) + " bytes");
        }
    }
    return {};
}

// The byte ranges [lo, hi) of a used description this rank touches, as
// addresses (empty ones left out); sizes already passed V11.
struct Region {
    UInt128 lo = 0;
    UInt128 hi = 0;
};

std::vector<Region> regions_of(const ucc_coll_args_t &a, const TeamView &t, const Used &u) {
    const auto base = static_cast<UInt128>(reinterpret_cast<uintptr_t>(u.buffer()));
    const UInt128 esize = element_size(u.datatype());
    std::vector<Region> r;
    auto add = [&](UInt128 lo, UInt128 hi) {
        if (lo < hi) {
            r.push_back(Region{base + lo, base + hi});
        }
    };
    if (u.info != nullptr) {
        add(0, times(u.info->count, esize));
    } else if (u.displacements) {
        for (uint32_t i = 0; i < t.size; ++i) {
            const UInt128 d = v_displacement(a, *u.info_v, i);
            add(times(d, esize), times(d + v_count(a, *u.info_v, i), esize));
        }
    } else {  // reduce_scatterv's dst, not in place (V12 needs both src and dst)
        add(0, times(v_count(a, *u.info_v, t.rank), esize));
    }
    std::sort(r.begin(), r.end(), [](const Region &x, const Region &y) { return x.lo < y.lo; });
    return r;
}

// Whether a range of x meets a range of y (both sorted by lo): whichever of
// two disjoint ranges lies wholly before the other cannot meet any later one.
bool meet(const std::vector<Region> &x, const std::vector<Region> &y) {
    size_t i = 0;
    size_t j = 0;
    while (i < x.size() && j < y.size()) {
        if (x[i].hi <= y[j].lo) {
            ++i;
        } else if (y[j].hi <= x[i].lo) {
            ++j;
        } else {
            return true;
        }
    }
    return false;
}

Result v12_overlap(const ucc_coll_args_t &a, const TeamView &t, const std::vector<Used> &used) {
    if (used.size() != 2) {
        return {};  // in place, or one buffer only
    }
    const std::vector<Region> s = regions_of(a, t, used[0]);
    const std::vector<Region> d = regions_of(a, t, used[1]);
    if (!meet(s, d)) {
        return {};
    }
    if (coll_type(a) == UCC_COLL_TYPE_ALLREDUCE && s.size() == 1 && d.size() == 1 &&
        s[0].lo == d[0].lo && s[0].hi == d[0].hi) {
        return {};  // the same bytes: run in place
    }
    return invalid(12, "bytes of src and dst that this rank touches overlap, without IN_PLACE");
}

Result v13_one_sided(const ucc_coll_args_t &a) {
    if (coll_type(a) == UCC_COLL_TYPE_ALLTOALLV &&
        has_flag(a, UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS) &&
        (!(a.mask & UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER) || a.global_work_buffer == nullptr)) {
        return verdict(UCC_ERR_NOT_SUPPORTED, 13,
                       "one-sided alltoallv (MEM_MAPPED_BUFFERS) without a global work buffer");
    }
    return {};
}

}  // namespace

Verdict validate(const ucc_coll_args_t &a, const TeamView &t) {
    if (t.size == 0 || t.rank >= t.size) {
        throw std::invalid_argument("ucc::model::validate: rank " + std::to_string(t.rank) +
                                    " of a team of " + std::to_string(t.size));
    }
    // V6..V11 see the collective's own view (the active set renumbered, if any).
    const View view = view_of(a, t);
    const ucc_coll_args_t &va = view.args;
    const TeamView &vt = view.team;
    const std::vector<Used> used = used_buffers(va, vt);
    const std::function<Result()> rules[] = {
        [&] { return v1_coll_type(a); },
        [&] { return v3_timeout(a); },
        [&] { return v4_tag(a, t); },
        [&] { return v5_active_set(a, t); },
        [&] { return v6_root(va, vt); },
        [&] { return v7_descriptions(used); },
        [&] { return v8_reduction(va, used); },
        [&] { return v9_element_sizes(va, used); },
        [&] { return v10_counts(va, vt); },
        [&] { return v11_sizes(va, vt, used); },
        [&] { return v12_overlap(va, vt, used); },
        [&] { return v13_one_sided(a); },
    };
    for (const auto &rule : rules) {
        if (Result verdict = rule()) {
            return *verdict;
        }
    }
    return Verdict{UCC_OK, 0, ""};
}

ucc_status_t expected_init_status(const ucc_coll_args_t &a, const TeamView &t, std::string *why) {
    Verdict v = validate(a, t);
    if (why != nullptr) {
        *why = std::move(v.why);
    }
    return v.status;
}

}  // namespace ucc::model
