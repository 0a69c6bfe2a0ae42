// Which transport serves a new context (lib/transport.h, "the transport
// registry").
//
// Default choice, first that applies: inside a simulated rank the simulator;
// a context whose OOB has more than one member a network transport (UCX); a
// context of one process (or none: no OOB) the loopback. UCC_TLS (the
// library's or the context's TLS variable) narrows the candidates: "all", a
// list ("ucx,self"; the reference's "ucp" names our UCX transport) that forces
// them in table order, or "^list" that excludes. A forced transport that
// cannot serve the context fails its creation with the transport's reason.
#include "lib/core/transport_select.h"

#include <algorithm>
#include <cctype>

namespace ucc::core {

namespace {

// The comma-separated names of a list, lower case, blanks dropped, empty
// items skipped. (Every context parses its TLS; no stream is built for it.)
std::vector<std::string> split_list(const std::string &s) {
    std::vector<std::string> out;
    std::string t;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == ',') {
            if (!t.empty()) {
                out.push_back(std::move(t));
                t.clear();
            }
        } else if (!std::isspace(static_cast<unsigned char>(s[i]))) {
            t += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
        }
    }
    return out;
}

bool is_named(const TransportEntry &e, const std::string &n) {
    return n == e.name || (e.alias != nullptr && n == e.alias);
}

}  // namespace

const TransportEntry *find_transport(const std::string &name) {
    for (const TransportEntry &e : transport_table()) {
        if (is_named(e, name)) {
            return &e;
        }
    }
    return nullptr;
}

ucc_status_t parse_tls(const std::string &tls, TlsChoice *out, std::string *why) {
    TlsChoice c;
    std::string s = tls;
    if (!s.empty() && s[0] == '^') {
        c.exclude = true;
        s = s.substr(1);
    }
    std::vector<std::string> items = split_list(s);
    if (items.empty() || (items.size() == 1 && items[0] == "all")) {
        *out = TlsChoice{};
        return UCC_OK;
    }
    c.all = false;
    for (const std::string &n : items) {
        if (n == "all") {
            *why = "TLS: 'all' cannot be combined with other names";
            return UCC_ERR_INVALID_PARAM;
        }
        if (find_transport(n) == nullptr) {
            // Names of transports not built here (the reference's cuda, nccl,
            // sharp, ...) are accepted and match nothing.
            continue;
        }
        c.names.push_back(n);
    }
    *out = std::move(c);
    return UCC_OK;
}

bool list_allows(const std::string &list, const std::string &name) {
    const bool exclude = !list.empty() && list[0] == '^';
    const std::vector<std::string> items = split_list(exclude ? list.substr(1) : list);
    if (items.empty() || (items.size() == 1 && items[0] == "all")) {
        return true;
    }
    const bool listed = std::find(items.begin(), items.end(), name) != items.end();
    return exclude ? !listed : listed;
}

bool TlsChoice::allows(const TransportEntry &e) const {
    if (all) {
        return true;
    }
    bool listed = std::any_of(names.begin(), names.end(),
                              [&](const std::string &n) { return is_named(e, n); });
    return exclude ? !listed : listed;
}

ucc_status_t select_transport(const TlsChoice &tls, const TransportParams &p,
                              std::unique_ptr<Transport> *out, const TransportEntry **chosen,
                              std::string *why) {
    std::string reasons;
    const TransportEntry *first_allowed = nullptr;
    // Inside a rank of an in-process world (a simulation), other ranks are
    // reached through the world's own transport only: another one would
    // wait for peers that never run (the ranks take turns in one thread).
    const bool world_rank = run_share_slot() != nullptr;
    const auto outside_world = [&](const TransportEntry &e) {
        return world_rank && e.run_share == nullptr && p.has_oob && p.n_oob_eps > 1;
    };
    const char *const kOutside = "cannot reach the other ranks of a simulated world";
    for (const TransportEntry &e : transport_table()) {
        if (!tls.allows(e)) {
            continue;
        }
        if (first_allowed == nullptr) {
            first_allowed = &e;
        }
        std::string r;
        if (outside_world(e)) {
            reasons += std::string(reasons.empty() ? "" : "; ") + e.name + ": " + kOutside;
            continue;
        }
        if (!e.available(p, &r)) {
            reasons += std::string(reasons.empty() ? "" : "; ") + e.name + ": " + r;
            continue;
        }
        ucc_status_t st = e.create(p, out, &r);
        if (st != UCC_OK) {
            *why = std::string("the ") + e.name + " transport failed: " + r;
            return st;
        }
        *chosen = &e;
        return UCC_OK;
    }
    if (first_allowed != nullptr && !tls.all && !tls.exclude) {
        // Forced: the first listed transport serves, or says why it cannot.
        std::string r = kOutside;
        ucc_status_t st = outside_world(*first_allowed) ? UCC_ERR_NOT_SUPPORTED
                                                        : first_allowed->create(p, out, &r);
        if (st == UCC_OK) {
            *chosen = first_allowed;
            return UCC_OK;
        }
        *why = std::string("the ") + first_allowed->name + " transport (forced by TLS) cannot " +
               "serve this context: " + r;
        return st;
    }
    *why = first_allowed == nullptr
               ? "TLS excludes every transport built in (" + transport_names() + ")"
               : "no transport can serve this context (" + reasons + ")";
    return UCC_ERR_NOT_FOUND;
}

std::string transport_names() {
    std::string s;
    for (const TransportEntry &e : transport_table()) {
        s += std::string(s.empty() ? "" : ", ") + e.name;
    }
    return s;
}

std::unique_ptr<RunShare> *run_share_slot() {
    for (const TransportEntry &e : transport_table()) {
        if (e.run_share != nullptr) {
            if (std::unique_ptr<RunShare> *slot = e.run_share(); slot != nullptr) {
                return slot;
            }
        }
    }
    return nullptr;
}

}  // namespace ucc::core
