// The oracle's per-collective definitions (see oracle.h). Each collective is a short function that
// says, in the plainest terms, which input bytes end up where; the only shared machinery is a
// reader for v-arrays, a byte-range helper and a write list per rank.
#include "model/oracle.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "model/datatypes.h"
#include "model/reduce.h"

namespace ucc::model {
namespace {

[[noreturn]] void fail(const std::string &why) {
    throw std::invalid_argument("ucc::model::expected: " + why);
}

std::string rank_str(uint32_t r) {
    return "rank " + std::to_string(r);
}

uint64_t coll_type(const ucc_coll_args_t &a) {
    return static_cast<uint64_t>(raw_value(a.coll_type));
}

bool has_flag(const ucc_coll_args_t &a, uint64_t flag) {
    return (a.mask & UCC_COLL_ARGS_FIELD_FLAGS) != 0 && (a.flags & flag) != 0;
}

bool in_place(const ucc_coll_args_t &a) {
    return has_flag(a, UCC_COLL_ARGS_FLAG_IN_PLACE);
}

// count * esize, refusing to wrap.
size_t bytes_of(uint64_t count, size_t esize) {
    size_t bytes = 0;
    if (__builtin_mul_overflow(count, esize, &bytes)) {
        fail("byte size of " + std::to_string(count) + " elements overflows");
    }
    return bytes;
}

// A contiguous run of bytes in some rank's memory. `addr` is meaningful only when size > 0
// (a zero-count block may have a NULL or junk base).
struct Bytes {
    uint8_t *addr = nullptr;
    size_t size = 0;
};

// The block of `count` elements of size `esize` starting `offset` elements into `buffer`.
Bytes block(void *buffer, uint64_t offset, uint64_t count, size_t esize) {
    Bytes b;
    b.size = bytes_of(count, esize);
    if (b.size > 0) {
        if (buffer == nullptr) {
            fail("NULL buffer for a non-empty block");
        }
        b.addr = static_cast<uint8_t *>(buffer) + bytes_of(offset, esize);
    }
    return b;
}

size_t esize_of(ucc_datatype_t dt, uint32_t r) {
    if (!is_predefined_dt(dt) && !(is_generic_dt(dt) && generic_ops(dt) != nullptr)) {
        fail(rank_str(r) + ": invalid datatype " + std::to_string(dt));
    }
    return element_size(dt);
}

Bytes whole(const ucc_coll_buffer_info_t &info, uint32_t r) {
    return block(info.buffer, 0, info.count, esize_of(info.datatype, r));
}

// Reads entry i of a v-array: uint32_t entries unless the 64-bit flag is set.
uint64_t v_entry(const ucc_coll_args_t &a, const void *array, uint32_t i, uint64_t flag_64bit) {
    if (array == nullptr) {
        fail("NULL counts or displacements array");
    }
    if (has_flag(a, flag_64bit)) {
        return static_cast<const uint64_t *>(array)[i];
    }
    return static_cast<const uint32_t *>(array)[i];
}

uint64_t v_count(const ucc_coll_args_t &a, const ucc_coll_buffer_info_v_t &v, uint32_t i) {
    return v_entry(a, v.counts, i, UCC_COLL_ARGS_FLAG_COUNT_64BIT);
}

// Rank i's block of a v-buffer (counts[i] elements at displacements[i]).
Bytes v_block(const ucc_coll_args_t &a, const ucc_coll_buffer_info_v_t &v, uint32_t i, uint32_t r) {
    const uint64_t count = v_count(a, v, i);
    if (count == 0) {
        return {};
    }
    const uint64_t displ = v_entry(a, v.displacements, i, UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT);
    return block(v.buffer, displ, count, esize_of(v.datatype, r));
}

// The write lists being built, one per rank.
class Writes {
  public:
    explicit Writes(uint32_t n) { expected_.writes.resize(n); }

    // Rank r must end up with the `size` bytes at `from` copied to `to` (from a snapshot taken
    // now). A write that starts where the rank's previous write ended is merged into it.
    void copy(uint32_t r, uint8_t *to, const uint8_t *from, size_t size) {
        if (size == 0) {
            return;
        }
        std::vector<Write> &list = expected_.writes[r];
        if (!list.empty()) {
            Write &last = list.back();
            if (static_cast<uint8_t *>(last.addr) + last.bytes.size() == to) {
                last.bytes.insert(last.bytes.end(), from, from + size);
                return;
            }
        }
        list.push_back(Write{to, std::vector<uint8_t>(from, from + size)});
    }

