// Configuration: one table per component {name, default, doc}; values come from
// the defaults, then an optional file, then the environment (prefix + name), then
// ucc_*_config_modify. Nothing is global: each config object owns its values.
// The tables also hold every name the reference UCC documents for its library
// and context configuration (README, Configuration): those without a meaning
// here are accepted, checked like the reference checks them, and ignored.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "ucc/api/ucc.h"

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
};

std::span<const ConfigVar> lib_config_table();
std::span<const ConfigVar> context_config_table();

class Config {
  public:
    Config(std::span<const ConfigVar> table, std::string prefix);
    // Reads `filename` (lines NAME=VALUE or PREFIX_NAME=VALUE, '#' comments;
    // a missing file is ignored) and then the environment.
    ucc_status_t load(const char *filename);
    ucc_status_t modify(const std::string &name, const std::string &value);
    const std::string &get(const std::string &name) const;
    int64_t get_int(const std::string &name) const;
    const std::string &prefix() const { return prefix_; }
    void print(FILE *stream, const char *title, ucc_config_print_flags_t flags) const;
    // One DEBUG line per ignored variable that was set (file, environment or
    // modify), when the library or context this config creates is created.
    void log_ignored(const Logger &log) const;

  private:
    int find(const std::string &name) const;
    std::span<const ConfigVar> table_;
    std::string prefix_;
    std::vector<std::string> values_;
    std::vector<bool> set_;  // per variable: set by a file, the environment or modify
};

// Parses sizes like "64K", "1M", "4096" and plain integers.
bool parse_size(const std::string &s, int64_t *out);

}  // namespace ucc::core

struct ucc_lib_config {
    ucc::core::Config config;
};
struct ucc_context_config {
    ucc::core::Config config;
};
