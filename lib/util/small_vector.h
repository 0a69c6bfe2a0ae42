// SmallVector: a vector of trivially copyable values that keeps up to N of
// them inline and goes to the heap only beyond that, for the short lists on a
// collective's hot path (a tree node's children) that must not allocate.
#pragma once

#include <cstddef>
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
    void reserve(size_t n) {
        if (n <= capacity_) {
            return;
        }
        auto grown = std::make_unique_for_overwrite<T[]>(n);
        std::memcpy(grown.get(), data(), size_ * sizeof(T));
        heap_ = std::move(grown);
        capacity_ = n;
    }

    // Empties it, keeping its capacity (inline or on the heap).
    void clear() { size_ = 0; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T *data() { return heap_ ? heap_.get() : inline_; }
    const T *data() const { return heap_ ? heap_.get() : inline_; }
    T &operator[](size_t i) { return data()[i]; }
    const T &operator[](size_t i) const { return data()[i]; }
    T *begin() { return data(); }
    T *end() { return data() + size_; }
    const T *begin() const { return data(); }
    const T *end() const { return data() + size_; }

  private:
    T inline_[N];
    std::unique_ptr<T[]> heap_;
    size_t size_ = 0;
    size_t capacity_ = N;
};

}  // namespace ucc
