// A variable of the environment for one scope: the simulated ranks of a test
// read it when they read their configuration; the old value (or its absence)
// comes back at the end of the scope.
#pragma once

#include <stdlib.h>

#include <string>

namespace ucc::testkit {

class ScopedEnv {
  public:
    ScopedEnv(const char *name, const char *value) : name_(name) {
        if (const char *old = getenv(name)) {
            had_ = true;
            old_ = old;
        }
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_) {
            setenv(name_, old_.c_str(), 1);
        } else {
            unsetenv(name_);
        }
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    const char *name_;
    bool had_ = false;
    std::string old_;
};

}  // namespace ucc::testkit
