// Active sets (P31, P32; trace.h states each property): messages stay
// between an active set's members, and concurrent active-set instances keep
// their messages apart.
#include "model/trace.h"

#include <string>

#include "model/trace_util.h"

namespace ucc::model {

using detail::message_balance;
using detail::same_key_overlap;

Findings check_p31_active_set(const TraceIndex &ix) {
    // Membership findings only (the balance findings are P32's; completion is P20's).
    Findings out;
    for (const Finding &x : message_balance(ix, 31, true)) {
        if (x.what.find("not a participant") != std::string::npos) {
            out.push_back(x);
        }
    }
    return out;
}

Findings check_p32_active_set_isolation(const TraceIndex &ix) {
    Findings f;
    for (const Finding &x : message_balance(ix, 32, true)) {
        if (x.what.find("not a participant") == std::string::npos) {
            f.push_back(x);
        }
    }
    Findings o = same_key_overlap(ix, 32, true);
    f.insert(f.end(), o.begin(), o.end());
    return f;
}

}  // namespace ucc::model
