// The model's view of UCC datatypes, ops and collective types (API.md §3.3–3.6).
//
// Predefined datatypes are `id << 3` with id < UCC_DT_PREDEFINED_LAST (18); generic datatypes are a
// pointer OR-ed with 1. The model ASSUMES that the pointer part of a generic handle points at
//     struct { ucc_generic_dt_ops_t ops; void *context; }
// i.e. at a copy of the ops given to ucc_dt_create_generic, followed by its context. A generic
// datatype is modelled as opaque contiguous bytes of `ops.contig_size` bytes per element (whether
// or not UCC_GENERIC_DT_OPS_FLAG_CONTIG is set); its reductions go through `ops.reduce.cb`.
#pragma once

#include <ucc/api/ucc.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace ucc::model {

inline constexpr uint64_t kPredefinedDtCount = 18;  // UCC_DT_PREDEFINED_LAST
inline constexpr uint32_t kCollTypeCount = 16;      // UCC_COLL_TYPE_ALLGATHER .. _SCATTERV

// The integer stored in an enum field of a user struct, read without assuming it holds one of the
// enumerators (junk is legal input to the model, and loading an out-of-range enum is not).
template <class E>
int64_t raw_value(const E &field) {
    std::underlying_type_t<E> value;
    std::memcpy(&value, &field, sizeof value);
    return static_cast<int64_t>(value);
}

// Low 3 bits of the handle are 000, and the id is < 18.
bool is_predefined_dt(ucc_datatype_t dt);
// Low 3 bits of the handle are 001 (the pointer part may still be NULL).
bool is_generic_dt(ucc_datatype_t dt);
// Predefined id (0..17) of a predefined datatype.
constexpr uint64_t predefined_id(ucc_datatype_t dt) {
    return dt >> UCC_DATATYPE_SHIFT;
}
// The ops copy a generic handle points at (see the layout assumption above); NULL for a NULL
// pointer.
const ucc_generic_dt_ops_t *generic_ops(ucc_datatype_t dt);
// The pointer part of a generic handle, as the callback's `dt` argument.
ucc_dt_generic_t *generic_handle(ucc_datatype_t dt);
// Bytes per element: the §3.4 table for predefined types, contig_size for generic ones, 0 for
// anything else.
size_t element_size(ucc_datatype_t dt);

// A single UCC_COLL_TYPE_* bit (one of the 16 collective types).
bool is_coll_type(uint64_t coll_type);
bool is_rooted(uint64_t coll_type);
bool is_reduction(uint64_t coll_type);
// A v-variant: some rank describes a buffer by counts (and displacements) per member.
bool is_v(uint64_t coll_type);

std::string dt_name(ucc_datatype_t dt);
std::string op_name(int64_t op);
std::string coll_name(uint64_t coll_type);

}  // namespace ucc::model
