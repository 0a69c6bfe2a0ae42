// The CUDA component as the core sees it: found and opened once per library
// handle (ucc_init), on first need, from UCC_COMPONENT_PATH or the ucc/
// directory beside libucc.so (lib/cuda_component.h has the table it returns).
//
// A build without the toolkit has no component file; a machine without a driver
// or a GPU loads it and counts no device. Either way `usable()` is false and
// `why()` says which, for the log line that refuses GPU memory.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "lib/cuda_component.h"
#include "ucc/api/ucc.h"

namespace ucc::core {

class Logger;

class CudaComponent {
  public:
    CudaComponent() = default;
    CudaComponent(const CudaComponent &) = delete;
    CudaComponent &operator=(const CudaComponent &) = delete;
    ~CudaComponent();

    // Where to look (UCC_COMPONENT_PATH, empty: beside libucc.so); read by the
    // first load, which happens once whichever thread asks first.
    void set_search_path(std::string dir) { search_path_ = std::move(dir); }

    // The table, or nullptr when no component could be opened.
    const ucc_cuda_component_t *ops(Logger &log);
    // A component is open and counts at least one device.
    bool usable(Logger &log);
    int devices(Logger &log);
    // Why GPU memory cannot be used here ("" when it can).
    const std::string &why(Logger &log);
    // The file opened, or the one looked for.
    const std::string &path(Logger &log);

    // UNKNOWN resolved through the runtime's pointer attributes (HOST when no
    // device is usable); other types as given.
    ucc_memory_type_t resolve(ucc_memory_type_t declared, const void *ptr, Logger &log);

    // Pinned memory a stream may still read (a destroyed stream engine's
    // words, lib/core/stream_gate.h): freed when the library is.
    void retire(void *pinned) noexcept;

  private:
    void load(Logger &log);

    std::once_flag once_;
    std::string search_path_;
    std::string path_;
    std::string why_;
    void *handle_ = nullptr;
    const ucc_cuda_component_t *ops_ = nullptr;
    int devices_ = 0;
    std::mutex retired_mu_;
    std::vector<void *> retired_;
};

// The directory the component is looked for in when UCC_COMPONENT_PATH is
// empty: <directory of the object holding the library>/ucc.
std::string default_component_dir();

}  // namespace ucc::core
