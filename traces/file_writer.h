// An append-only file written through a shared memory mapping: appending a
// line is a copy into the mapped window (no system call), and the kernel's
// page cache owns what was copied, so a process that is killed leaves every
// line it finished in the file. The file grows in window steps, reserved with
// posix_fallocate (a full disk is an error, not a SIGBUS); its tail is NUL
// bytes until close() trims it. Where the file system cannot map it or
// reserve the space, each line is written with pwrite(2) instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ucc::traces {

class FileWriter {
  public:
    // Creates `path`, which must not exist (O_EXCL). nullptr and *error
    // (errno's text) on failure; EEXIST is reported through *exists.
    static std::unique_ptr<FileWriter> create(const std::string &path, std::string *error,
                                              bool *exists = nullptr);
    ~FileWriter();
    FileWriter(const FileWriter &) = delete;
    FileWriter &operator=(const FileWriter &) = delete;

    // Appends one line, which ends with '\n'; that byte is stored last. False
    // on an I/O error (the file keeps what was appended before).
    bool append(std::string_view line);
    // Trims the file to what was appended and closes it (also done by the
    // destructor).
    void close();
    uint64_t size() const { return length_; }

  private:
    explicit FileWriter(int fd) : fd_(fd) {}
    bool map_window(size_t need);
    int fd_ = -1;
    uint64_t length_ = 0;     // bytes appended
    uint64_t allocated_ = 0;  // the file's size (a multiple of the page size)
    char *window_ = nullptr;  // mapping of [window_at_, window_at_ + window_bytes_)
    uint64_t window_at_ = 0;
    size_t window_bytes_ = 0;
    bool mapped_ = true;  // false: write(2) per line
};

}  // namespace ucc::traces