    // Moves rank `sender`'s block `from` into rank `receiver`'s block `to`; their byte sizes
    // must agree.
    void move(const char *what, uint32_t sender, uint32_t receiver, Bytes to, Bytes from) {
        if (to.size != from.size) {
            fail(std::string(what) + " from " + rank_str(sender) + " to " + rank_str(receiver) +
                 ": receiver expects " + std::to_string(to.size) + " bytes, sender has " +
                 std::to_string(from.size));
        }
        copy(receiver, to.addr, from.addr, from.size);
    }

    // Checks that no two writes of one rank overlap and hands the result over.
    Expected finish() {
        for (size_t r = 0; r < expected_.writes.size(); ++r) {
            std::vector<std::pair<uintptr_t, size_t>> ranges;
            for (const Write &w : expected_.writes[r]) {
                ranges.emplace_back(reinterpret_cast<uintptr_t>(w.addr), w.bytes.size());
            }
            std::sort(ranges.begin(), ranges.end());
            for (size_t k = 1; k < ranges.size(); ++k) {
                if (ranges[k - 1].first + ranges[k - 1].second > ranges[k].first) {
                    fail(rank_str(static_cast<uint32_t>(r)) + ": destination blocks overlap");
                }
            }
        }
        return std::move(expected_);
    }

  private:
    Expected expected_;
};

// ---- data movement

void allgather(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    // Rank i's contribution: its src, or (in place) block i of its own dst.
    std::vector<Bytes> contribution(n);
    for (uint32_t i = 0; i < n; ++i) {
        const ucc_coll_args_t &a = args[i];
        if (in_place(a)) {
            if (a.dst.info.count % n != 0) {
                fail(rank_str(i) + ": in-place allgather dst.count not divisible by team size");
            }
            const uint64_t b = a.dst.info.count / n;
            contribution[i] = block(a.dst.info.buffer, i * b, b, esize_of(a.dst.info.datatype, i));
        } else {
            contribution[i] = whole(a.src.info, i);
        }
    }
    for (uint32_t j = 0; j < n; ++j) {
        const ucc_coll_buffer_info_t &dst = args[j].dst.info;
        if (dst.count % n != 0) {
            fail(rank_str(j) + ": allgather dst.count not divisible by team size");
        }
        const uint64_t b = dst.count / n;
        for (uint32_t i = 0; i < n; ++i) {
            out.move("allgather", i, j, block(dst.buffer, i * b, b, esize_of(dst.datatype, j)),
                     contribution[i]);
        }
    }
}

void allgatherv(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    std::vector<Bytes> contribution(n);
    for (uint32_t i = 0; i < n; ++i) {
        const ucc_coll_args_t &a = args[i];
        contribution[i] = in_place(a) ? v_block(a, a.dst.info_v, i, i) : whole(a.src.info, i);
    }
    for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t i = 0; i < n; ++i) {
            out.move("allgatherv", i, j, v_block(args[j], args[j].dst.info_v, i, j),
                     contribution[i]);
        }
    }
}

void alltoall(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    // Block j of rank i's send buffer (src, or dst in place) goes to block i of rank j's dst.
    auto nth_block = [n](const ucc_coll_buffer_info_t &info, uint32_t k, uint32_t r) {
        if (info.count % n != 0) {
            fail(rank_str(r) + ": alltoall count not divisible by team size");
        }
        const uint64_t b = info.count / n;
        return block(info.buffer, k * b, b, esize_of(info.datatype, r));
    };
    for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t i = 0; i < n; ++i) {
            const ucc_coll_args_t &sender = args[i];
            const ucc_coll_buffer_info_t &send =
                in_place(sender) ? sender.dst.info : sender.src.info;
            out.move("alltoall", i, j, nth_block(args[j].dst.info, i, j), nth_block(send, j, i));
        }
    }
}

void alltoallv(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    for (uint32_t j = 0; j < n; ++j) {
        for (uint32_t i = 0; i < n; ++i) {
            const ucc_coll_args_t &sender = args[i];
            const ucc_coll_buffer_info_v_t &send =
                in_place(sender) ? sender.dst.info_v : sender.src.info_v;
            out.move("alltoallv", i, j, v_block(args[j], args[j].dst.info_v, i, j),
                     v_block(sender, send, j, i));
        }
    }
}

