// The values of the radix variables (lib/coll/radix.h): "auto", a number,
// or for the reference's ranged ones (UINT_RANGED) comma-separated tokens
// of a bytes range, memory types joined by '^' and a value, any of the
// first two left out ("0-4k:host:2,4k-inf:8"; a number alone is the
// default). Ranges include both ends, as the reference's.
#include <strings.h>

#include <string>

#include "lib/coll/radix.h"
#include "lib/select/select.h"
#include "lib/select/tokens.h"

namespace ucc::select {

namespace {

constexpr uint32_t kMinRadix = 2;
constexpr uint32_t kMaxRadix = 64;

// "auto" (0) or a radix in range.
bool parse_value(const std::string &s, uint32_t *out, std::string *error) {
    if (strcasecmp(s.c_str(), "auto") == 0) {
        *out = 0;
        return true;
    }
    if (!all_digits(s)) {
        *error = "'" + s + "' is not a number or auto";
        return false;
    }
    const uint64_t v = std::stoull(s);
    if (v < kMinRadix || v > kMaxRadix) {
        *error = "radix " + s + " is outside 2..64";
        return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
}

bool parse_range(const std::string &s, coll::RadixRange *r) {
    const size_t dash = s.find('-');
    return dash != std::string::npos && parse_units(s.substr(0, dash), &r->lo) &&
           parse_units(s.substr(dash + 1), &r->hi) && r->lo <= r->hi;
}

bool parse_mems(const std::string &s, uint32_t *mask) {
    *mask = 0;
    for (const std::string &m : split(s, '^')) {
        uint32_t bit = 0;
        if (!mem_from_name(m, &bit)) {
            return false;
        }
        *mask |= 1u << bit;
    }
    return *mask != 0;
}

}  // namespace

bool parse_radix(const std::string &value, bool ranged, coll::RadixSetting *out,
                 std::string *error) {
    *out = {};
    if (!ranged) {
        return parse_value(value, &out->value, error);
    }
    const std::vector<std::string> tokens = split(value, ',');
    if (tokens.empty()) {
        *error = "empty value";
        return false;
    }
    for (const std::string &token : tokens) {
        const std::vector<std::string> fields = split(token, ':');
        if (fields.empty() || fields.size() > 3) {
            *error = "'" + token + "' is not [range:][memtypes:]value";
            return false;
        }
        uint32_t v = 0;
        if (!parse_value(fields.back(), &v, error)) {
            return false;
        }
        if (fields.size() == 1) {
            out->value = v;
            continue;
        }
        coll::RadixRange r;
        r.value = v;
        for (size_t i = 0; i + 1 < fields.size(); ++i) {
            uint32_t mask = 0;
            if (parse_mems(fields[i], &mask)) {
                r.mem_mask = mask;
            } else if (!parse_range(fields[i], &r)) {
                *error = "'" + fields[i] + "' in '" + token +
                         "' is neither a bytes range (lo-hi) nor memory types";
                return false;
            }
        }
        out->ranges.push_back(r);
    }
    return true;
}

}  // namespace ucc::select
