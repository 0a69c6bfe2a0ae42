// libFuzzer target: the configuration parsers, on arbitrary bytes. The first
// byte picks the parser, the rest is its text:
//   0  parse_size ("64K", "1m", ...): a size it accepts reads back from its
//      decimal form
//   1  one variable's value, by Config::modify, for the variable (library or
//      context table) and component the next two bytes pick: the value is
//      stored exactly as given and prints
//   2  a TUNE string (select::parse_tune): every rule it keeps has a score or
//      an algorithm and matches queries without reading out of bounds; a
//      rejection adds nothing and names the token
//   3  a configuration file's text: read_config (every line named, errors say
//      where), then the same text as a file applied by Config::load (to the
//      library's table or, with bit 2 of the first byte, the context's)
// None may crash, hang, leak or trip a sanitizer. (warn_unknown_env is left
// out: past splitting NAME=VALUE its work is an edit distance to each of some
// 450 known names, milliseconds per input under the sanitizers.) Built and
// run by scripts/fuzz.sh (clang, ASan+UBSan).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "lib/core/config.h"
#include "lib/core/log.h"
#include "lib/select/select.h"

extern char **environ;

namespace {

using ucc::core::Config;
using ucc::core::ConfigVar;

// Where Config::print goes, and the file Config::load reads mode 3's text
// from (a memory file: nothing on disk, nothing to clean up).
FILE *g_null = nullptr;
int g_conf_fd = -1;
std::string g_conf_path;

void check(bool ok) {
    if (!ok) {
        __builtin_trap();
    }
}

void fuzz_size(const std::string &s) {
    int64_t v = 0;
    if (!ucc::core::parse_size(s, &v)) {
        return;
    }
    int64_t back = -1;
    check(ucc::core::parse_size(std::to_string(v), &back) && back == v);
}

void fuzz_variable(uint8_t which, uint8_t comp, const std::string &value) {
    static const char *const kComponents[] = {nullptr, "all", "tl/ucp", "cl/basic", "TL/SIM"};
    const std::span<const ConfigVar> table =
        (which & 1) ? ucc::core::context_config_table() : ucc::core::lib_config_table();
    const ConfigVar &v = table[(which >> 1) % table.size()];
    check(ucc::core::config_syntax(v) != nullptr);
    Config c(table, "UCC_");
    const char *component = kComponents[comp % std::size(kComponents)];
    if (c.modify(v.name, value, component) != UCC_OK) {
        check(!c.is_set(v.name));
        return;
    }
    check(c.is_set(v.name) && c.get(v.name) == value);
    check(!v.per_component || c.settings(v.name).back().value == value);
    (void)c.get_int(v.name);
    c.print(g_null, "fuzz",
            static_cast<ucc_config_print_flags_t>(UCC_CONFIG_PRINT_CONFIG |
                                                  UCC_CONFIG_PRINT_HEADER | UCC_CONFIG_PRINT_DOC));
}

void fuzz_tune(const std::string &value) {
    std::vector<ucc::select::TuneRule> rules;
    std::string error;
    if (ucc::select::parse_tune("UCC_TUNE", value, &rules, &error) != UCC_OK) {
        check(rules.empty() && !error.empty());
        return;
    }
    // Queries on both sides of the usual boundaries: every type, empty and
    // huge messages, memory types out of range.
    for (const ucc::select::TuneRule &r : rules) {
        check(r.has_score || r.has_alg);
        for (uint32_t bit = 0; bit < 16; ++bit) {
            for (uint64_t count : {uint64_t{0}, uint64_t{4096}, UINT64_MAX}) {
                ucc::select::Query q;
                q.type = static_cast<ucc_coll_type_t>(uint64_t{1} << bit);
                q.count = count;
                q.team_size = 1 + bit * 7;
                q.mem = static_cast<ucc_memory_type_t>(bit % 8);
                (void)r.matches(q);
            }
        }
    }
}

void fuzz_file(bool context, const std::string &text) {
    std::istringstream in(text);
    std::vector<ucc::core::ConfigLine> lines;
    std::string error;
    if (ucc::core::read_config(in, "fuzz.conf", &lines, &error) == UCC_OK) {
        for (const ucc::core::ConfigLine &l : lines) {
            check(!l.name.empty() && l.line > 0);
        }
    } else {
        check(error.rfind("fuzz.conf:", 0) == 0);
    }
    // The same text as a file given to ucc_*_config_read.
    if (g_conf_fd < 0 || ftruncate(g_conf_fd, 0) != 0 ||
        pwrite(g_conf_fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
        return;
    }
    Config c(context ? ucc::core::context_config_table() : ucc::core::lib_config_table(), "UCC_");
    (void)c.load(g_conf_path.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    // No configuration file but the one mode 3 gives, and no UCC_ variable
    // of the caller's environment (Config::load reads both): every input
    // means the same everywhere.
    std::vector<std::string> names;
    for (char **e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "UCC_", 4) == 0) {
            names.emplace_back(*e, std::strcspn(*e, "="));
        }
    }
    for (const std::string &n : names) {
        unsetenv(n.c_str());
    }
    setenv("UCC_CONFIG_FILE", "", 1);
    g_null = std::fopen("/dev/null", "w");
    g_conf_fd = memfd_create("fuzz.conf", 0);
    g_conf_path = "/proc/self/fd/" + std::to_string(g_conf_fd);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const uint8_t mode = data[0] % 4;
    if (mode == 1) {
        if (size < 3) {
            return 0;
        }
        fuzz_variable(data[1], data[2],
                      std::string(reinterpret_cast<const char *>(data + 3), size - 3));
        return 0;
    }
    const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
    switch (mode) {
        case 0:
            fuzz_size(text);
            break;
        case 2:
            fuzz_tune(text);
            break;
        default:
            fuzz_file((data[0] & 4) != 0, text);
            break;
    }
    return 0;
}
