// The configuration object: defaults, the configuration file, a given file,
// the environment and modify calls, in that order; printing.
#include "lib/core/config.h"

#include <strings.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "lib/core/log.h"
#include "lib/util/common.h"
#include "lib/util/parse.h"

namespace ucc::core {

bool parse_size(const std::string &s, int64_t *out) {
    if (s.empty()) {
        return false;
    }
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str() || errno == ERANGE) {
        return false;
    }
    std::string suffix(trim(end));
    for (char &c : suffix) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    int64_t mult = 1;
    if (suffix.empty() || suffix == "b") {
        mult = 1;
    } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
        mult = 1024;
    } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
        mult = 1024 * 1024;
    } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
        mult = 1024LL * 1024 * 1024;
    } else {
        return false;
    }
    if (v > INT64_MAX / mult || v < INT64_MIN / mult) {
        return false;  // not a size an int64_t holds
    }
    *out = v * mult;
    return true;
}

Config::Config(std::span<const ConfigVar> table, std::string prefix)
    : table_(table), defaults_(config_defaults(table)), prefix_(std::move(prefix)) {}

void Config::release() {
    ucc::free_storage(prefix_);
    ucc::free_storage(file_);
    file_lines_.reset();
    ucc::free_storage(set_);
}

const Config::Entry *Config::entry(size_t i) const {
    for (const Entry &e : set_) {
        if (e.index == i) {
            return &e;
        }
    }
    return nullptr;
}

const std::string &Config::value(size_t i) const {
    const Entry *e = entry(i);
    return e != nullptr ? e->value : defaults_[i];
}

namespace {

// Name -> position in the library's and the context's tables, built once
// (immutable afterwards): every context looks up a few dozen names, and a
// million simulated ranks make a million contexts.
using NameIndex = std::unordered_map<std::string_view, int>;

NameIndex index_names(std::span<const ConfigVar> table) {
    NameIndex index;
    for (size_t i = 0; i < table.size(); ++i) {
        index.emplace(table[i].name, static_cast<int>(i));
    }
    return index;
}

const NameIndex *name_index(std::span<const ConfigVar> table) {
    static const NameIndex kLib = index_names(lib_config_table());
    static const NameIndex kContext = index_names(context_config_table());
    return table.data() == lib_config_table().data()       ? &kLib
           : table.data() == context_config_table().data() ? &kContext
                                                           : nullptr;
}

}  // namespace

int Config::find(const std::string &name) const {
    if (name.empty() || name.find('\0') != std::string::npos) {
        return -1;
    }
    if (const NameIndex *index = name_index(table_); index != nullptr) {
        const auto it = index->find(name);
        return it != index->end() ? it->second : -1;
    }
    // Another table: the first character rules out nearly every entry
    // before a comparison.
    const size_t n = name.size();  // t[n] is read only after n equal characters
    for (size_t i = 0; i < table_.size(); ++i) {
        const char *t = table_[i].name;
        if (t[0] == name[0] && std::strncmp(t, name.c_str(), n) == 0 && t[n] == '\0') {
            return static_cast<int>(i);
        }
    }
    return -1;
}

