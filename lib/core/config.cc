#include "lib/core/config.h"

#include <strings.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>

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
bool one_of(const std::string &v, std::initializer_list<const char *> names) {
    for (const char *n : names) {
        if (strcasecmp(v.c_str(), n) == 0) {
            return true;
        }
    }
    return false;
}
// The reference's value types, for the variables accepted and ignored here.
bool valid_uint(const std::string &v) {
    if (one_of(v, {"inf", "auto"})) {
        return true;
    }
    if (v.empty() || v.size() > 10) {
        return false;
    }
    for (char c : v) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            return false;
        }
    }
    return std::stoull(v) <= UINT32_MAX;
}
bool valid_bool(const std::string &v) {
    return one_of(v, {"y", "yes", "on", "1", "true", "n", "no", "off", "0", "false"});
}
bool valid_memunits(const std::string &v) {
    return one_of(v, {"inf", "auto"}) || valid_size(v);
}
// Comma-separated names from `names`; `empty_ok`: the empty list too.
bool valid_list(const std::string &v, std::initializer_list<const char *> names, bool empty_ok) {
    if (v.empty()) {
        return empty_ok;
    }
    size_t begin = 0;
    while (true) {
        const size_t comma = v.find(',', begin);
        const std::string item =
            v.substr(begin, comma == std::string::npos ? comma : comma - begin);
        if (!one_of(item, names)) {
            return false;
        }
        if (comma == std::string::npos) {
            return true;
        }
        begin = comma + 1;
    }
}
bool valid_cls(const std::string &v) {
    return valid_list(v, {"basic", "hier", "all"}, false);
}
bool valid_profile_mode(const std::string &v) {
    return valid_list(v, {"log", "accum"}, true);
}
bool valid_err_handling(const std::string &v) {
    return one_of(v, {"auto", "peer", "none"});
}
bool valid_local_copy_type(const std::string &v) {
    return one_of(v, {"ucp", "mc", "ec", "auto"});
}

constexpr bool kUsed = false;
constexpr bool kIgnored = true;

// The library's variables, and the reference's global and library options (ucc_global_opts.c,
// ucc_lib.c), which a program may set through ucc_lib_config_modify.
constexpr ConfigVar kLibVars[] = {
    {"LOG_LEVEL", "WARN",
     "Log level: FATAL, ERROR, WARN, INFO, DEBUG, TRACE (DIAG counts as INFO; DATA, FUNC, "
     "POLL, REQ, ASYNC as TRACE).",
     valid_level, kUsed},
    {"COLL_TRACE", "WARN",
     "Collective trace, a log level of its own: INFO (or DIAG) logs every ucc_collective_init "
     "on team rank 0, DEBUG adds posts and finalizes, TRACE logs them on every rank. Printed "
     "whatever LOG_LEVEL says.",
     valid_level, kUsed},
    {"CLS", "basic",
     "Ignored: the CL components to use (basic, hier, all); this library has one collective "
     "layer.",
     valid_cls, kIgnored},
    {"TLS", "all",
     "Transports contexts may use: all, a list (sim, ucx or its alias ucp, self; names of "
     "transports not built here match nothing) or ^list to exclude.",
     nullptr, kUsed},
    {"COMPONENT_PATH", "", "Ignored: where dynamic components are loaded from (none are).", nullptr,
     kIgnored},
    {"PROFILE_MODE", "", "Ignored: profile collection modes (log, accum).", valid_profile_mode,
     kIgnored},
    {"PROFILE_FILE", "ucc_%h_%p.prof", "Ignored: the file profiling data is written to.", nullptr,
     kIgnored},
    {"PROFILE_LOG_SIZE", "4m", "Ignored: the maximal size of the profiling log.", valid_memunits,
     kIgnored},
    {"CONFIG_FILE", "auto",
     "Ignored: a configuration file read at startup; ucc_lib_config_read and "
     "ucc_context_config_read read the file they are given.",
     nullptr, kIgnored},
    {"LOG_FILE", "", "Ignored: log lines go to stderr.", nullptr, kIgnored},
    {"LOG_FILE_SIZE", "inf", "Ignored: the maximal size of the log file.", valid_memunits,
     kIgnored},
    {"LOG_FILE_ROTATE", "0", "Ignored: the number of rotated log files.", valid_uint, kIgnored},
    {"LOG_BUFFER", "1024", "Ignored: the buffer size of one log line.", valid_memunits, kIgnored},
    {"LOG_DATA_SIZE", "0", "Ignored: payload bytes printed in data log mode.", valid_uint,
     kIgnored},
    {"LOG_PRINT_ENABLE", "n", "Ignored: developer print output.", valid_bool, kIgnored},
    {"LOG_LEVEL_TRIGGER", "FATAL", "Ignored: the log level that triggers error handling.",
     valid_level, kIgnored},
    {"CHECK_ASYMMETRIC_DT", "n",
     "Ignored: an allreduce check that rooted collectives use one datatype on every rank.",
     valid_bool, kIgnored},
};

constexpr const char *kAlgDoc =
    "Algorithm name, or 'auto' to choose by message size and team size.";