void bcast(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    // The root's buffer is the data and is never written (IN_PLACE is ignored).
    const Bytes data = whole(args[root].src.info, root);
    for (uint32_t r = 0; r < n; ++r) {
        if (r != root) {
            out.move("bcast", root, r, whole(args[r].src.info, r), data);
        }
    }
}

void gather(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    const ucc_coll_args_t &ra = args[root];
    const ucc_coll_buffer_info_t &dst = ra.dst.info;
    if (dst.count % n != 0) {
        fail("gather root dst.count not divisible by team size");
    }
    const uint64_t b = dst.count / n;
    const size_t esize = esize_of(dst.datatype, root);
    for (uint32_t i = 0; i < n; ++i) {
        const Bytes to = block(dst.buffer, i * b, b, esize);
        // In place, the root's block is already at its place: rewritten with identical bytes.
        const Bytes from = (i == root && in_place(ra)) ? to : whole(args[i].src.info, i);
        out.move("gather", i, root, to, from);
    }
}

void gatherv(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    const ucc_coll_args_t &ra = args[root];
    for (uint32_t i = 0; i < n; ++i) {
        const Bytes to = v_block(ra, ra.dst.info_v, i, root);
        const Bytes from = (i == root && in_place(ra)) ? to : whole(args[i].src.info, i);
        out.move("gatherv", i, root, to, from);
    }
}

void scatter(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    const ucc_coll_args_t &ra = args[root];
    const ucc_coll_buffer_info_t &src = ra.src.info;
    if (src.count % n != 0) {
        fail("scatter root src.count not divisible by team size");
    }
    const uint64_t b = src.count / n;
    const size_t esize = esize_of(src.datatype, root);
    for (uint32_t i = 0; i < n; ++i) {
        if (i == root && in_place(ra)) {
            continue;  // the root's block stays in src; dst is ignored
        }
        out.move("scatter", root, i, whole(args[i].dst.info, i),
                 block(src.buffer, i * b, b, esize));
    }
}

void scatterv(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    const ucc_coll_args_t &ra = args[root];
    for (uint32_t i = 0; i < n; ++i) {
        if (i == root && in_place(ra)) {
            continue;
        }
        out.move("scatterv", root, i, whole(args[i].dst.info, i),
                 v_block(ra, ra.src.info_v, i, root));
    }
}

// ---- reductions

// One rank's input vector of a reduction.
struct Vector {
    void *buffer;
    uint64_t count;
    ucc_datatype_t dt;
};

// Folds the vectors (all of the same count and datatype) in rank order with rank 0's op (ignored
// for generic datatypes, where it may be junk).
std::vector<uint8_t> reduce_all(const std::vector<Vector> &in, const ucc_coll_args_t &a0) {
    ucc_reduction_op_t op = UCC_OP_SUM;
    if (!is_generic_dt(in[0].dt)) {
        const int64_t raw_op = raw_value(a0.op);
        if (raw_op < 0 || raw_op >= UCC_OP_LAST) {
            fail("invalid op " + std::to_string(raw_op));
        }
        op = static_cast<ucc_reduction_op_t>(raw_op);
    }
    std::vector<const void *> inputs;
    for (uint32_t r = 0; r < in.size(); ++r) {
        if (in[r].count != in[0].count || in[r].dt != in[0].dt) {
            fail(rank_str(r) + ": reduction count or datatype differs from rank 0's");
        }
        const Bytes b = block(in[r].buffer, 0, in[r].count, esize_of(in[r].dt, r));
        inputs.push_back(b.addr);
    }
    if (in[0].count == 0) {
        return {};
    }
    return fold(in[0].dt, op, inputs, in[0].count);
}

// Reduction input of rank r: dst when in place (and, for reduce, at the root), else src.
Vector input_of(const ucc_coll_args_t &a, bool use_dst) {
    if (use_dst) {
        return {a.dst.info.buffer, a.dst.info.count, a.dst.info.datatype};
    }
    return {a.src.info.buffer, a.src.info.count, a.src.info.datatype};
}

void check_dst_count(const ucc_coll_buffer_info_t &dst, uint64_t count, uint32_t r) {
    if (dst.count != count) {
        fail(rank_str(r) + ": dst.count " + std::to_string(dst.count) + ", expected " +
             std::to_string(count));
    }
}

void allreduce(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    std::vector<Vector> in;
    for (uint32_t r = 0; r < n; ++r) {
        in.push_back(input_of(args[r], in_place(args[r])));
    }
    const std::vector<uint8_t> result = reduce_all(in, args[0]);
    for (uint32_t r = 0; r < n; ++r) {
        check_dst_count(args[r].dst.info, in[0].count, r);
        out.copy(r, static_cast<uint8_t *>(args[r].dst.info.buffer), result.data(), result.size());
    }
}

