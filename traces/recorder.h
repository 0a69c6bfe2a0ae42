// The recorder of a context's trace (FORMAT.md): opens the context's file in
// the trace directory, writes the header, then one line per record. The core
// (lib/core) fills the records; this only formats and stores them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "traces/file_writer.h"
#include "traces/records.h"

namespace ucc::traces {

class Recorder {
  public:
    // Creates <dir>/rank<R>.jsonl, or rank<R>.<k>.jsonl for the first k = 1,
    // 2, ... that does not exist yet, R = h.rank; writes the header. nullptr
    // and *error when the file cannot be created.
    static std::unique_ptr<Recorder> open(const std::string &dir, const Header &h,
                                          std::string *error);
    // Appends one record. False (once, and nothing is recorded afterwards)
    // when the file cannot take it.
    bool write(const Record &r);
    // Writes the `end` record and closes the file.
    void end(int64_t t);
    // Closes the file (the caller wrote its `end`).
    void close() { file_->close(); }
    const std::string &path() const { return path_; }
    bool failed() const { return failed_; }

  private:
    std::unique_ptr<FileWriter> file_;
    std::string path_;
    std::string line_;  // reused for every record
    bool failed_ = false;
};

}  // namespace ucc::traces
