// A network as the tools (ucc_sim, ucc_perftest --sim, ucc_info -n) and a
// context (UCC_NETWORK) name it: a preset (hdr, eth100, slow, ideal), a spec string
// ("hdr,ppn=16,lat_inter=2us") or a file of key = value lines with '#'
// comments. A file's keys are the spec's plus `preset` (the base, default hdr)
// and `nodes` ("128", or "128x8", which also sets ppn); it becomes the
// equivalent spec string, and its nodes x ppn bounds the number of ranks. A
// bare name that is no file here may name an installed one:
// <prefix>/share/ucc/networks/NAME or NAME.net (e.g. "hdr-32x40").
#pragma once

#include <cstdint>
#include <string>

namespace ucc::net {

struct NetworkArg {
    std::string spec = "hdr";       // what the simulator is given
    std::string described = "hdr";  // the resolved model, every parameter
    uint64_t slots = 0;             // nodes x ppn of a file (0: unbounded)
};

struct NetworkModel;

// Resolves `arg` into *out (and the model it gives into *model, when not
// null); false with *error ("path:line: why", or the parser's own message)
// when it is none of the three.
bool resolve_network(const std::string &arg, NetworkArg *out, std::string *error,
                     NetworkModel *model = nullptr);

}  // namespace ucc::net
