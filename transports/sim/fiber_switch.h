// Announcing fiber switches to AddressSanitizer.
//
// AddressSanitizer follows one stack per thread unless told of every switch
// between stacks. Untold, an exception thrown inside a rank cannot clear the
// redzones of the frames it unwinds (the runtime does not know the rank's
// stack), and a later throw on that stack reports them as stack misuse. So
// every switch between stacks (the event loop and a rank, a rank and one of
// its threads) is announced: start before it (fake == nullptr when the fiber
// leaving ends), finish right after. Without AddressSanitizer both do nothing.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace ucc::sim {

inline void asan_switch_start(void **fake, const void *bottom, size_t size) {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake;
    (void)bottom;
    (void)size;
#endif
}

inline void asan_switch_finish(void *fake, const void **old_bottom, size_t *old_size) {
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_finish_switch_fiber(fake, old_bottom, old_size);
#else
    (void)fake;
    (void)old_bottom;
    (void)old_size;
#endif
}

}  // namespace ucc::sim
