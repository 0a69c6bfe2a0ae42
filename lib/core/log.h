// Per-object logging: no global logger; every line says where it comes from.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>

namespace ucc::core {

enum class LogLevel : int { kFatal = 0, kError, kWarn, kInfo, kDebug, kTrace };

// Parses "fatal", "error", "warn", "info", "debug", "trace" (any case), and the
// reference's other names: "warning", "diag" (as info), "data", "func", "poll",
// "req", "async" (as trace).
bool parse_log_level(const std::string &s, LogLevel *out);
const char *log_level_name(LogLevel l);

// A logger is a level plus a source that prefixes each line (rank, team, time).
class Logger {
  public:
    Logger() = default;
    explicit Logger(LogLevel level) : level_(level) {}
    LogLevel level() const { return level_; }
    void set_level(LogLevel l) { level_ = l; }
    // Context for each line, e.g. "rank=3 t=1.2e-06".
    void set_prefix(std::string p) { prefix_ = std::move(p); }
    void set_clock(const void *obj, double (*now)(const void *)) {
        clock_obj_ = obj;
        clock_ = now;
    }
    bool enabled(LogLevel l) const { return static_cast<int>(l) <= static_cast<int>(level_); }
    void log(LogLevel l, const char *fmt, ...) const __attribute__((format(printf, 3, 4)));

  private:
    LogLevel level_ = LogLevel::kWarn;
    std::string prefix_;
    const void *clock_obj_ = nullptr;
    double (*clock_)(const void *) = nullptr;
};

// For calls that have no object to log through (NULL handles): one line to stderr.
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ucc::core

#define UCC_LOG(logger, lvl, ...)                                  \
    do {                                                           \
        if ((logger).enabled(::ucc::core::LogLevel::lvl)) {        \
            (logger).log(::ucc::core::LogLevel::lvl, __VA_ARGS__); \
        }                                                          \
    } while (0)