void reduce(uint32_t n, const std::vector<ucc_coll_args_t> &args, uint32_t root, Writes &out) {
    std::vector<Vector> in;
    for (uint32_t r = 0; r < n; ++r) {
        in.push_back(input_of(args[r], r == root && in_place(args[r])));
    }
    const std::vector<uint8_t> result = reduce_all(in, args[0]);
    check_dst_count(args[root].dst.info, in[0].count, root);
    out.copy(root, static_cast<uint8_t *>(args[root].dst.info.buffer), result.data(),
             result.size());
}

void reduce_scatter(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    std::vector<Vector> in;
    for (uint32_t r = 0; r < n; ++r) {
        in.push_back(input_of(args[r], in_place(args[r])));
    }
    const std::vector<uint8_t> result = reduce_all(in, args[0]);
    const uint64_t total = in[0].count;
    if (total % n != 0) {
        fail("reduce_scatter total count not divisible by team size");
    }
    const uint64_t b = total / n;
    const size_t esize = esize_of(in[0].dt, 0);
    for (uint32_t r = 0; r < n; ++r) {
        const ucc_coll_buffer_info_t &dst = args[r].dst.info;
        // UCC semantics (P10): in place, rank r's block goes to offset r * b of its dst.
        const uint64_t offset = in_place(args[r]) ? r * b : 0;
        if (!in_place(args[r])) {
            check_dst_count(dst, b, r);
        }
        const Bytes to = block(dst.buffer, offset, b, esize);
        out.copy(r, to.addr, result.data() + bytes_of(r * b, esize), to.size);
    }
}

void reduce_scatterv(uint32_t n, const std::vector<ucc_coll_args_t> &args, Writes &out) {
    // Every rank must give the same counts array; T = their sum; block r starts at prefix[r].
    std::vector<uint64_t> counts(n);
    for (uint32_t i = 0; i < n; ++i) {
        counts[i] = v_count(args[0], args[0].dst.info_v, i);
    }
    std::vector<uint64_t> prefix(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        if (__builtin_add_overflow(prefix[i], counts[i], &prefix[i + 1])) {
            fail("reduce_scatterv counts overflow");
        }
    }
    std::vector<Vector> in;
    for (uint32_t r = 0; r < n; ++r) {
        const ucc_coll_args_t &a = args[r];
        for (uint32_t i = 0; i < n; ++i) {
            if (v_count(a, a.dst.info_v, i) != counts[i]) {
                fail(rank_str(r) + ": reduce_scatterv counts differ from rank 0's");
            }
        }
        if (in_place(a)) {
            in.push_back({a.dst.info_v.buffer, prefix[n], a.dst.info_v.datatype});
        } else {
            in.push_back(input_of(a, false));
        }
    }
    const std::vector<uint8_t> result = reduce_all(in, args[0]);
    if (in[0].count != prefix[n]) {
        fail("reduce_scatterv src.count differs from the sum of the counts");
    }
    const size_t esize = esize_of(in[0].dt, 0);
    for (uint32_t r = 0; r < n; ++r) {
        const ucc_coll_buffer_info_v_t &dst = args[r].dst.info_v;
        const uint64_t offset = in_place(args[r]) ? prefix[r] : 0;
        const Bytes to = block(dst.buffer, offset, counts[r], esize);
        out.copy(r, to.addr, result.data() + bytes_of(prefix[r], esize), to.size);
    }
}

// ---- active sets (API.md §4.12)

bool has_active_set(const ucc_coll_args_t &a) {
    return (a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) != 0;
}

// The members of a's active set in set order (member i = (start + i * stride) mod n, stride
// reduced into [0, n)). Empty for a set that is out of range or selects a rank twice.
std::vector<uint32_t> members_of(uint32_t n, const ucc_coll_args_t &a) {
    const uint64_t start = a.active_set.start;
    const int64_t stride = a.active_set.stride;
    const uint64_t size = a.active_set.size;
    if (size == 0 || size > n || start >= n) {
        return {};
    }
    const auto step = static_cast<uint64_t>(((stride % int64_t{n}) + int64_t{n}) % int64_t{n});
    std::vector<bool> seen(n, false);
    std::vector<uint32_t> members;
    for (uint64_t i = 0; i < size; ++i) {
        const auto m = static_cast<uint32_t>((start + i * step) % n);
        if (seen[m]) {
            return {};
        }
        seen[m] = true;
        members.push_back(m);
    }
    return members;
}

