// Datatype metadata and the host reduction kernels.
//
// The element arithmetic (codecs and ops) is lib/dt/elem.h, shared with the CUDA
// kernels. One constexpr table, built from its type and op lists, holds per datatype
// its name, size, one kernel per supported op and its AVG finaliser, so a reduction
// costs one table lookup and then a tight loop with no per-element switch.
#include "lib/dt/dt.h"

#include <cstring>

#include "lib/dt/elem.h"
#include "lib/util/common.h"

// Complex products must not be contracted into fused multiply-adds, or results would
// differ between machines. GCC keeps contraction off in ISO mode (-std=c++20, our
// build); clang contracts within an expression by default, so switch it off here.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

// Marks a loop whose iterations are independent: dst may alias a source only exactly,
// so element i is read before it is written and never read again. With a fixed trip
// count this is what lets the -O2 (very cheap) vectoriser take the loop. Clang
// reports loops it still cannot vectorise (float16 conversions): that is expected.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#define UCC_DT_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define UCC_DT_INDEPENDENT _Pragma("GCC ivdep")
#else
#define UCC_DT_INDEPENDENT
#endif

namespace ucc::dt {
namespace {

using namespace elem;

using AvgFn = void (*)(void *buf, size_t count, uint64_t n);

// Elements per inner block: a fixed trip count the vectoriser can take whole.
constexpr size_t kBlock = 16;

constexpr size_t kOpCount = UCC_OP_LAST;

template <class Tr, class Op>
void reduce_kernel(void *dst, const void *a, const void *b, size_t count) {
    Byte *d = static_cast<Byte *>(dst);
    const Byte *x = static_cast<const Byte *>(a);
    const Byte *y = static_cast<const Byte *>(b);
    size_t i = 0;
    // Whole blocks first, each a fixed-length independent loop (vectorised where the
    // codec allows), then the remaining count % kBlock elements one by one.
    for (; i + kBlock <= count; i += kBlock) {
        Byte *db = d + i * Tr::kSize;
        const Byte *xb = x + i * Tr::kSize;
        const Byte *yb = y + i * Tr::kSize;
        UCC_DT_INDEPENDENT
        for (size_t j = 0; j < kBlock; ++j) {
            reduce_one<Tr, Op>(db, xb, yb, j);
        }
    }
    for (; i < count; ++i) {
        reduce_one<Tr, Op>(d, x, y, i);
    }
}

template <class Tr>
void avg_kernel(void *buf, size_t count, uint64_t n) {
    for (size_t i = 0; i < count; ++i) {
        avg_one<Tr>(static_cast<Byte *>(buf), i, n);
    }
}

// ---- the datatype table ------------------------------------------------------------------

struct TypeInfo {
    const char *name;
    size_t size;
    Class cls;
    ReduceFn ops[kOpCount];  // nullptr: unsupported
    AvgFn avg;
    bool device;  // a GPU has the type (elem.h kDevice)
};

template <class Tr>
constexpr TypeInfo make_info(const char *name) {
    TypeInfo t{name, Tr::kSize, Tr::kClass, {}, &avg_kernel<Tr>, Tr::kDevice};
    for_each_op<Tr>([&t]<class Op>(ucc_reduction_op_t op) { t.ops[op] = &reduce_kernel<Tr, Op>; });
    return t;
}

// Indexed by predefined id, in the order of the API.md §3.4 table (elem::for_each_type).
constexpr auto make_types() {
    struct Table {
        TypeInfo t[kPredefinedCount];
    } table{};
    for_each_type(
        [&table]<class Tr>(uint64_t id, const char *name) { table.t[id] = make_info<Tr>(name); });
    return table;
}
constexpr auto kTable = make_types();
constexpr const TypeInfo *kTypes = kTable.t;

constexpr const char *kOpNames[kOpCount] = {"sum",    "prod",   "max",  "min", "land",
                                            "lor",    "lxor",   "band", "bor", "bxor",
                                            "maxloc", "minloc", "avg"};

// The table entry of a predefined datatype, nullptr for anything else.
const TypeInfo *info_of(ucc_datatype_t dt) {
    if ((dt & UCC_DATATYPE_CLASS_MASK) != UCC_DATATYPE_PREDEFINED) {
        return nullptr;
    }
    const uint64_t id = dt >> UCC_DATATYPE_SHIFT;
    return id < kPredefinedCount ? &kTypes[id] : nullptr;
}

ReduceFn kernel_of(ucc_datatype_t dt, ucc_reduction_op_t op) {
    const TypeInfo *t = info_of(dt);
    const auto op_index = static_cast<uint64_t>(op);
    if (t == nullptr || op_index >= kOpCount) {
        return nullptr;
    }
    return t->ops[op_index];
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequal(const char *a, const char *b) {
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        if (ascii_lower(*a) != ascii_lower(*b)) {
            return false;
        }
    }
    return *a == *b;
}

// s without a leading `prefix` (compared case-insensitively), or s itself.
const char *skip_prefix(const char *s, const char *prefix) {
    const char *p = s;
    for (; *prefix != '\0'; ++p, ++prefix) {
        if (ascii_lower(*p) != *prefix) {
            return s;
        }
    }
    return p;
}

}  // namespace

bool is_predefined(ucc_datatype_t dt) {
    return info_of(dt) != nullptr;
}

bool is_generic(ucc_datatype_t dt) {
    return (dt & UCC_DATATYPE_CLASS_MASK) == UCC_DATATYPE_GENERIC;
}

bool is_valid(ucc_datatype_t dt) {
    return is_predefined(dt) || generic_of(dt) != nullptr;
}

bool is_float_like(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls != Class::kInteger;
}

bool is_complex(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls == Class::kComplex;
}

bool is_integer(ucc_datatype_t dt) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->cls == Class::kInteger;
}

