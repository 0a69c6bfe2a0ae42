// A fresh directory for one test under $TMPDIR (or /tmp), named after the
// test's tag and the process, removed with everything in it when it goes.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ucc::testkit {

class TempDir {
  public:
    explicit TempDir(const std::string &tag) {
        const char *base = std::getenv("TMPDIR");
        path_ = std::string(base != nullptr ? base : "/tmp") + "/ucc_" + tag + "_" +
                std::to_string(getpid());
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
        std::filesystem::create_directories(path_, ec);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace ucc::testkit
