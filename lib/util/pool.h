// Pool: free lists for the small objects a collective makes and drops at every
// post — its coroutine frames and its transfers — so that a collective in
// steady state allocates nothing.
//
// One pool per context, used under the context's lock (never shared between
// threads without it). Blocks come in size classes, every 64 B up to 1 KiB
// (frames and transfers waste little: per-rank memory counts in a simulation
// of a million ranks), then 2 and 4 KiB; a larger request, and a freed block
// its class has no room for (each keeps at most kKeep), go to and come from
// the heap. What a pool keeps is what its context once had alive at the same
// time, capped, and it is freed with the pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace ucc {

class Pool {
  public:
    static constexpr size_t kStep = 64;
    static constexpr size_t kFine = 16;            // 64, 128, ..., 1024 bytes
    static constexpr size_t kClasses = kFine + 2;  // then 2048 and 4096
    static constexpr uint32_t kKeep = 64;          // free blocks kept per class

    Pool() = default;
    Pool(const Pool &) = delete;
    Pool &operator=(const Pool &) = delete;
    ~Pool() { release(); }

    // Frees the blocks on the free lists (a destroyed context's pool).
    void release() noexcept {
        for (size_t c = 0; c < kClasses; ++c) {
            while (free_[c] != nullptr) {
                Node *n = free_[c];
                free_[c] = n->next;
                ::operator delete(n);
            }
            kept_[c] = 0;
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
        return ::operator new(c < kClasses ? block_bytes(c) : bytes);
    }
    // `bytes` as given to allocate().
    void deallocate(void *p, size_t bytes) noexcept {
        const size_t c = size_class(bytes);
        if (c < kClasses && kept_[c] < kKeep) {
            auto *n = static_cast<Node *>(p);
            n->next = free_[c];
            free_[c] = n;
            ++kept_[c];
            return;
        }
        ::operator delete(p);
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
        return c < kFine ? (c + 1) * kStep : (kFine * kStep) << (c - kFine + 1);
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
    Node *free_[kClasses] = {};
    uint32_t kept_[kClasses] = {};
};

}  // namespace ucc
