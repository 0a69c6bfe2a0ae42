// Pool: free lists for the small objects a collective makes and drops at every
// post — its coroutine frames and its transfers — so that a collective in
// steady state allocates nothing.
//
// One pool per context, used under the context's lock (never shared between
// threads without it). Blocks come in size classes, every 64 B up to 1 KiB
// (frames and transfers waste little: per-rank memory counts in a simulation
// of a million ranks; classes of 32 B cost a context more in free lists
// than its transfers saved), every 256 B up to 2 KiB (a collective's
// request, 1.2 KiB: in 2 KiB blocks it cost a 65,536-rank simulation 40 %
// more memory), then 4 KiB; a larger request, and a freed block
// its class has no room for (each keeps at most kKeep), go to and come from
// the heap. What a pool keeps is what its context once had alive at the same
// time, capped, and it is freed with the pool.
//
// A pool may reserve room for its first blocks up front (reserve), carved in
// order as they are first asked for: a context reserves it when it is made,
// so that a simulated rank's first collective (its request, frames and
// transfers; lib/core/core.h kContextFirstBlocks) sits beside the rank's
// context, endpoint and team instead of wherever the heap has got to when
// the collective starts. Every event of a million-rank run lands on a rank
// gone cold: one compact rank costs fewer misses than one scattered over the
// heap (measured: about 10 % of a 65,536-rank barrier; with the team's handle
// and its id agreement's frames there too, 30 % of the million-rank barrier
// on contexts over an OOB). The room goes back to the heap with the pool, or
// with its last block when blocks outlive the pool's release.
//
// Blocks that must find their pool when freed (coroutine frames, requests:
// operator delete has no pool at hand) come from allocate_in and go back
// through deallocate_in, which keep the pool in a header before the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace ucc {

class Pool {
  public:
    static constexpr size_t kStep = 64;
    static constexpr size_t kFine = 16;  // 64, 128, ..., 1024 bytes
    static constexpr size_t kMidStep = 256;
    static constexpr size_t kMid = 4;                     // 1280, 1536, 1792, 2048
    static constexpr size_t kClasses = kFine + kMid + 1;  // then 4096
    static constexpr uint32_t kKeep = 64;                 // free blocks kept per class

    Pool() = default;
    Pool(const Pool &) = delete;
    Pool &operator=(const Pool &) = delete;
    ~Pool() { release(); }

    // Frees the blocks on the free lists (a destroyed context's pool), and
    // the reserved room unless some of its blocks are still out.
    void release() noexcept {
        for (size_t c = 0; c < kClasses; ++c) {
            while (free_[c] != nullptr) {
                Node *n = free_[c];
                free_[c] = n->next;
                if (in_slab(n)) {
                    --slab_held_;
                } else {
                    ::operator delete(n);
                }
            }
            kept_[c] = 0;
        }
        released_ = true;
        free_slab_if_unused();
    }

    // Room for the first blocks, allocated now. Throws std::bad_alloc.
    // (At most 2 MiB: kept_ counts its blocks of a class in 16 bits.)
    void reserve(size_t bytes) {
        if (slab_ == nullptr && !released_) {
            slab_ = static_cast<char *>(::operator new(bytes));
            slab_end_ = slab_ + bytes;
            bump_ = slab_;
        }
    }

