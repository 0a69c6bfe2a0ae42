// Strict parsing of decimal numbers in names and environment values, and trimming
// of white space around the items of specs, config lines and variable values.
#pragma once

#include <cctype>
#include <cstdint>
#include <string_view>

namespace ucc {

// `s` without leading and trailing white space (a view into `s`: keep `s` alive).
inline std::string_view trim(std::string_view s) {
    size_t b = 0;
    size_t e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) {
        ++b;
    }
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) {
        --e;
    }
    return s.substr(b, e - b);
}

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
