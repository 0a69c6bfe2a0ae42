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
    // The recorder of a context created without an OOB, whose rank nothing
    // tells yet: its records wait in memory until name() gives it its rank
    // and size (the core does when the context's first team over an OOB is
    // posted), or until it is closed (then it takes h.rank and h.size).
    static std::unique_ptr<Recorder> open_unnamed(const std::string &dir, const Header &h);
    // Names an unnamed recorder: creates <dir>/rank<rank>[.<k>].jsonl as
    // open() does, with the header's rank and size set, and writes what
    // waited. False and *error when the file cannot be made (nothing is
    // recorded afterwards).
    bool name(uint64_t rank, uint64_t size, std::string *error);
    bool named() const { return file_ != nullptr || failed_; }
    // Appends one record. False (once, and nothing is recorded afterwards)
    // when the file cannot take it.
    bool write(const Record &r);
    // Writes the `end` record and closes the file.
    void end(int64_t t);
    // Closes the file (the caller wrote its `end`).
    void close();
    // The file, or "<dir> (not named yet)".
    const std::string &path() const { return path_; }
    bool failed() const { return failed_; }

  private:
    // Creates the file for header_ and writes it with what waited.
    bool create(std::string *error);

    std::unique_ptr<FileWriter> file_;
    std::string dir_;
    Header header_;        // while unnamed
    std::string waiting_;  // the records written while unnamed
    std::string path_;
    std::string line_;  // reused for every record
    bool failed_ = false;
};

}  // namespace ucc::traces
