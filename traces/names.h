// The names the trace format (FORMAT.md) writes for the C API's enumerations:
// collective types, predefined datatypes, reductions, memory types, statuses,
// collective flags and team orderings. One table each, read by the recorder
// (in the library) and the reader (traces/reader.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ucc/api/ucc.h"

namespace ucc::traces {

// nullptr for a value without a name (not a single collective type bit, an
// unknown enumerator, a generic datatype).
const char *coll_name(uint64_t coll_type);
const char *dt_name(ucc_datatype_t dt);  // predefined only
const char *op_name(int64_t op);
const char *mem_name(int64_t mem);
const char *status_name(int64_t status);
const char *ordering_name(int64_t ordering);
const char *thread_mode_name(int64_t mode);

std::optional<ucc_coll_type_t> coll_of(std::string_view name);
std::optional<ucc_datatype_t> dt_of(std::string_view name);
std::optional<ucc_reduction_op_t> op_of(std::string_view name);
std::optional<ucc_memory_type_t> mem_of(std::string_view name);
std::optional<ucc_status_t> status_of(std::string_view name);
std::optional<ucc_post_ordering_t> ordering_of(std::string_view name);

// Collective flags (UCC_COLL_ARGS_FLAG_*): bit i's name, nullptr beyond the
// known bits; and the bit of a name (0 when unknown).
const char *flag_name(unsigned bit);
uint64_t flag_of(std::string_view name);
inline constexpr unsigned kFlagBits = 10;

}  // namespace ucc::traces
