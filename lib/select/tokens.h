// The tokens of the reference's configuration strings (TUNE strings, the
// ranged radix variables): lists, numbers, memory units and memory types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ucc::select {

// `s` cut at every `sep`, empty pieces left out.
std::vector<std::string> split(const std::string &s, char sep);
// Digits only, at most 18 of them.
bool all_digits(const std::string &s);
// A memory type's name (host, cuda, cuda_managed, rocm, rocm_managed; any
// case): its ucc_memory_type_t value.
bool mem_from_name(const std::string &s, uint32_t *bit);
// Memory units: N[b|k|m|g|t][b], or inf / auto (no limit: UINT64_MAX).
bool parse_units(const std::string &s, uint64_t *out);

}  // namespace ucc::select
