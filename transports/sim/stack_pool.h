// Fiber stacks of the simulated ranks: StackPool hands out stacks carved from
// mmap'd slabs, and PooledStack is the Boost.Context stack allocator over it.
#pragma once

#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace ucc::sim {

// Stacks: mmap'd slabs carved into stacks (lowest page a guard when affordable),
// committed lazily by the kernel in small pages, recycled through a free list.
class StackPool {
  public:
    StackPool(size_t stack_bytes, bool guard);
    ~StackPool();
    StackPool(const StackPool &) = delete;
    StackPool &operator=(const StackPool &) = delete;

    // Shared by the cluster and every fiber's allocator, on one thread. (Not
    // std::shared_ptr: its type info would leak out of libucc.so.)
    void ref() { ++refs_; }
    void unref() {
        if (--refs_ == 0) {
            delete this;
        }
    }
    // A fiber that will never give its stack back (a crashed rank's, never
    // unwound) gives up its reference now, so that the pool, that stack
    // included, still goes back to the kernel with its last owner. The
    // caller holds a reference of its own.
    void abandon() { --refs_; }

    // Top of a fresh or recycled stack of stack_bytes(); nullptr when out of memory.
    void *take();
    void give(void *top) { free_.push_back(top); }
    size_t stack_bytes() const { return stack_bytes_; }
    void *last_top() const { return last_top_; }  // of the latest take()

    // A fiber that ends switches away without returning from its frames, so
    // AddressSanitizer's redzones of those frames stay poisoned; so do those
    // of an earlier mapping at the same addresses. Boost.Context on Debian
    // does not annotate its switches: clear the shadow of every stack handed
    // out, or stale redzones read as stack-buffer-overflows in the next run.
    static void unpoison(void *p, size_t n);

  private:
    bool guard_;
    void *last_top_ = nullptr;
    size_t page_ = 4096;
    size_t stack_bytes_ = 0;
    size_t slot_bytes_ = 0;
    size_t slots_per_slab_ = 1;
    size_t next_slot_ = 0;
    std::vector<std::pair<char *, size_t>> slabs_;
    std::vector<void *> free_;
    size_t refs_ = 1;
};

// Boost.Context stack allocator over a StackPool. Each copy holds a reference
// so that the pool outlives every fiber, whenever Boost.Context releases them.
class PooledStack {
  public:
    explicit PooledStack(StackPool *pool) : pool_(pool) { pool_->ref(); }
    PooledStack(const PooledStack &o) : pool_(o.pool_) { pool_->ref(); }
    PooledStack(PooledStack &&o) noexcept : pool_(o.pool_) { o.pool_ = nullptr; }
    PooledStack &operator=(const PooledStack &) = delete;
    PooledStack &operator=(PooledStack &&) = delete;
    ~PooledStack() {
        if (pool_ != nullptr) {
            pool_->unref();
        }
    }
    boost::context::stack_context allocate() {
        void *top = pool_->take();
        if (top == nullptr) {
            throw std::bad_alloc();  // on the event loop's fiber, never inside a rank
        }
        boost::context::stack_context sc;
        sc.size = pool_->stack_bytes();
        sc.sp = top;
        return sc;
    }
    void deallocate(boost::context::stack_context &sc) noexcept { pool_->give(sc.sp); }

  private:
    StackPool *pool_;
};

}  // namespace ucc::sim