// The members of an active-set collective, in set order. Non-members' args are ignored (they may
// hold anything), so the set is taken from the first rank whose own args give an active set that
// contains it; every member must then agree on the type, the set and (rooted types) the root,
// which must be a member.
std::vector<uint32_t> active_members(uint32_t n, const std::vector<ucc_coll_args_t> &args) {
    for (uint32_t r = 0; r < n; ++r) {
        const ucc_coll_args_t &a = args[r];
        if (!has_active_set(a)) {
            continue;
        }
        const std::vector<uint32_t> members = members_of(n, a);
        if (std::find(members.begin(), members.end(), r) == members.end()) {
            continue;
        }
        const bool rooted = is_rooted(coll_type(a));
        for (uint32_t m : members) {
            const ucc_coll_args_t &b = args[m];
            if (!has_active_set(b) || coll_type(b) != coll_type(a) ||
                b.active_set.start != a.active_set.start ||
                b.active_set.stride != a.active_set.stride ||
                b.active_set.size != a.active_set.size || (rooted && b.root != a.root)) {
                fail(rank_str(m) + ": type, active set or root differs from " + rank_str(r) + "'s");
            }
        }
        if (rooted && std::find(members.begin(), members.end(), a.root) == members.end()) {
            fail("root " + std::to_string(a.root) + " is not in the active set");
        }
        return members;
    }
    fail("no rank is a member of its own (valid) active set");
}

// ---- argument agreement across ranks

void check_agreement(uint32_t n, const std::vector<ucc_coll_args_t> &args) {
    const uint64_t type = coll_type(args[0]);
    if (!is_coll_type(type)) {
        fail("invalid coll_type " + coll_name(type));
    }
    for (uint32_t r = 0; r < n; ++r) {
        const ucc_coll_args_t &a = args[r];
        if (coll_type(a) != type) {
            fail(rank_str(r) + " posts " + coll_name(coll_type(a)) + ", rank 0 posts " +
                 coll_name(type));
        }
        if (is_rooted(type) && a.root != args[0].root) {
            fail(rank_str(r) + ": root " + std::to_string(a.root) + " differs from rank 0's");
        }
        if (is_reduction(type) && raw_value(a.op) != raw_value(args[0].op)) {
            fail(rank_str(r) + ": op differs from rank 0's");
        }
    }
    if (is_rooted(type) && args[0].root >= n) {
        fail("root " + std::to_string(args[0].root) + " is not a team rank");
    }
}

// A collective on the whole team (no active set); args[r] is rank r's.
Expected expected_on_team(uint32_t n, const std::vector<ucc_coll_args_t> &args) {
    check_agreement(n, args);
    const ucc_coll_args_t &a0 = args[0];
    const auto root = static_cast<uint32_t>(a0.root);
    Writes out(n);
    switch (coll_type(a0)) {
        case UCC_COLL_TYPE_ALLGATHER:
            allgather(n, args, out);
            break;
        case UCC_COLL_TYPE_ALLGATHERV:
            allgatherv(n, args, out);
            break;
        case UCC_COLL_TYPE_ALLREDUCE:
            allreduce(n, args, out);
            break;
        case UCC_COLL_TYPE_ALLTOALL:
            alltoall(n, args, out);
            break;
        case UCC_COLL_TYPE_ALLTOALLV:
            alltoallv(n, args, out);
            break;
        case UCC_COLL_TYPE_BARRIER:
        case UCC_COLL_TYPE_FANIN:
        case UCC_COLL_TYPE_FANOUT:
            break;  // synchronisation only: no buffer is written
        case UCC_COLL_TYPE_BCAST:
            bcast(n, args, root, out);
            break;
        case UCC_COLL_TYPE_GATHER:
            gather(n, args, root, out);
            break;
        case UCC_COLL_TYPE_GATHERV:
            gatherv(n, args, root, out);
            break;
        case UCC_COLL_TYPE_REDUCE:
            reduce(n, args, root, out);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTER:
            reduce_scatter(n, args, out);
            break;
        case UCC_COLL_TYPE_REDUCE_SCATTERV:
            reduce_scatterv(n, args, out);
            break;
        case UCC_COLL_TYPE_SCATTER:
            scatter(n, args, root, out);
            break;
        case UCC_COLL_TYPE_SCATTERV:
            scatterv(n, args, root, out);
            break;
        default:
            fail("unknown coll_type");
    }
    return out.finish();
}

