// Configuration: one table per component {name, default, doc}; values come from
// the defaults, then the configuration file (UCC_CONFIG_FILE, default: ucc.conf
// found next to the install), then a file given to ucc_*_config_read, then the
// environment (prefix + name, or prefix + component + name as the reference
// names its CL/TL variables), then ucc_*_config_modify. Nothing is global:
// each config object owns its values. The tables also hold every name the
// reference UCC documents for its library and context configuration
// (docs/configuration.md): those without a meaning here are accepted, checked
// like the reference checks them, and ignored.
#pragma once

#include <cstdint>
#include <cstdio>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"

namespace ucc {
class RunShare;
}  // namespace ucc

namespace ucc::core {

class Logger;

struct ConfigVar {
    const char *name;  // without prefix, e.g. "LOG_LEVEL"
    const char *default_value;
    const char *doc;
    // Checks a value; nullptr accepts anything.
    bool (*valid)(const std::string &value);
    // Accepted for compatibility with the reference UCC and without effect here;
    // a value that was set is reported in one DEBUG line (Config::log_ignored).
    bool ignored;
    // Every component's setting counts, not just one (TUNE: UCC_TUNE,
    // UCC_CL_BASIC_TUNE, UCC_TL_UCP_TUNE... each add their rules).
    bool per_component = false;
};

std::span<const ConfigVar> lib_config_table();
std::span<const ConfigVar> context_config_table();
// Whether a CLS value (a valid one) enables the hierarchical algorithms.
bool cls_has_hier(const std::string &cls);
// The default values of one of those tables as strings (immutable, shared).
std::span<const std::string> config_defaults(std::span<const ConfigVar> table);
// The components under whose names the reference reads its CL/TL variables
// ("CL_BASIC", "TL_UCP", ...): UCC_<COMPONENT>_<NAME> sets NAME here too.
std::span<const char *const> config_components();
// The value syntax of a variable, as `ucc_info -f` prints it.
const char *config_syntax(const ConfigVar &v);
// The configuration file UCC_CONFIG_FILE (environment) names: "auto" (the
// default) is $HOME/ucc.conf, else <prefix>/share/ucc/ucc.conf, else
// <prefix>/share/ucc.conf, the first that exists, where <prefix> is the
// directory above libucc.so's; "" is none. Returns "" when there is none.
std::string config_file_path();
// The directory libucc.so (or the program it is linked into) was loaded
// from ("" when unknown).
std::string library_dir();
// The directory above library_dir(): the install prefix ("" when unknown).
std::string install_prefix();
// Warns once (one line per variable) about every <prefix>NAME in the
// environment that no configuration table, component form or bootstrap
// variable knows, naming the closest known name.
void warn_unknown_env(const std::string &prefix, const Logger &log);
// Levenshtein distance (for "did you mean").
size_t edit_distance(const std::string &a, const std::string &b);

// One line of a configuration file: NAME=VALUE (or NAME: VALUE) in its
// [section] (empty: none), with its line number.
struct ConfigLine {
    std::string name;
    std::string value;
    std::string section;
    int line = 0;
};
// Reads a configuration file: NAME=VALUE or NAME: VALUE lines, '#' and ';'
// comments (';' also after a blank inside a line), [key=value ...] sections.
// UCC_ERR_NOT_FOUND: cannot be opened; UCC_ERR_INVALID_PARAM: a malformed
// line, an unknown section key or a duplicate name (*error says where).
ucc_status_t read_config_file(const std::string &path, std::vector<ConfigLine> *out,
                              std::string *error);
// The same on text already open (`path` names it in *error).
ucc_status_t read_config(std::istream &in, const std::string &path, std::vector<ConfigLine> *out,
                         std::string *error);
// The configuration file as a configuration reads it: config_file_path()
// and, when there is one, read_config_file's outcome (`lines` null when it
// has none). Inside a rank of an in-process world (a simulation: its
// TransportEntry::run_share) the file is looked for and read once per run,
// as a process of the reference reads it once, and every rank shares the
// outcome; again only when UCC_CONFIG_FILE or HOME changed in between.
// `slot`: that world's slot (transport_select.h run_share_slot()), or null.
struct ConfigFileRead {
    std::string path;  // "" none
    ucc_status_t status = UCC_OK;
    std::string error;
    std::shared_ptr<const std::vector<ConfigLine>> lines;
};
std::shared_ptr<const ConfigFileRead> configured_file(std::unique_ptr<ucc::RunShare> *slot);

class Config {
  public:
    // A value set under a name: "UCC_TL_UCP_TUNE" (the name it was set under)
    // and its value, for per-component variables.
    struct Setting {
        std::string source;
        std::string value;
    };

    Config(std::span<const ConfigVar> table, std::string prefix);
    // Reads the configuration file (config_file_path), then `filename` (a
    // missing file is ignored), then the environment. `file_from`: take the
    // configuration file's lines that this configuration read instead (a
    // context's from its library's: the file is looked for and read once per
    // library, not once more per context).
    // `share`: the run's slot in a world of many in-process ranks (configured_file).
    ucc_status_t load(const char *filename, const Config *file_from = nullptr,
                      std::unique_ptr<ucc::RunShare> *share = nullptr);
    // `component` ("tl/ucp", "cl/basic" or nullptr) names the setting of a
    // per-component variable.
    ucc_status_t modify(const std::string &name, const std::string &value,
                        const char *component = nullptr);
    const std::string &get(const std::string &name) const;
    int64_t get_int(const std::string &name) const;
    // A boolean variable (valid_bool's spellings, any case): y, yes, on, 1, true.
    bool get_bool(const std::string &name) const;
    // Every setting of a per-component variable, in the order they apply.
    const std::vector<Setting> &settings(const std::string &name) const;
    // Whether the variable was set (file, environment or modify).
    bool is_set(const std::string &name) const;
    const std::string &prefix() const { return prefix_; }
    std::span<const ConfigVar> table() const { return table_; }
    // The configuration file that was read ("" none).
    const std::string &file() const { return file_; }
    void print(FILE *stream, const char *title, ucc_config_print_flags_t flags) const;
    // One DEBUG line per ignored variable that was set (file, environment or
    // modify), when the library or context this config creates is created.
    void log_ignored(const Logger &log) const;
    // Drops every value, setting and name (a destroyed context's tombstone
    // keeps its table only); nothing may read the configuration afterwards.
    void release();

  private:
    int find(const std::string &name) const;
    // Applies NAME (with or without prefix or component) from a file.
    ucc_status_t apply_file_line(const ConfigLine &l, const std::string &where, bool need_prefix);
    ucc_status_t set(size_t i, const std::string &source, const std::string &value);
    // A variable that was set (only those are stored: a context keeps one
    // configuration, and a million simulated ranks keep a million).
    struct Entry {
        size_t index = 0;               // in table_
        std::string value;              // the value in effect
        std::vector<Setting> settings;  // per-component variables: every setting
    };
    const Entry *entry(size_t i) const;
    const std::string &value(size_t i) const;
    std::span<const ConfigVar> table_;
    std::span<const std::string> defaults_;  // config_defaults(table_)
    std::string prefix_;
    std::string file_;
    std::shared_ptr<const std::vector<ConfigLine>> file_lines_;  // null: none read
    std::vector<Entry> set_;                                     // in the order first set
};

// Parses sizes like "64K", "1M", "4096" and plain integers; false for one an
// int64_t cannot hold.
bool parse_size(const std::string &s, int64_t *out);

}  // namespace ucc::core

struct ucc_lib_config {
    ucc::core::Config config;
};
struct ucc_context_config {
    ucc::core::Config config;
};
