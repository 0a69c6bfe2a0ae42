// A network named by a preset, spec or file (network_arg.h).
#include "lib/net/network_arg.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "lib/core/config.h"  // install_prefix
#include "lib/net/network_model.h"
#include "lib/util/parse.h"

namespace ucc::net {

namespace {

constexpr uint64_t kNodesMax = 1u << 20;

// Parses a spec; false with the parser's message, else its full description
// (and the model, into *model when given).
bool describe(const std::string &spec, std::string *described, NetworkModel *model = nullptr) {
    NetworkModel m;
    std::string error;
    if (parse_network(spec.c_str(), &m, &error) != UCC_OK) {
        *described = error;
        return false;
    }
    *described = m.describe();
    if (model != nullptr) {
        *model = m;
    }
    return true;
}

bool is_preset(const std::string &s) {
    return s == "hdr" || s == "eth100" || s == "slow" || s == "ideal";
}

// A bare name of an installed network file: <prefix>/share/ucc/networks/NAME
// or NAME.net ("" when there is none).
std::string installed(const std::string &name) {
    if (name.empty() || name.find('/') != std::string::npos) {
        return "";
    }
    const std::string prefix = core::install_prefix();
    if (prefix.empty()) {
        return "";
    }
    for (const std::string &p : {prefix + "/share/ucc/networks/" + name,
                                 prefix + "/share/ucc/networks/" + name + ".net"}) {
        if (std::ifstream(p)) {
            return p;
        }
    }
    return "";
}

bool read_file(const std::string &arg, NetworkArg *out, std::string *error) {
    const std::string found = std::ifstream(arg) ? "" : installed(arg);
    const std::string &path = found.empty() ? arg : found;
    std::ifstream in(path);
    if (!in) {
        *error = path +
                 ": not a preset (hdr, eth100, slow, ideal), not a spec (key=value,...), not "
                 "a readable file, and not a network installed in <prefix>/share/ucc/networks";
        return false;
    }
    std::string preset = "hdr";
    std::vector<std::string> items;
    uint32_t nodes = 0;
    std::string line;
    for (int line_no = 1; std::getline(in, line); ++line_no) {
        auto fail = [&](const std::string &why) {
            *error = path + ":" + std::to_string(line_no) + ": " + why;
            return false;
        };
        const size_t hash = line.find('#');
        if (hash != std::string::npos) {
            line.resize(hash);
        }
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        const size_t eq = line.find('=');
        if (eq == std::string::npos) {
            return fail("\"" + line + "\" is not key = value");
        }
        std::string key(trim(line.substr(0, eq)));
        std::string value(trim(line.substr(eq + 1)));
        if (key == "preset") {
            if (!is_preset(value)) {
                return fail("unknown preset \"" + value + "\" (hdr, eth100, slow, ideal)");
            }
            preset = value;
            continue;
        }
        if (key == "ranks_per_node") {
            key = "ppn";
        }
        if (key == "nodes") {
            const size_t x = value.find('x');
            const std::string_view n_str = x == std::string::npos
                                               ? std::string_view(value)
                                               : trim(std::string_view(value).substr(0, x));
            if (!parse_u32(n_str, &nodes) || nodes == 0 || nodes > kNodesMax) {
                return fail("nodes: \"" + value + "\" is not a node count (N or NxPPN)");
            }
            if (x == std::string::npos) {
                continue;
            }
            key = "ppn";
            value = trim(value.substr(x + 1));
        }
        const std::string item = key + "=" + value;
        std::string msg;
        if (!describe("hdr," + item, &msg)) {
            // The simulator's message names the key and what it expected.
            const size_t colon = msg.find("\": ");
            return fail(colon == std::string::npos ? msg : msg.substr(colon + 3));
        }
        items.push_back(item);
    }
    out->spec = preset;
    for (const std::string &item : items) {
        out->spec += "," + item;
    }
    if (nodes > 0) {
        // ppn as the model resolved it (the file's, or the preset's).
        std::string described;
        describe(out->spec, &described);
        const size_t p = described.find(",ppn=");
        const uint64_t ppn =
            p == std::string::npos ? 1 : std::strtoull(described.c_str() + p + 5, nullptr, 10);
        out->slots = uint64_t{nodes} * std::max<uint64_t>(ppn, 1);
    }
    return true;
}

}  // namespace

bool resolve_network(const std::string &arg, NetworkArg *out, std::string *error,
                     NetworkModel *model) {
    *out = NetworkArg{};
    if (arg.find('=') != std::string::npos || arg.find(',') != std::string::npos ||
        is_preset(arg)) {
        out->spec = arg;
    } else if (!read_file(arg, out, error)) {
        return false;
    }
    if (!describe(out->spec, &out->described, model)) {
        *error = out->described;
        return false;
    }
    return true;
}

}  // namespace ucc::net