// An active-set collective (API.md §4.12): the plain collective on a team of the set's size whose
// rank i is member i, with the root renumbered to its set position; the members' writes are that
// collective's, non-members get none (their memory stays unchanged).
Expected expected_on_set(uint32_t n, const std::vector<ucc_coll_args_t> &args) {
    const std::vector<uint32_t> members = active_members(n, args);
    const auto size = static_cast<uint32_t>(members.size());
    std::vector<ucc_coll_args_t> sub;
    for (uint32_t m : members) {
        ucc_coll_args_t a = args[m];
        a.mask &= ~static_cast<uint64_t>(UCC_COLL_ARGS_FIELD_ACTIVE_SET);
        if (is_rooted(coll_type(a))) {
            a.root = static_cast<uint64_t>(std::find(members.begin(), members.end(), args[m].root) -
                                           members.begin());
        }
        sub.push_back(a);
    }
    Expected on_set;
    try {
        on_set = expected_on_team(size, sub);
    } catch (const std::invalid_argument &e) {
        // Name team ranks, not set positions, in what the caller sees.
        std::string why = e.what();
        const std::string prefix = "ucc::model::expected: ";
        if (why.rfind(prefix, 0) == 0) {
            why.erase(0, prefix.size());
        }
        fail("active set {start " + std::to_string(args[members[0]].active_set.start) +
             ", stride " + std::to_string(args[members[0]].active_set.stride) + ", size " +
             std::to_string(size) + "} (ranks there are set positions): " + why);
    }
    Expected out;
    out.writes.resize(n);
    for (uint32_t i = 0; i < size; ++i) {
        out.writes[members[i]] = std::move(on_set.writes[i]);
    }
    return out;
}

}  // namespace

Expected expected(uint32_t team_size, const std::vector<ucc_coll_args_t> &args) {
    if (args.size() != team_size || team_size == 0) {
        fail("need one ucc_coll_args_t per rank of a non-empty team");
    }
    // An active-set collective is recognised from any rank's args (rank 0 need not be a member).
    if (std::any_of(args.begin(), args.end(), has_active_set)) {
        return expected_on_set(team_size, args);
    }
    return expected_on_team(team_size, args);
}

void apply(const std::vector<Write> &writes) {
    for (const Write &w : writes) {
        if (!w.bytes.empty()) {
            std::memcpy(w.addr, w.bytes.data(), w.bytes.size());
        }
    }
}

std::vector<uint8_t> expected_image(const void *addr, size_t size,
                                    const std::vector<Write> &writes) {
    const auto *base = static_cast<const uint8_t *>(addr);
    std::vector<uint8_t> image(base, base + size);
    const auto lo = reinterpret_cast<uintptr_t>(addr);
    const uintptr_t hi = lo + size;
    for (const Write &w : writes) {
        const auto w_lo = reinterpret_cast<uintptr_t>(w.addr);
        const uintptr_t w_hi = w_lo + w.bytes.size();
        const uintptr_t from = std::max(lo, w_lo);
        const uintptr_t to = std::min(hi, w_hi);
        for (uintptr_t p = from; p < to; ++p) {
            image[p - lo] = w.bytes[p - w_lo];
        }
    }
    return image;
}

std::string check(const std::vector<Write> &writes) {
    for (const Write &w : writes) {
        const auto *actual = static_cast<const uint8_t *>(w.addr);
        for (size_t k = 0; k < w.bytes.size(); ++k) {
            if (actual[k] != w.bytes[k]) {
                std::ostringstream os;
                os << "at " << static_cast<const void *>(actual + k) << " (byte " << k
                   << " of the write at " << w.addr << ", " << w.bytes.size()
                   << " bytes): expected 0x" << std::hex << static_cast<int>(w.bytes[k])
                   << ", found 0x" << static_cast<int>(actual[k]);
                return os.str();
            }
        }
    }
    return "";
}

std::string check(const Expected &expected) {
    for (size_t r = 0; r < expected.writes.size(); ++r) {
        const std::string why = check(expected.writes[r]);
        if (!why.empty()) {
            return "rank " + std::to_string(r) + ": " + why;
        }
    }
    return "";
}

size_t total_bytes(const Expected &expected) {
    size_t total = 0;
    for (const auto &list : expected.writes) {
        for (const Write &w : list) {
            total += w.bytes.size();
        }
    }
    return total;
}

}  // namespace ucc::model
