// The trace file writer (file_writer.h).
#include "traces/file_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace ucc::traces {

namespace {

constexpr size_t kWindow = size_t{1} << 20;

uint64_t page_size() {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<uint64_t>(p) : 4096;
}

}  // namespace

std::unique_ptr<FileWriter> FileWriter::create(const std::string &path, std::string *error,
                                               bool *exists) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (exists != nullptr) {
            *exists = errno == EEXIST;
        }
        *error = path + ": " + std::strerror(errno);
        return nullptr;
    }
    return std::unique_ptr<FileWriter>(new FileWriter(fd));
}

FileWriter::~FileWriter() {
    close();
}

// Maps a window that starts at the page holding length_ and holds `need`
// more bytes, growing the file to cover it.
bool FileWriter::map_window(size_t need) {
    if (window_ != nullptr) {
        munmap(window_, window_bytes_);
        window_ = nullptr;
    }
    const uint64_t page = page_size();
    const uint64_t at = length_ / page * page;
    const uint64_t bytes = ((length_ - at + need + kWindow + page - 1) / page) * page;
    if (at + bytes > allocated_) {
        // Blocks reserved now: a full disk is an error here, never a SIGBUS
        // when a mapped page is first written.
        if (posix_fallocate(fd_, static_cast<off_t>(allocated_),
                            static_cast<off_t>(at + bytes - allocated_)) != 0) {
            return false;
        }
        allocated_ = at + bytes;
    }
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, static_cast<off_t>(at));
    if (p == MAP_FAILED) {
        return false;
    }
    window_ = static_cast<char *>(p);
    window_at_ = at;
    window_bytes_ = bytes;
    return true;
}

bool FileWriter::append(std::string_view line) {
    if (fd_ < 0 || line.empty()) {
        return fd_ >= 0;
    }
    if (mapped_) {
        const bool fits = window_ != nullptr && length_ + line.size() <= window_at_ + window_bytes_;
        if (!fits && !map_window(line.size())) {
            // No mapping here (a file system without mmap): plain writes from now on.
            mapped_ = false;
            if (allocated_ > length_ && ftruncate(fd_, static_cast<off_t>(length_)) != 0) {
                return false;
            }
            allocated_ = length_;
        }
    }
    if (mapped_) {
        char *dst = window_ + (length_ - window_at_);
        std::memcpy(dst, line.data(), line.size() - 1);
        // The line's end only after its body: a kill in between leaves a line
        // without '\n', which readers ignore.
        std::atomic_signal_fence(std::memory_order_release);
        dst[line.size() - 1] = line.back();
        length_ += line.size();
        return true;
    }
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::pwrite(fd_, line.data() + done, line.size() - done,
                                   static_cast<off_t>(length_ + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        done += static_cast<size_t>(n);
    }
    length_ += line.size();
    return true;
}

void FileWriter::close() {
    if (fd_ < 0) {
        return;
    }
    if (window_ != nullptr) {
        munmap(window_, window_bytes_);
        window_ = nullptr;
    }
    if (allocated_ != length_) {
        (void)ftruncate(fd_, static_cast<off_t>(length_));
    }
    ::close(fd_);
    fd_ = -1;
}

}  // namespace ucc::traces
