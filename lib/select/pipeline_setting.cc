// The values of cl/hier's pipeline variables (lib/coll/patterns/pipeline.h),
// the reference's pipeline params: "n", "auto", or ':'-separated tokens
// thresh=, fragsize=, nfrags=, pdepth= and an order name. As the
// reference's parser: an unknown key=value token is skipped, any other token
// that is not an order is an error, and every key left out keeps its default.
#include <strings.h>

#include <string>

#include "lib/select/select.h"
#include "lib/select/tokens.h"

namespace ucc::select {

bool parse_pipeline(const std::string &value, coll::PipelineSetting *out, std::string *error) {
    if (value.empty()) {
        *error = "an empty pipeline setting";
        return false;
    }
    coll::PipelineSetting p;
    if (strcasecmp(value.c_str(), "n") == 0 || strcasecmp(value.c_str(), "auto") == 0) {
        *out = p;  // never pipelined
        return true;
    }
    for (const std::string &token : split(value, ':')) {
        if (strcasecmp(token.c_str(), "parallel") == 0 ||
            strcasecmp(token.c_str(), "ordered") == 0 ||
            strcasecmp(token.c_str(), "sequential") == 0) {
            continue;  // every order runs as sequential (pipeline.h)
        }
        const size_t eq = token.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == token.size() ||
            token.find('=', eq + 1) != std::string::npos) {
            *error = "'" + token +
                     "' is neither key=value nor an order (parallel, ordered, "
                     "sequential)";
            return false;
        }
        const std::string key = token.substr(0, eq);
        const std::string v = token.substr(eq + 1);
        uint64_t units = 0;
        if (key == "thresh" || key == "fragsize") {
            if (!parse_units(v, &units)) {
                *error = "'" + v + "' is not a memory size (" + key + ")";
                return false;
            }
            (key == "thresh" ? p.threshold : p.frag_bytes) = units;
        } else if (key == "nfrags" || key == "pdepth") {
            if (!all_digits(v) || std::stoull(v) > UINT32_MAX) {
                *error = "'" + v + "' is not a number (" + key + ")";
                return false;
            }
            (key == "nfrags" ? p.frags : p.depth) = static_cast<uint32_t>(std::stoull(v));
        }
    }
    *out = p;
    return true;
}

}  // namespace ucc::select
