// Small shared vocabulary: export marker, status propagation, assertions.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <new>

#include "ucc/api/ucc.h"

// Marks a C API definition as exported from libucc.so (everything else is hidden).
#define UCC_EXPORT extern "C" __attribute__((visibility("default")))

namespace ucc {
// Empties a container and gives its storage back (`v = {}` keeps a vector's
// or string's capacity: it assigns from an empty initializer list).
template <class T>
void free_storage(T &v) noexcept {
    T().swap(v);
}
}  // namespace ucc

// Propagate a failing status.
#define UCC_TRY(expr)                   \
    do {                                \
        ucc_status_t ucc_try_ = (expr); \
        if (ucc_try_ < 0) {             \
            return ucc_try_;            \
        }                               \
    } while (0)

// Invariant checks: on in debug, simulator and CI builds; never for user input.
#if defined(UCC_ENABLE_ASSERT) && UCC_ENABLE_ASSERT
#define UCC_ASSERT(cond)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::fprintf(stderr, "ucc: assertion failed: %s (%s:%d)\n", #cond, __FILE__, \
                         __LINE__);                                                      \
            std::abort();                                                                \
        }                                                                                \
    } while (0)
#else
#define UCC_ASSERT(cond) ((void)0)
#endif

namespace ucc {

// Runs `body` (returning ucc_status_t) so that no exception crosses the C API.
template <class F>
ucc_status_t api_guard(const char *fn, F &&body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "[ucc] ERROR %s: out of memory\n", fn);
        return UCC_ERR_NO_MEMORY;
    } catch (...) {
        std::fprintf(stderr, "[ucc] ERROR %s: internal error\n", fn);
        return UCC_ERR_NO_MESSAGE;
    }
}

}  // namespace ucc
