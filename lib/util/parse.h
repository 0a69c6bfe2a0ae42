// Strict parsing of decimal numbers in names and environment values.
#pragma once

#include <cstdint>
#include <string_view>

namespace ucc {

// Digits only (no sign, no spaces), at most UINT32_MAX.
inline bool parse_u32(std::string_view s, uint32_t *out) {
    if (s.empty() || s.size() > 10) {
        return false;
    }
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') {
            return false;
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v > UINT32_MAX) {
        return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
}

}  // namespace ucc