// The context's variables, then the reference's core context options (ucc_context.c) and the
// options of its CL/TL context configurations (the TUNE of every component, tl/ucp's own), which
// ucc_context_config_modify may be given with or without a component.
constexpr ConfigVar kContextVars[] = {
    {"LOG_LEVEL", "", "Log level of the context; empty: the library's level.", valid_level_or_empty,
     kUsed},
    {"TLS", "", "Transports of this context (as the library's TLS); empty: the library's.", nullptr,
     kUsed},
    {"ALLREDUCE_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLGATHER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLGATHERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLTOALL_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"ALLTOALLV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"BARRIER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"BCAST_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"FANIN_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"FANOUT_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"GATHER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"GATHERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_SCATTER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"REDUCE_SCATTERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"SCATTER_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"SCATTERV_ALG", "auto", kAlgDoc, nullptr, kUsed},
    {"KNOMIAL_RADIX", "4", "Radix of k-nomial trees (bcast, reduce, barrier), 2..64.", valid_radix,
     kUsed},
    {"ALLREDUCE_LARGE_MSG", "16K",
     "Allreduce messages of at least this many bytes use a bandwidth-optimal algorithm in auto "
     "mode.",
     valid_size, kUsed},
    {"ALLGATHER_LARGE_MSG", "64K",
     "Allgather blocks of at least this many bytes use the ring algorithm in auto mode.",
     valid_size, kUsed},
    {"REDUCE_CHUNK", "256K",
     "Ring reductions (allreduce ring, reduce_scatter(v) ring) move each step's block in chunks "
     "of this many bytes and reduce every chunk as it arrives, while it is in cache and the "
     "next ones are in flight. 0: one message per step.",
     valid_size, kUsed},
    {"UCX_ERR_HANDLING", "auto",
     "How a peer that dies is noticed over UCX (the transfers waiting on it fail at once). auto: "
     "within a node shared memory, and the peer process's liveness is checked while transfers "
     "wait on it; across nodes UCX's peer error handling. peer: UCX's peer error handling on "
     "every endpoint (UCX 1.13 then uses no shared memory: TCP loopback within a node). none: "
     "shared memory, no checks: a dead peer is noticed only through a collective's timeout.",
     valid_err_handling, kUsed},
    {"ESTIMATED_NUM_EPS", "0",
     "Ignored: a hint of how many endpoints the context will have (per-rank state here does not "
     "grow with the team).",
     valid_uint, kIgnored},
    {"ESTIMATED_NUM_PPN", "0", "Ignored: a hint of how many of those endpoints share a node.",
     valid_uint, kIgnored},
    {"LOCK_FREE_PROGRESS_Q", "0", "Ignored: a lock-free progress queue (state is per context).",
     valid_uint, kIgnored},
    {"TEAM_IDS_POOL_SIZE", "32",
     "Ignored: the size of the team id pool (team ids are agreed among a team's members).",
     valid_uint, kIgnored},
    {"INTERNAL_OOB", "1",
     "Ignored: an internal OOB for team creation (0 disable, 1 try, 2 force); teams use the "
     "user's OOB or the context's endpoint map.",
     valid_uint, kIgnored},
    {"THROTTLE_PROGRESS", "1000",
     "Ignored: progress every n-th ucc_context_progress call; every call progresses here.",
     valid_uint, kIgnored},
    {"TUNE", "",
     "Ignored: a CL/TL score tuning string (token#token...); force an algorithm with <COLL>_ALG.",
     nullptr, kIgnored},
    {"PRECONNECT", "0", "Ignored (tl/ucp): connect endpoints at creation below this team size.",
     valid_uint, kIgnored},
    {"NPOLLS", "10", "Ignored (tl/ucp): progress polls per request test.", valid_uint, kIgnored},
    {"OOB_NPOLLS", "20", "Ignored (tl/ucp): polls of an OOB request.", valid_uint, kIgnored},
    {"PRE_REG_MEM", "0", "Ignored (tl/ucp): pre-register collective memory.", valid_uint, kIgnored},
    {"SERVICE_WORKER", "n", "Ignored (tl/ucp): a separate worker for service collectives.",
     valid_bool, kIgnored},
    {"SERVICE_THROTTLING_THRESH", "100",
     "Ignored (tl/ucp): progress calls between service worker progress calls.", valid_uint,
     kIgnored},
    {"LOCAL_COPY_TYPE", "auto", "Ignored (tl/ucp): who makes local copies (ucp, mc, ec, auto).",
     valid_local_copy_type, kIgnored},
    {"MEMTYPE_COPY_ENABLE", "y", "Ignored (tl/ucp): memory type copies in UCX.", valid_bool,
     kIgnored},
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
    : table_(table), prefix_(std::move(prefix)), set_(table.size(), false) {
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
        set_[i] = true;
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
    set_[i] = true;
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

void Config::log_ignored(const Logger &log) const {
    for (size_t i = 0; i < table_.size(); ++i) {
        if (table_[i].ignored && set_[i]) {
            UCC_LOG(log, kDebug, "%s%s=%s accepted for compatibility. %s", prefix_.c_str(),
                    table_[i].name, values_[i].c_str(), table_[i].doc);
        }
    }
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
