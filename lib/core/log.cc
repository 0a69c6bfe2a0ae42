#include "lib/core/log.h"

#include <strings.h>
#include <cstdio>

namespace ucc::core {

namespace {
constexpr const char *kNames[] = {"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};
}

bool parse_log_level(const std::string &s, LogLevel *out) {
    for (int i = 0; i < 6; ++i) {
        if (strcasecmp(s.c_str(), kNames[i]) == 0) {
            *out = static_cast<LogLevel>(i);
            return true;
        }
    }
    if (strcasecmp(s.c_str(), "warning") == 0) {
        *out = LogLevel::kWarn;
        return true;
    }
    // The reference's other levels: DIAG lies between WARN and INFO, the rest below TRACE.
    if (strcasecmp(s.c_str(), "diag") == 0) {
        *out = LogLevel::kInfo;
        return true;
    }
    for (const char *finer : {"data", "func", "poll", "req", "async"}) {
        if (strcasecmp(s.c_str(), finer) == 0) {
            *out = LogLevel::kTrace;
            return true;
        }
    }
    return false;
}

const char *log_level_name(LogLevel l) {
    return kNames[static_cast<int>(l)];
}

void Logger::log(LogLevel l, const char *fmt, ...) const {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (clock_ != nullptr) {
        std::fprintf(stderr, "[ucc] %s %s t=%.9f: %s\n", log_level_name(l), prefix_.c_str(),
                     clock_(clock_obj_), msg);
    } else if (!prefix_.empty()) {
        std::fprintf(stderr, "[ucc] %s %s: %s\n", log_level_name(l), prefix_.c_str(), msg);
    } else {
        std::fprintf(stderr, "[ucc] %s %s\n", log_level_name(l), msg);
    }
}

void log_error(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "[ucc] ERROR %s\n", msg);
}

}  // namespace ucc::core