ucc_status_t Config::set(size_t i, const std::string &source, const std::string &value) {
    if (table_[i].valid != nullptr && !table_[i].valid(value)) {
        log_error("invalid value '%s' of %s", value.c_str(), source.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    Entry *e = nullptr;
    for (Entry &x : set_) {
        e = x.index == i ? &x : e;
    }
    if (e == nullptr) {
        e = &set_.emplace_back();
        e->index = i;
    }
    e->value = value;
    if (table_[i].per_component) {
        // One setting per name it was set under, in the order they were last set.
        std::vector<Setting> &all = e->settings;
        for (auto it = all.begin(); it != all.end(); ++it) {
            if (it->source == source) {
                all.erase(it);
                break;
            }
        }
        all.push_back({source, value});
    }
    return UCC_OK;
}

// Whether <COMPONENT>_NAME may stand for NAME: every variable but TLS (a
// CL's TLS, UCC_CL_BASIC_TLS, is the CL's own list of TLs, CL_BASIC_TLS in
// the library's table, not the transports of a context).
namespace {
bool component_form(const std::string &name) {
    return name != "TLS";
}
}  // namespace

// A file's NAME: <prefix>NAME, <prefix><COMPONENT>_NAME, or (files given to
// ucc_*_config_read only) NAME alone. Names of other tables, components or
// versions are skipped, as the reference skips them.
ucc_status_t Config::apply_file_line(const ConfigLine &l, const std::string &where,
                                     bool need_prefix) {
    std::string name = l.name;
    std::string source = l.name;
    if (name.rfind(prefix_, 0) == 0) {
        name = name.substr(prefix_.size());
    } else if (need_prefix) {
        return UCC_OK;
    } else {
        source = prefix_ + name;
    }
    if (find(name) < 0) {
        for (const char *comp : config_components()) {
            const std::string c = std::string(comp) + "_";
            if (name.rfind(c, 0) == 0 && component_form(name.substr(c.size())) &&
                find(name.substr(c.size())) >= 0) {
                name = name.substr(c.size());
                break;
            }
        }
    }
    const int i = find(name);
    if (i < 0) {
        return UCC_OK;
    }
    // The environment wins over a file.
    if (std::getenv(source.c_str()) != nullptr) {
        return UCC_OK;
    }
    if (table_[i].valid != nullptr && !table_[i].valid(l.value)) {
        log_error("%s:%d: invalid value '%s' of %s", where.c_str(), l.line, l.value.c_str(),
                  l.name.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    return set(static_cast<size_t>(i), source, l.value);
}

ucc_status_t Config::load(const char *filename, const Config *file_from,
                          std::unique_ptr<ucc::RunShare> *share) {
    std::vector<ConfigLine> lines;
    std::string error;
    // The configuration file; a file named by UCC_CONFIG_FILE that is missing
    // is worth a warning (as the reference gives), not a failure.
    if (file_from != nullptr) {
        file_ = file_from->file_;
        file_lines_ = file_from->file_lines_;
    } else {
        const std::shared_ptr<const ConfigFileRead> f = configured_file(share);
        file_ = f->path;
        file_lines_ = f->lines;
        if (f->status == UCC_ERR_NOT_FOUND) {
            log_error("failed to open config file %s (UCC_CONFIG_FILE)", file_.c_str());
            file_.clear();
        } else if (f->status != UCC_OK) {
            log_error("failed to parse config file %s", f->error.c_str());
            return f->status;
        }
    }
    if (file_lines_ != nullptr) {
        for (const ConfigLine &l : *file_lines_) {
            if (l.name.size() < 4 || l.name.find("UCC_") == std::string::npos) {
                log_error(
                    "%s:%d: incorrect parameter name %s (param name should start with UCC_ or "
                    "<PREFIX>_UCC_)",
                    file_.c_str(), l.line, l.name.c_str());
                return UCC_ERR_INVALID_PARAM;
            }
            // Sections hold per-team settings the reference selects by CPU
            // vendor, model and team shape; they are read and checked, not applied.
            if (l.section.empty()) {
                UCC_TRY(apply_file_line(l, file_, true));
            }
        }
    }
    if (filename != nullptr) {
        lines.clear();
        ucc_status_t st = read_config_file(filename, &lines, &error);
        if (st == UCC_ERR_INVALID_PARAM) {
            log_error("config file %s", error.c_str());
            return st;
        }
        for (const ConfigLine &l : lines) {
            UCC_TRY(apply_file_line(l, filename, false));
        }
    }
    // The environment: per variable the generic name, then each component's
    // (which wins). One pass over the environment, not a getenv per name and
    // component (hundreds per context: a million simulated ranks each
    // create one).
    struct Found {
        size_t index;
        size_t order;  // 0: the generic name; 1 + k: config_components()[k]
        size_t pos;    // in the environment
        std::string source;
        const char *value;
    };
    std::vector<Found> found;
    const std::span<const char *const> comps = config_components();
    for (size_t pos = 0; environ != nullptr && environ[pos] != nullptr; ++pos) {
        const char *kv = environ[pos];
        const char *eq = std::strchr(kv, '=');
        if (eq == nullptr || std::strncmp(kv, prefix_.c_str(), prefix_.size()) != 0) {
            continue;
        }
        const std::string rest(kv + prefix_.size(), eq);
        int i = find(rest);
        size_t order = 0;
        for (size_t k = 0; i < 0 && k < comps.size(); ++k) {
            const size_t len = std::strlen(comps[k]);
            if (rest.size() > len + 1 && rest.compare(0, len, comps[k]) == 0 && rest[len] == '_' &&
                component_form(rest.substr(len + 1))) {
                i = find(rest.substr(len + 1));
                order = k + 1;
            }
        }
        if (i >= 0) {
            found.push_back({static_cast<size_t>(i), order, pos, std::string(kv, eq), eq + 1});
        }
    }
    // getenv's answer for a name set twice is its first entry: keep that one.
    std::sort(found.begin(), found.end(), [](const Found &a, const Found &b) {
        return a.index != b.index   ? a.index < b.index
               : a.order != b.order ? a.order < b.order
                                    : a.pos < b.pos;
    });
    for (size_t k = 0; k < found.size(); ++k) {
        if (k > 0 && found[k].index == found[k - 1].index && found[k].order == found[k - 1].order) {
            continue;
        }
        UCC_TRY(set(found[k].index, found[k].source, found[k].value));
    }
    return UCC_OK;
}

ucc_status_t Config::modify(const std::string &name, const std::string &value,
                            const char *component) {
    int i = find(name);
    if (i < 0) {
        log_error("unknown configuration variable '%s'", name.c_str());
        return UCC_ERR_NOT_FOUND;
    }
    if (table_[i].valid != nullptr && !table_[i].valid(value)) {
        log_error("invalid value '%s' for configuration variable %s", value.c_str(), name.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    std::string source = prefix_ + name;
    if (component != nullptr && std::strcmp(component, "all") != 0 && table_[i].per_component) {
        // "tl/ucp" -> UCC_TL_UCP_<NAME>
        std::string comp = component;
        for (char &c : comp) {
            c = c == '/' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        source = prefix_ + comp + "_" + name;
    }
    return set(static_cast<size_t>(i), source, value);
}

const std::string &Config::get(const std::string &name) const {
    int i = find(name);
    UCC_ASSERT(i >= 0);
    return value(static_cast<size_t>(i));
}

const std::vector<Config::Setting> &Config::settings(const std::string &name) const {
    int i = find(name);
    UCC_ASSERT(i >= 0);
    static const std::vector<Setting> kNone;
    const Entry *e = entry(static_cast<size_t>(i));
    return e != nullptr ? e->settings : kNone;
}

bool Config::is_set(const std::string &name) const {
    int i = find(name);
    return i >= 0 && entry(static_cast<size_t>(i)) != nullptr;
}

int64_t Config::get_int(const std::string &name) const {
    int64_t v = 0;
    parse_size(get(name), &v);
    return v;
}

bool Config::get_bool(const std::string &name) const {
    const std::string &v = get(name);
    for (const char *yes : {"y", "yes", "on", "1", "true"}) {
        if (strcasecmp(v.c_str(), yes) == 0) {
            return true;
        }
    }
    return false;
}

void Config::log_ignored(const Logger &log) const {
    for (size_t i = 0; i < table_.size(); ++i) {
        const Entry *e = table_[i].ignored ? entry(i) : nullptr;
        if (e != nullptr) {
            UCC_LOG(log, kDebug, "%s%s=%s accepted for compatibility. %s", prefix_.c_str(),
                    table_[i].name, e->value.c_str(), table_[i].doc);
        }
    }
}

// The reference's format: `-c` one NAME=value line per variable; with the doc
// flag each is preceded by its documentation and syntax.
void Config::print(FILE *stream, const char *title, ucc_config_print_flags_t flags) const {
    if (stream == nullptr) {
        return;
    }
    if (flags & UCC_CONFIG_PRINT_HEADER) {
        std::fprintf(stream, "#\n# %s\n#\n\n", title != nullptr ? title : "UCC configuration");
    }
    if (!(flags & UCC_CONFIG_PRINT_CONFIG)) {
        return;
    }
    for (size_t i = 0; i < table_.size(); ++i) {
        const ConfigVar &v = table_[i];
        if (flags & UCC_CONFIG_PRINT_DOC) {
            std::fprintf(stream, "#\n# %s\n#\n# syntax:  %s\n# default: %s\n#\n", v.doc,
                         config_syntax(v), v.default_value);
        }
        const Entry *e = entry(i);
        if (v.per_component && e != nullptr && !e->settings.empty()) {
            for (const Setting &s : e->settings) {
                std::fprintf(stream, "%s=%s\n", s.source.c_str(), s.value.c_str());
            }
        } else {
            std::fprintf(stream, "%s%s=%s\n", prefix_.c_str(), v.name, value(i).c_str());
        }
        if (flags & UCC_CONFIG_PRINT_DOC) {
            std::fprintf(stream, "\n");
        }
    }
}

}  // namespace ucc::core
