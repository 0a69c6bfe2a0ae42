// Fiber stacks of the simulated ranks (stack_pool.h): slabs, guard pages and
// the free list.
#include "transports/sim/stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace ucc::sim {

namespace {

constexpr size_t kSlabBytes = 64ull << 20;

}  // namespace

StackPool::StackPool(size_t stack_bytes, bool guard) : guard_(guard) {
    long page = ::sysconf(_SC_PAGESIZE);
    page_ = page > 0 ? static_cast<size_t>(page) : 4096;
    size_t want = std::max<size_t>(stack_bytes, 16 * 1024);
    stack_bytes_ = (want + page_ - 1) / page_ * page_;
    slot_bytes_ = stack_bytes_ + (guard_ ? page_ : 0);
    slots_per_slab_ = std::max<size_t>(1, kSlabBytes / slot_bytes_);
}

StackPool::~StackPool() {
    for (auto &[base, len] : slabs_) {
        ::munmap(base, len);
    }
}

void *StackPool::take() {
    if (!free_.empty()) {
        void *top = free_.back();
        free_.pop_back();
        unpoison(static_cast<char *>(top) - stack_bytes_, stack_bytes_);
        last_top_ = top;
        return top;
    }
    if (slabs_.empty() || next_slot_ == slots_per_slab_) {
        size_t len = slots_per_slab_ * slot_bytes_;
        void *base = ::mmap(nullptr, len, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED) {
            return nullptr;
        }
        // Never on huge pages: a rank touches a page or two at the top of
        // its stack, and where the kernel gives huge pages to every mapping
        // (transparent_hugepage "always") one 2 MiB page would commit eight
        // 256 KiB stacks whole: 256 KiB per rank instead of 4-8 KiB.
        ::madvise(base, len, MADV_NOHUGEPAGE);
        slabs_.emplace_back(static_cast<char *>(base), len);
        next_slot_ = 0;
        unpoison(base, len);
    }
    char *slot = slabs_.back().first + next_slot_ * slot_bytes_;
    ++next_slot_;
    if (guard_) {
        ::mprotect(slot, page_, PROT_NONE);
    }
    last_top_ = slot + slot_bytes_;
    return last_top_;
}

void StackPool::unpoison(void *p, size_t n) {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    (void)p;
    (void)n;
#endif
}

}  // namespace ucc::sim
