// Unknown variables in the environment: a misspelt UCC_ALLREDUCE_ALGO would
// otherwise be ignored in silence. Every <prefix>NAME that no configuration
// table (directly or under a component, UCC_TL_UCP_TUNE) and no bootstrap
// variable knows gets one warning with the closest known name.
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/boot/env.h"
#include "lib/core/config.h"
#include "lib/core/log.h"

extern char **environ;

namespace ucc::core {

namespace {

// Families of variables read by programs around the library (the test
// suites, plotting scripts), not by it.
constexpr const char *kOtherPrograms[] = {"PROPTEST_", "PLOT_", "TEST_", "DRIFT_", "FUZZ_"};

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
    std::vector<std::string> known;
    add_table(lib_config_table(), prefix, &known, true);
    add_table(context_config_table(), prefix, &known, true);
    for (const char *n : boot::env_contract_names()) {
        known.emplace_back(n);
    }
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) {
            continue;
        }
        const std::string rest = name.substr(prefix.size());
        bool skip = std::find(known.begin(), known.end(), name) != known.end();
        for (const char *family : kOtherPrograms) {
            skip = skip || rest.rfind(family, 0) == 0;
        }
        if (skip) {
            continue;
        }
        // The closest known name; among equals the first in table order.
        const std::string *best = nullptr;
        size_t best_d = 0;
        for (const std::string &k : known) {
            const size_t d = edit_distance(name, k);
            if (best == nullptr || d < best_d) {
                best = &k;
                best_d = d;
            }
        }
        log.log(LogLevel::kWarn, "%s is not a UCC variable here and is ignored (closest: %s)",
                name.c_str(), best != nullptr ? best->c_str() : "none");
    }
}

}  // namespace ucc::core
