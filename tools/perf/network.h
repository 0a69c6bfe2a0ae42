// The tools' network argument (ucc_sim, ucc_perftest --sim, ucc_replay,
// ucc_info -n): a preset, spec or network file as lib/net/network_arg.h
// describes them, resolved through the library's C API
// (ucc_sim_network_resolve), which tools linked to libucc.so can reach.
#pragma once

#include <string>

#include "lib/net/network_arg.h"

namespace ucc::perf {

using NetworkArg = net::NetworkArg;

// Resolves `arg` into *out; false with *error ("path:line: why", or the
// parser's own message) when it is none of the three.
bool resolve_network(const std::string &arg, NetworkArg *out, std::string *error);

}  // namespace ucc::perf
