// The tokens of the reference's configuration strings (TUNE strings, the
// ranged radix variables): lists, numbers, memory units and memory types.
#include "lib/select/tokens.h"

#include <strings.h>

#include <cctype>
#include <cstdlib>

#include "ucc/api/ucc.h"

namespace ucc::select {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t b = 0;
    while (b <= s.size()) {
        size_t e = s.find(sep, b);
        if (e == std::string::npos) {
            e = s.size();
        }
        if (e > b) {
            out.push_back(s.substr(b, e - b));
        }
        b = e + 1;
    }
    return out;
}

bool all_digits(const std::string &s) {
    if (s.empty() || s.size() > 18) {
        return false;
    }
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            return false;
        }
    }
    return true;
}

bool mem_from_name(const std::string &s, uint32_t *bit) {
    static constexpr struct {
        const char *name;
        ucc_memory_type_t mem;
    } kMem[] = {{"host", UCC_MEMORY_TYPE_HOST},
                {"cuda", UCC_MEMORY_TYPE_CUDA},
                {"cuda_managed", UCC_MEMORY_TYPE_CUDA_MANAGED},
                {"cudamanaged", UCC_MEMORY_TYPE_CUDA_MANAGED},
                {"rocm", UCC_MEMORY_TYPE_ROCM},
                {"rocm_managed", UCC_MEMORY_TYPE_ROCM_MANAGED},
                {"rocmmanaged", UCC_MEMORY_TYPE_ROCM_MANAGED}};
    for (const auto &m : kMem) {
        if (strcasecmp(s.c_str(), m.name) == 0) {
            *bit = static_cast<uint32_t>(m.mem);
            return true;
        }
    }
    return false;
}

// Memory units: N[b|k|m|g|t][b], or inf / auto (no limit).
bool parse_units(const std::string &s, uint64_t *out) {
    if (strcasecmp(s.c_str(), "inf") == 0 || strcasecmp(s.c_str(), "auto") == 0) {
        *out = UINT64_MAX;
        return true;
    }
    size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        ++i;
    }
    if (i == 0 || i > 18) {
        return false;
    }
    uint64_t v = std::strtoull(s.substr(0, i).c_str(), nullptr, 10);
    std::string suffix = s.substr(i);
    for (char &c : suffix) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (suffix.size() == 2 && suffix[1] == 'b' && suffix[0] != 'b') {
        suffix.resize(1);
    }
    int shift = 0;
    if (suffix.empty() || suffix == "b") {
        shift = 0;
    } else if (suffix == "k") {
        shift = 10;
    } else if (suffix == "m") {
        shift = 20;
    } else if (suffix == "g") {
        shift = 30;
    } else if (suffix == "t") {
        shift = 40;
    } else {
        return false;
    }
    if (shift > 0 && v > (UINT64_MAX >> shift)) {
        return false;
    }
    *out = v << shift;
    return true;
}

}  // namespace ucc::select
