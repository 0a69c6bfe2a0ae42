#include "lib/core/config.h"

#include <cctype>
#include <cstdlib>
#include <fstream>

#include "lib/core/log.h"
#include "lib/util/common.h"

namespace ucc::core {

namespace {

bool valid_level(const std::string &v) {
    LogLevel l;
    return parse_log_level(v, &l);
}
bool valid_level_or_empty(const std::string &v) {
    return v.empty() || valid_level(v);
}
bool valid_size(const std::string &v) {
    int64_t x;
    return parse_size(v, &x) && x >= 0;
}
bool valid_radix(const std::string &v) {
    int64_t x;
    return parse_size(v, &x) && x >= 2 && x <= 64;
}

constexpr ConfigVar kLibVars[] = {
    {"LOG_LEVEL", "WARN", "Log level: FATAL, ERROR, WARN, INFO, DEBUG, TRACE.", valid_level},
    {"TLS", "all",
     "Transports contexts may use: all, a list (sim, ucx or its alias ucp, self) or ^list to "
     "exclude.",
     nullptr},
};

constexpr const char *kAlgDoc =
    "Algorithm name, or 'auto' to choose by message size and team size.";

constexpr ConfigVar kContextVars[] = {
    {"LOG_LEVEL", "", "Log level of the context; empty: the library's level.",
     valid_level_or_empty},
    {"TLS", "", "Transports of this context (as the library's TLS); empty: the library's.",
     nullptr},
    {"ALLREDUCE_ALG", "auto", kAlgDoc, nullptr},
    {"ALLGATHER_ALG", "auto", kAlgDoc, nullptr},
    {"ALLGATHERV_ALG", "auto", kAlgDoc, nullptr},
    {"ALLTOALL_ALG", "auto", kAlgDoc, nullptr},
    {"ALLTOALLV_ALG", "auto", kAlgDoc, nullptr},
    {"BARRIER_ALG", "auto", kAlgDoc, nullptr},
    {"BCAST_ALG", "auto", kAlgDoc, nullptr},
    {"FANIN_ALG", "auto", kAlgDoc, nullptr},
    {"FANOUT_ALG", "auto", kAlgDoc, nullptr},
    {"GATHER_ALG", "auto", kAlgDoc, nullptr},
    {"GATHERV_ALG", "auto", kAlgDoc, nullptr},
    {"REDUCE_ALG", "auto", kAlgDoc, nullptr},
    {"REDUCE_SCATTER_ALG", "auto", kAlgDoc, nullptr},
    {"REDUCE_SCATTERV_ALG", "auto", kAlgDoc, nullptr},
    {"SCATTER_ALG", "auto", kAlgDoc, nullptr},
    {"SCATTERV_ALG", "auto", kAlgDoc, nullptr},
    {"KNOMIAL_RADIX", "4", "Radix of k-nomial trees (bcast, reduce, barrier), 2..64.", valid_radix},
    {"ALLREDUCE_LARGE_MSG", "16K",
     "Allreduce messages of at least this many bytes use a bandwidth-optimal algorithm in auto "
     "mode.",
     valid_size},
    {"ALLGATHER_LARGE_MSG", "64K",
     "Allgather blocks of at least this many bytes use the ring algorithm in auto mode.",
     valid_size},
};

std::string trim(const std::string &s) {
    size_t b = 0;
    size_t e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) {
        ++b;
    }
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) {
        --e;
    }
    return s.substr(b, e - b);
}

}  // namespace

std::span<const ConfigVar> lib_config_table() {
    return kLibVars;
}
std::span<const ConfigVar> context_config_table() {
    return kContextVars;
}

bool parse_size(const std::string &s, int64_t *out) {
    if (s.empty()) {
        return false;
    }
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str()) {
        return false;
    }
    std::string suffix = trim(end);
    int64_t mult = 1;
    if (suffix.empty() || suffix == "B" || suffix == "b") {
        mult = 1;
    } else if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "KiB") {
        mult = 1024;
    } else if (suffix == "M" || suffix == "m" || suffix == "MB" || suffix == "MiB") {
        mult = 1024 * 1024;
    } else if (suffix == "G" || suffix == "g" || suffix == "GB" || suffix == "GiB") {
        mult = 1024LL * 1024 * 1024;
    } else {
        return false;
    }
    *out = v * mult;
    return true;
}

Config::Config(std::span<const ConfigVar> table, std::string prefix)
    : table_(table), prefix_(std::move(prefix)) {
    for (const ConfigVar &v : table_) {
        values_.emplace_back(v.default_value);
    }
}

int Config::find(const std::string &name) const {
    for (size_t i = 0; i < table_.size(); ++i) {
        if (name == table_[i].name) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

ucc_status_t Config::load(const char *filename) {
    if (filename != nullptr) {
        std::ifstream in(filename);
        std::string line;
        int lineno = 0;
        while (in && std::getline(in, line)) {
            ++lineno;
            line = trim(line);
            if (line.empty() || line[0] == '#') {
                continue;
            }
            size_t eq = line.find('=');
            if (eq == std::string::npos) {
                log_error("config file %s:%d: expected NAME=VALUE", filename, lineno);
                return UCC_ERR_INVALID_PARAM;
            }
            std::string name = trim(line.substr(0, eq));
            std::string value = trim(line.substr(eq + 1));
            if (name.rfind(prefix_, 0) == 0) {
                name = name.substr(prefix_.size());
            }
            if (find(name) < 0) {
                continue;  // variables of other components or versions
            }
            UCC_TRY(modify(name, value));
        }
    }
    for (size_t i = 0; i < table_.size(); ++i) {
        std::string env = prefix_ + table_[i].name;
        const char *v = std::getenv(env.c_str());
        if (v == nullptr) {
            continue;
        }
        if (table_[i].valid != nullptr && !table_[i].valid(v)) {
            log_error("invalid value '%s' of %s", v, env.c_str());
            return UCC_ERR_INVALID_PARAM;
        }
        values_[i] = v;
    }
    return UCC_OK;
}

ucc_status_t Config::modify(const std::string &name, const std::string &value) {
    int i = find(name);
    if (i < 0) {
        log_error("unknown configuration variable '%s'", name.c_str());
        return UCC_ERR_NOT_FOUND;
    }
    if (table_[i].valid != nullptr && !table_[i].valid(value)) {
        log_error("invalid value '%s' for configuration variable %s", value.c_str(), name.c_str());
        return UCC_ERR_INVALID_PARAM;
    }
    values_[i] = value;
    return UCC_OK;
}

const std::string &Config::get(const std::string &name) const {
    int i = find(name);
    UCC_ASSERT(i >= 0);
    return values_[i];
}

int64_t Config::get_int(const std::string &name) const {
    int64_t v = 0;
    parse_size(get(name), &v);
    return v;
}

void Config::print(FILE *stream, const char *title, ucc_config_print_flags_t flags) const {
    if (stream == nullptr) {
        return;
    }
    if (flags & UCC_CONFIG_PRINT_HEADER) {
        std::fprintf(stream, "#\n# %s\n#\n", title != nullptr ? title : "UCC configuration");
    }
    if (!(flags & UCC_CONFIG_PRINT_CONFIG)) {
        return;
    }
    for (size_t i = 0; i < table_.size(); ++i) {
        if (flags & UCC_CONFIG_PRINT_DOC) {
            std::fprintf(stream, "#\n# %s\n# default: %s\n#\n", table_[i].doc,
                         table_[i].default_value);
        }
        std::fprintf(stream, "%s%s=%s\n", prefix_.c_str(), table_[i].name, values_[i].c_str());
    }
}

}  // namespace ucc::core
