// libFuzzer target: the argument checks of ucc_collective_init
// (validate_coll_args, rules V1..V11 of model/VALIDITY.md) on a
// ucc_coll_args_t built from the input, for a team of 1..64 ranks, any rank,
// ordered or not, with or without real buffers (timing-only).
//
// The args are filled as a C program may fill them: fields no rule reads
// hold junk (VALIDITY.md, "Fields read"), enum fields any integer. The union
// member of src and dst is the one the collective type's table in
// VALIDITY.md names (info_v for the v-variants), and each v-array holds
// exactly one entry per member of the collective (the team's size, or the
// active set's) of the width the effective flags give, in its own heap
// block: the validator may read all of it and nothing more (ASan).
// Generic datatypes are real descriptors.
//
// Checks: no crash or sanitizer report, in the validator or in what
// ucc_collective_init runs next on accepted args (normalize_coll_args); the
// status is OK, INVALID_PARAM or NOT_SUPPORTED, with a reason exactly when
// it is not OK, and the same without a reason asked for; and, with real
// buffers and contiguous datatypes, exactly model::expected_init_status, the
// independent model of the rules (the property test
// Validity.InitStatusMatchesModel draws its cases from a grammar; this
// explores the bytes). Built and run by scripts/fuzz.sh.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "lib/core/core.h"
#include "lib/dt/dt.h"
#include "model/validity.h"

namespace {

void check(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

// Stores any integer into an enum field, as C may (never an enum load here).
template <class E>
void set_raw(E *field, int64_t v) {
    static_assert(sizeof(E) <= sizeof v);
    std::memcpy(field, &v, sizeof(E));  // the low bytes (little-endian)
}

ucc_status_t reduce_nothing(const ucc_reduce_cb_params_t *) {
    return UCC_OK;
}

// Generic datatypes: contiguous ones of several sizes, reducing or not, one
// that claims to reduce without a callback, one packed (no CONTIG flag).
struct Generics {
    ucc::dt::Generic g[7] = {};
    Generics() {
        const struct {
            uint64_t flags;
            size_t size;
            bool cb;
        } kinds[] = {
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG, 8, false},
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE, 4, true},
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE, 2, false},
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE, 0, true},
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG, std::numeric_limits<size_t>::max(), false},
            {UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE, size_t{1} << 62,
             true},
            {UCC_GENERIC_DT_OPS_FLAG_REDUCE, 24, true},  // packed
        };
        static_assert(std::size(kinds) == std::size(decltype(g){}));
        for (size_t i = 0; i < std::size(g); ++i) {
            g[i].ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
            g[i].ops.flags = kinds[i].flags;
            g[i].ops.contig_size = kinds[i].size;
            g[i].ops.reduce.cb = kinds[i].cb ? reduce_nothing : nullptr;
        }
    }
    ucc_datatype_t handle(size_t i) const {
        return reinterpret_cast<uintptr_t>(&g[i]) | UCC_DATATYPE_GENERIC;
    }
};
const Generics kGenerics;

// Counts, displacements and roots: small, powers of two, all ones below a
// power of two (the overflow edges), or any 64 bits.
uint64_t number(FuzzedDataProvider &in) {
    const uint8_t sel = in.ConsumeIntegral<uint8_t>();
    if (sel < 0x80) {
        return sel;
    }
    if (sel < 0xC0) {
        return uint64_t{1} << (sel - 0x80);
    }
    if (sel < 0xF0) {
        return ~uint64_t{0} >> (sel - 0xC0);
    }
    return in.ConsumeIntegral<uint64_t>();
}