size_t size_of(ucc_datatype_t dt) {
    if (const TypeInfo *t = info_of(dt)) {
        return t->size;
    }
    if (const Generic *g = generic_of(dt)) {
        return (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0 ? g->ops.contig_size : 0;
    }
    return 0;
}

const char *name(ucc_datatype_t dt) {
    if (const TypeInfo *t = info_of(dt)) {
        return t->name;
    }
    return generic_of(dt) != nullptr ? "generic" : "unknown";
}

const char *op_name(ucc_reduction_op_t op) {
    const auto index = static_cast<uint64_t>(op);
    return index < kOpCount ? kOpNames[index] : "unknown";
}

ucc_status_t parse_datatype(const char *s, ucc_datatype_t *out) {
    if (s == nullptr || out == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    const char *bare = skip_prefix(s, "ucc_dt_");
    for (uint64_t id = 0; id < kPredefinedCount; ++id) {
        if (iequal(bare, kTypes[id].name)) {
            *out = UCC_PREDEFINED_DT(id);
            return UCC_OK;
        }
    }
    return UCC_ERR_NOT_FOUND;
}

ucc_status_t parse_op(const char *s, ucc_reduction_op_t *out) {
    if (s == nullptr || out == nullptr) {
        return UCC_ERR_INVALID_PARAM;
    }
    const char *bare = skip_prefix(s, "ucc_op_");
    for (size_t i = 0; i < kOpCount; ++i) {
        if (iequal(bare, kOpNames[i])) {
            *out = static_cast<ucc_reduction_op_t>(i);
            return UCC_OK;
        }
    }
    return UCC_ERR_NOT_FOUND;
}

const Generic *generic_of(ucc_datatype_t dt) {
    if (!is_generic(dt)) {
        return nullptr;
    }
    const auto addr = static_cast<uintptr_t>(dt & ~static_cast<uint64_t>(UCC_DATATYPE_CLASS_MASK));
    return reinterpret_cast<const Generic *>(addr);
}

bool reduction_supported(ucc_datatype_t dt, ucc_reduction_op_t op) {
    if (const Generic *g = generic_of(dt)) {
        return (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) != 0 && g->ops.reduce.cb != nullptr;
    }
    return kernel_of(dt, op) != nullptr;
}

bool device_reducible(ucc_datatype_t dt, ucc_reduction_op_t op) {
    const TypeInfo *t = info_of(dt);
    return t != nullptr && t->device && kernel_of(dt, op) != nullptr;
}

ReduceFn reduce_fn(ucc_datatype_t dt, ucc_reduction_op_t op) {
    return kernel_of(dt, op);
}

void reduce(ucc_datatype_t dt, ucc_reduction_op_t op, void *dst, const void *a, const void *b,
            size_t count) {
    const ReduceFn fn = kernel_of(dt, op);
    UCC_ASSERT(fn != nullptr);
    if (fn != nullptr && count != 0) {
        fn(dst, a, b, count);
    }
}

ucc_status_t reduce_generic(const Generic &g, void *dst, const void *a, const void *b,
                            size_t count) {
    if ((g.ops.flags & UCC_GENERIC_DT_OPS_FLAG_REDUCE) == 0 || g.ops.reduce.cb == nullptr) {
        return UCC_ERR_NOT_SUPPORTED;
    }
    const size_t elem_size =
        (g.ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0 ? g.ops.contig_size : 0;
    ucc_reduce_cb_params_t params{};
    params.mask = 0;
    // The C struct has non-const source pointers; the callback only reads them.
    params.src1 = const_cast<void *>(a);
    params.src2 = const_cast<void *>(b);
    params.dst = dst;
    params.n_vectors = 1;
    params.count = count;
    params.stride = count * elem_size;
    params.dt = reinterpret_cast<ucc_dt_generic_t *>(const_cast<Generic *>(&g));
    params.cb_ctx = g.ops.reduce.cb_ctx;
    return g.ops.reduce.cb(&params);
}

bool is_packed_generic(ucc_datatype_t dt) {
    const Generic *g = generic_of(dt);
    return g != nullptr && (g->ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) == 0;
}

size_t packed_elem_size(const Generic &g, const void *sample) {
    void *st = g.ops.start_pack(g.context, sample, 1);
    if (st == nullptr) {
        return 0;
    }
    const size_t n = g.ops.packed_size(st);
    g.ops.finish(st);
    return n;
}

ucc_status_t pack(const Generic &g, const void *buf, uint64_t count, uint8_t *out, size_t bytes) {
    if (count == 0) {
        return UCC_OK;
    }
    void *st = g.ops.start_pack(g.context, buf, count);
    if (st == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    ucc_status_t result = UCC_OK;
    if (g.ops.packed_size(st) != bytes) {
        result = UCC_ERR_INVALID_PARAM;
    }
    for (size_t off = 0; result == UCC_OK && off < bytes;) {
        const size_t n = g.ops.pack(st, off, out + off, bytes - off);
        if (n == 0 || n > bytes - off) {
            result = UCC_ERR_INVALID_PARAM;  // no progress, or more than asked for
        }
        off += n;
    }
    g.ops.finish(st);
    return result;
}

ucc_status_t unpack(const Generic &g, void *buf, uint64_t count, const uint8_t *in, size_t bytes) {
    if (count == 0) {
        return UCC_OK;
    }
    void *st = g.ops.start_unpack(g.context, buf, count);
    if (st == nullptr) {
        return UCC_ERR_NO_RESOURCE;
    }
    const ucc_status_t result = g.ops.unpack(st, 0, in, bytes);
    g.ops.finish(st);
    return result;
}

void avg_finalize(ucc_datatype_t dt, void *buf, size_t count, uint64_t n) {
    const TypeInfo *t = info_of(dt);
    UCC_ASSERT(t != nullptr);
    if (t != nullptr && n != 0 && count != 0) {
        t->avg(buf, count, n);
    }
}

}  // namespace ucc::dt
