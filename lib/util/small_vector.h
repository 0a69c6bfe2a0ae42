// SmallVector: a vector of trivially copyable values that keeps up to N of
// them inline and goes to the heap only beyond that, for the short lists on a
// collective's hot path (a tree node's children) that must not allocate, and
// for state kept per simulated rank (a port's bookings: transports/sim/
// calendar.h), where a list of its own on the heap costs memory and a cache
// miss.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

namespace ucc {

template <class T, size_t N>
class SmallVector {
    static_assert(std::is_trivially_copyable_v<T>);

  public:
    SmallVector() = default;
    SmallVector(const SmallVector &o) { *this = o; }
    SmallVector &operator=(const SmallVector &o) {
        if (this != &o) {
            size_ = 0;
            reserve(o.size_);
            std::memcpy(data(), o.data(), o.size_ * sizeof(T));
            size_ = o.size_;
        }
        return *this;
    }

    void push_back(T v) {
        if (size_ == capacity_) {
            reserve(capacity_ * 2);
        }
        data()[size_++] = v;
    }
    // Inserts `v` before `at` (a position in it); returns where it went.
    T *insert(T *at, T v) {
        const size_t i = static_cast<size_t>(at - data());
        if (size_ == capacity_) {
            reserve(capacity_ * 2);
        }
        T *d = data();
        std::memmove(d + i + 1, d + i, (size_ - i) * sizeof(T));
        d[i] = v;
        ++size_;
        return d + i;
    }
    void erase(T *first, T *last) {
        std::memmove(first, last, static_cast<size_t>(end() - last) * sizeof(T));
        size_ -= static_cast<uint32_t>(last - first);
    }
    void erase(T *at) { erase(at, at + 1); }
    void reserve(size_t n) {
        if (n <= capacity_) {
            return;
        }
        auto grown = std::make_unique_for_overwrite<T[]>(n);
        std::memcpy(grown.get(), data(), size_ * sizeof(T));
        heap_ = std::move(grown);
        capacity_ = static_cast<uint32_t>(n);
    }

    // Empties it, keeping its capacity (inline or on the heap).
    void clear() { size_ = 0; }
    // Empties it and gives its heap room back (inline again).
    void release() {
        heap_.reset();
        size_ = 0;
        capacity_ = N;
    }
    size_t size() const { return size_; }
    size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    T *data() { return heap_ ? heap_.get() : inline_; }
    const T *data() const { return heap_ ? heap_.get() : inline_; }
    T &operator[](size_t i) { return data()[i]; }
    const T &operator[](size_t i) const { return data()[i]; }
    T &back() { return data()[size_ - 1]; }
    T *begin() { return data(); }
    T *end() { return data() + size_; }
    const T *begin() const { return data(); }
    const T *end() const { return data() + size_; }

  private:
    T inline_[N];
    std::unique_ptr<T[]> heap_;
    uint32_t size_ = 0;
    uint32_t capacity_ = N;
};

}  // namespace ucc
