// Choosing a context's transport from the registry (lib/transport.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/transport.h"

namespace ucc::core {

// A parsed TLS value: "all" (or empty), "a,b" (only these) or "^a,b" (not these).
struct TlsChoice {
    bool all = true;
    bool exclude = false;
    std::vector<std::string> names;  // lower case, built-in transports only
    bool allows(const TransportEntry &e) const;
};

ucc_status_t parse_tls(const std::string &tls, TlsChoice *out, std::string *why);

// Whether an allow list ("all", "a,b", "^a,b"; empty: all) lets `name` in,
// for names that are no transport of ours (the reference's sharp).
bool list_allows(const std::string &list, const std::string &name);

// The entry named `name` (or its alias), or nullptr.
const TransportEntry *find_transport(const std::string &name);
// "sim, ucx, self": the transports built in.
std::string transport_names();

// Creates the transport that serves a context with params `p`.
ucc_status_t select_transport(const TlsChoice &tls, const TransportParams &p,
                              std::unique_ptr<Transport> *out, const TransportEntry **chosen,
                              std::string *why);

// Inside a rank of a world that runs many ranks in this process: that run's
// slot for the core's RunShare (TransportEntry::run_share); null elsewhere.
std::unique_ptr<RunShare> *run_share_slot();

}  // namespace ucc::core