    // Throws std::bad_alloc like operator new.
    void *allocate(size_t bytes) {
        const size_t c = size_class(bytes);
        if (c < kClasses && free_[c] != nullptr) {
            Node *n = free_[c];
            free_[c] = n->next;
            --kept_[c];
            return n;
        }
        if (c < kClasses && !released_ &&
            static_cast<size_t>(slab_end_ - bump_) >= block_bytes(c)) {
            void *p = bump_;
            bump_ += block_bytes(c);
            ++slab_held_;
            return p;
        }
        return ::operator new(c < kClasses ? block_bytes(c) : bytes);
    }
    // `bytes` as given to allocate().
    void deallocate(void *p, size_t bytes) noexcept {
        const size_t c = size_class(bytes);
        if (c < kClasses && in_slab(p)) {  // (the room serves only classes)
            if (released_) {
                --slab_held_;
                free_slab_if_unused();
                return;
            }
            auto *n = static_cast<Node *>(p);  // its room is kept anyway: never capped
            n->next = free_[c];
            free_[c] = n;
            ++kept_[c];
            return;
        }
        if (c < kClasses && kept_[c] < kKeep) {
            auto *n = static_cast<Node *>(p);
            n->next = free_[c];
            free_[c] = n;
            ++kept_[c];
            return;
        }
        ::operator delete(p);
    }

    // A block that keeps its pool (nullptr: the heap) in a header before it.
    static constexpr size_t kHeader = alignof(std::max_align_t);
    static void *allocate_in(Pool *pool, size_t bytes) {
        void *b =
            pool != nullptr ? pool->allocate(bytes + kHeader) : ::operator new(bytes + kHeader);
        *static_cast<Pool **>(b) = pool;
        return static_cast<char *>(b) + kHeader;
    }
    // `bytes` as given to allocate_in().
    static void deallocate_in(void *p, size_t bytes) noexcept {
        void *b = static_cast<char *>(p) - kHeader;
        Pool *pool = *static_cast<Pool **>(b);
        if (pool != nullptr) {
            pool->deallocate(b, bytes + kHeader);
        } else {
            ::operator delete(b);
        }
    }

    // Blocks on the free lists (for tests).
    uint32_t kept() const {
        uint32_t n = 0;
        for (uint32_t k : kept_) {
            n += k;
        }
        return n;
    }

    static constexpr size_t block_bytes(size_t c) {
        if (c < kFine) {
            return (c + 1) * kStep;
        }
        if (c < kFine + kMid) {
            return kFine * kStep + (c - kFine + 1) * kMidStep;
        }
        return 4096;
    }
    // The class serving `bytes`, or kClasses when none does.
    static constexpr size_t size_class(size_t bytes) {
        if (bytes <= kFine * kStep) {
            return bytes == 0 ? 0 : (bytes - 1) / kStep;
        }
        size_t c = kFine;
        while (c < kClasses && block_bytes(c) < bytes) {
            ++c;
        }
        return c;
    }

  private:
    struct Node {
        Node *next;
    };
    bool in_slab(const void *p) const {
        const auto *b = static_cast<const char *>(p);
        return slab_ != nullptr && b >= slab_ && b < slab_end_;
    }
    void free_slab_if_unused() noexcept {
        if (slab_held_ == 0) {
            ::operator delete(slab_);
            slab_ = slab_end_ = bump_ = nullptr;
        }
    }
    Node *free_[kClasses] = {};
    uint16_t kept_[kClasses] = {};  // at most kKeep, and the room's blocks of the class
    // The reserved room: carved up to bump_; slab_held_ of its blocks are out
    // of it (in use or on a free list).
    char *slab_ = nullptr;
    char *slab_end_ = nullptr;
    char *bump_ = nullptr;
    uint32_t slab_held_ = 0;
    bool released_ = false;
};

// An object that lives in a pool (`new (pool) T(...)`, beside what the pool's
// context already holds) or on the heap (`new T(...)`), and goes back to
// where it came from when deleted, through a base pointer too (the deleting
// destructor passes the dynamic type's size).
template <class T>
struct PoolAllocated {
    static void *operator new(size_t bytes, Pool &pool) { return Pool::allocate_in(&pool, bytes); }
    static void *operator new(size_t bytes) { return Pool::allocate_in(nullptr, bytes); }
    static void operator delete(void *p, Pool &) noexcept { Pool::deallocate_in(p, sizeof(T)); }
    static void operator delete(void *p, size_t bytes) noexcept { Pool::deallocate_in(p, bytes); }
};

}  // namespace ucc