// A datatype: predefined ids (some past the last), the generics above, the
// NULL generic handle, or junk that is never a generic handle (nothing may
// dereference it). `contig` turns false for a packed generic.
ucc_datatype_t datatype(FuzzedDataProvider &in, bool *contig) {
    const uint8_t sel = in.ConsumeIntegral<uint8_t>();
    constexpr size_t kIds = 24;
    if (sel < kIds) {
        return UCC_PREDEFINED_DT(sel);
    }
    if (sel < kIds + std::size(kGenerics.g)) {
        const size_t i = sel - kIds;
        *contig = *contig && (kGenerics.g[i].ops.flags & UCC_GENERIC_DT_OPS_FLAG_CONTIG) != 0;
        return kGenerics.handle(i);
    }
    if (sel < 0xF0) {
        return UCC_DATATYPE_GENERIC;  // generic, NULL pointer part
    }
    const uint64_t v = in.ConsumeIntegral<uint64_t>();
    return (v & UCC_DATATYPE_CLASS_MASK) == UCC_DATATYPE_GENERIC ? v & ~uint64_t{1} : v;
}

// A memory type: around the enum's range (UNKNOWN is LAST), or any int.
int64_t mem_type(FuzzedDataProvider &in) {
    const uint8_t sel = in.ConsumeIntegral<uint8_t>();
    if (sel < 0xF0) {
        return static_cast<int64_t>(sel % 10) - 1;
    }
    return in.ConsumeIntegral<int32_t>();
}

// One v-array: `entries` entries of 4 or 8 bytes in a block of exactly that
// size (ASan catches a read past it), or none (NULL).
struct VArray {
    std::vector<uint32_t> narrow;
    std::vector<uint64_t> wide;
    void *fill(FuzzedDataProvider &in, uint32_t entries, bool is64) {
        if (in.ConsumeIntegral<uint8_t>() == 0xFF) {
            return nullptr;
        }
        if (is64) {
            wide.resize(entries);
            for (uint64_t &e : wide) {
                e = number(in);
            }
            return wide.data();
        }
        narrow.resize(entries);
        for (uint32_t &e : narrow) {
            e = static_cast<uint32_t>(number(in));
        }
        return narrow.data();
    }
};

uint8_t g_buffer[1];  // a buffer the validator must never touch

void *buffer(FuzzedDataProvider &in) {
    return in.ConsumeBool() ? static_cast<void *>(g_buffer) : nullptr;
}

