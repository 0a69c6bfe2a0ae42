// Unknown variables in the environment: a misspelt UCC_ALLREDUCE_ALGO would
// otherwise be ignored in silence. Every <prefix>NAME that no configuration
// table (directly or under a component, UCC_TL_UCP_TUNE) and no bootstrap
// variable knows gets one warning with the closest known name.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "lib/boot/env.h"
#include "lib/core/config.h"
#include "lib/core/log.h"

extern char **environ;

namespace ucc::core {

namespace {

// Families of variables read by programs around the library (the test
// suites, plotting scripts, the simulator's programs), not by it.
constexpr const char *kOtherPrograms[] = {"PROPTEST_", "PLOT_", "TEST_", "DRIFT_", "FUZZ_", "SIM_"};

void add_table(std::span<const ConfigVar> table, const std::string &prefix,
               std::vector<std::string> *names, bool with_components) {
    for (const ConfigVar &v : table) {
        names->push_back(prefix + v.name);
        if (with_components) {
            for (const char *comp : config_components()) {
                names->push_back(prefix + comp + "_" + v.name);
            }
        }
    }
}

bool in_table(std::span<const ConfigVar> table, std::string_view name) {
    for (const ConfigVar &v : table) {
        if (name == v.name) {
            return true;
        }
    }
    return false;
}

// Whether `name` (the prefix stripped) is a variable of either table, directly
// or under a component, without building the list of every known name: a
// million simulated ranks each call ucc_init.
bool known_variable(std::string_view rest) {
    if (in_table(lib_config_table(), rest) || in_table(context_config_table(), rest)) {
        return true;
    }
    for (const char *comp : config_components()) {
        const std::string_view c = comp;
        if (rest.size() > c.size() + 1 && rest.substr(0, c.size()) == c && rest[c.size()] == '_') {
            const std::string_view var = rest.substr(c.size() + 1);
            if (in_table(lib_config_table(), var) || in_table(context_config_table(), var)) {
                return true;
            }
        }
    }
    return false;
}

}  // namespace

size_t edit_distance(const std::string &a, const std::string &b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

void warn_unknown_env(const std::string &prefix, const Logger &log) {
    if (!log.enabled(LogLevel::kWarn) || environ == nullptr) {
        return;
    }
    std::vector<std::string> known;  // built at the first unknown name only
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string_view entry = *e;
        const std::string_view name = entry.substr(0, entry.find('='));
        if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) {
            continue;
        }
        const std::string_view rest = name.substr(prefix.size());
        bool skip = known_variable(rest);
        for (const char *n : boot::env_contract_names()) {
            skip = skip || name == n;
        }
        for (const char *family : kOtherPrograms) {
            skip = skip || rest.substr(0, std::strlen(family)) == family;
        }
        if (skip) {
            continue;
        }
        if (known.empty()) {
            add_table(lib_config_table(), prefix, &known, true);
            add_table(context_config_table(), prefix, &known, true);
            for (const char *n : boot::env_contract_names()) {
                known.emplace_back(n);
            }
        }
        // The closest known name; among equals the first in table order.
        const std::string *best = nullptr;
        size_t best_d = 0;
        for (const std::string &k : known) {
            const size_t d = edit_distance(std::string(name), k);
            if (best == nullptr || d < best_d) {
                best = &k;
                best_d = d;
            }
        }
        log.log(LogLevel::kWarn, "%.*s is not a UCC variable here and is ignored (closest: %s)",
                static_cast<int>(name.size()), name.data(),
                best != nullptr ? best->c_str() : "none");
    }
}

}  // namespace ucc::core