double timeout(FuzzedDataProvider &in) {
    const double kValues[] = {
        std::nan(""), INFINITY, -INFINITY, 0.0,    -0.0,
        -1.0,         1e-300,   1.0,       5e-324, std::numeric_limits<double>::max()};
    const uint8_t sel = in.ConsumeIntegral<uint8_t>();
    return sel < std::size(kValues) ? kValues[sel] : in.ConsumeFloatingPoint<double>();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FuzzedDataProvider in(data, size);
    const uint32_t n = 1 + in.ConsumeIntegral<uint8_t>() % 64;
    const uint32_t rank = in.ConsumeIntegral<uint8_t>() % n;
    const uint8_t team = in.ConsumeIntegral<uint8_t>();
    const bool ordered = (team & 1) == 0;
    const bool timing_only = (team & 2) != 0;

    ucc_coll_args_t a;
    std::memset(&a, in.ConsumeIntegral<uint8_t>(), sizeof a);  // junk in what no rule reads
    a.mask = in.ConsumeIntegral<uint16_t>();
    const uint8_t type_sel = in.ConsumeIntegral<uint8_t>();
    const int64_t type = type_sel < 16 ? int64_t{1} << type_sel
                         : type_sel < 0xF0
                             ? static_cast<int64_t>(type_sel & 0x1F)  // 0, several bits
                             : in.ConsumeIntegral<int32_t>();
    set_raw(&a.coll_type, type);
    a.flags = in.ConsumeIntegral<uint16_t>();
    if (in.ConsumeIntegral<uint8_t>() == 0xFF) {
        a.flags |= in.ConsumeIntegral<uint64_t>();
    }
    a.timeout = timeout(in);
    a.root = in.ConsumeBool() ? in.ConsumeIntegral<uint8_t>() % (n + 2) : number(in);
    a.tag = in.ConsumeIntegral<uint16_t>();
    a.active_set.start = in.ConsumeBool() ? in.ConsumeIntegral<uint8_t>() % (n + 1) : number(in);
    a.active_set.stride =
        in.ConsumeBool() ? in.ConsumeIntegral<int8_t>() : static_cast<int64_t>(number(in));
    a.active_set.size = in.ConsumeBool() ? in.ConsumeIntegral<uint8_t>() % (n + 2) : number(in);
    set_raw(&a.op,
            in.ConsumeBool() ? in.ConsumeIntegral<uint8_t>() % 16 : in.ConsumeIntegral<int32_t>());

    // Which member of each union a program fills: VALIDITY.md's table.
    const uint64_t t = static_cast<uint64_t>(type);
    const bool src_v = t == UCC_COLL_TYPE_ALLTOALLV || t == UCC_COLL_TYPE_SCATTERV;
    const bool dst_v = t == UCC_COLL_TYPE_ALLGATHERV || t == UCC_COLL_TYPE_ALLTOALLV ||
                       t == UCC_COLL_TYPE_GATHERV || t == UCC_COLL_TYPE_REDUCE_SCATTERV;
    // The members of the collective: the active set's when it can be one
    // (a set that cannot is refused by V5 before any array is read).
    const bool flags_field = (a.mask & UCC_COLL_ARGS_FIELD_FLAGS) != 0;
    const bool c64 = flags_field && (a.flags & UCC_COLL_ARGS_FLAG_COUNT_64BIT) != 0;
    const bool d64 = flags_field && (a.flags & UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT) != 0;
    const bool set = (a.mask & UCC_COLL_ARGS_FIELD_ACTIVE_SET) != 0;
    const uint32_t entries = set && a.active_set.size >= 1 && a.active_set.size <= n
                                 ? static_cast<uint32_t>(a.active_set.size)
                                 : n;
    bool contig = true;
    VArray arrays[4];
    auto fill_side = [&](ucc_coll_buffer_info_t *info, ucc_coll_buffer_info_v_t *info_v, bool v,
                         VArray *counts, VArray *displs) {
        if (v) {
            info_v->buffer = buffer(in);
            info_v->counts = static_cast<ucc_count_t *>(counts->fill(in, entries, c64));
            info_v->displacements = static_cast<ucc_aint_t *>(displs->fill(in, entries, d64));
            info_v->datatype = datatype(in, &contig);
            set_raw(&info_v->mem_type, mem_type(in));
        } else {
            info->buffer = buffer(in);
            info->count = number(in);
            info->datatype = datatype(in, &contig);
            set_raw(&info->mem_type, mem_type(in));
        }
    };
    fill_side(&a.src.info, &a.src.info_v, src_v, &arrays[0], &arrays[1]);
    fill_side(&a.dst.info, &a.dst.info_v, dst_v, &arrays[2], &arrays[3]);

    std::string why;
    const ucc_status_t st = ucc::core::validate_coll_args(a, n, rank, ordered, &why, timing_only);
    check(st == UCC_OK || st == UCC_ERR_INVALID_PARAM || st == UCC_ERR_NOT_SUPPORTED);
    check((st == UCC_OK) == why.empty());
    check(ucc::core::validate_coll_args(a, n, rank, ordered, nullptr, timing_only) == st);
    if (st == UCC_OK && !set) {
        // What ucc_collective_init does next with the team's own view.
        ucc::coll::Args x;
        ucc::core::normalize_coll_args(a, n, rank, &x, timing_only);
        (void)ucc::core::coll_is_trivial(x, n);
    }
    if (timing_only || !contig) {
        return 0;  // outside the model: NULL buffers allowed, packed datatypes
    }
    std::string model_why;
    const ucc_status_t want =
        ucc::model::expected_init_status(a, ucc::model::TeamView{n, rank, ordered}, &model_why);
    if (st != want) {
        std::fprintf(stderr, "validate_coll_args: status %d (%s); the model: %d (%s)\n",
                     static_cast<int>(st), why.c_str(), static_cast<int>(want), model_why.c_str());
        __builtin_trap();
    }
    return 0;
}
