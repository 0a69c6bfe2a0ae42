// An ordered map that keeps its first few entries inside the object.
//
// An endpoint of the simulator usually waits on one or two (peer, tag) keys at
// a time; a std::map would put each in its own heap node, one more cache miss
// per message on a rank whose state has gone cold. SmallMap holds up to N
// entries inline (unsorted, found by a linear scan) and only the rest in a
// std::map. Iteration (for_each) is in key order, as std::map's, so reports
// and conflict searches stay deterministic.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

namespace ucc::sim {

template <class K, class V, size_t N>
class SmallMap {
  public:
    bool empty() const { return n_ == 0 && spill_.empty(); }
    size_t size() const { return n_ + spill_.size(); }

    V *find(const K &k) {
        for (uint32_t i = 0; i < n_; ++i) {
            if (slots_[i].first == k) {
                return &slots_[i].second;
            }
        }
        if (spill_.empty()) {
            return nullptr;
        }
        auto it = spill_.find(k);
        return it == spill_.end() ? nullptr : &it->second;
    }

    // The entry for k among the inline slots only (null: not there, or
    // spilled): a lookup that touches nothing but the map itself.
    const V *find_inline(const K &k) const {
        for (uint32_t i = 0; i < n_; ++i) {
            if (slots_[i].first == k) {
                return &slots_[i].second;
            }
        }
        return nullptr;
    }

    // The entry for k, value-initialised if there was none.
    V &operator[](const K &k) {
        if (V *v = find(k)) {
            return *v;
        }
        if (n_ < N) {
            slots_[n_] = Entry(k, V());
            return slots_[n_++].second;
        }
        return spill_[k];
    }

    void erase(const K &k) {
        for (uint32_t i = 0; i < n_; ++i) {
            if (slots_[i].first == k) {
                slots_[i] = slots_[n_ - 1];
                slots_[--n_] = Entry();
                return;
            }
        }
        spill_.erase(k);
    }

    void clear() {
        for (Entry &e : slots_) {
            e = Entry();
        }
        n_ = 0;
        spill_.clear();
    }

    // f(key, value) for every entry, in key order.
    template <class F>
    void for_each(F &&f) const {
        // Insertion sort of the (at most N) inline entries by key.
        std::array<uint32_t, N> order;
        for (uint32_t i = 0; i < n_; ++i) {
            uint32_t j = i;
            while (j > 0 && slots_[i].first < slots_[order[j - 1]].first) {
                order[j] = order[j - 1];
                --j;
            }
            order[j] = i;
        }
        uint32_t i = 0;
        for (const auto &[k, v] : spill_) {
            while (i < n_ && slots_[order[i]].first < k) {
                f(slots_[order[i]].first, slots_[order[i]].second);
                ++i;
            }
            f(k, v);
        }
        for (; i < n_; ++i) {
            f(slots_[order[i]].first, slots_[order[i]].second);
        }
    }

  private:
    using Entry = std::pair<K, V>;
    std::array<Entry, N> slots_;
    uint32_t n_ = 0;
    std::map<K, V> spill_;
};

}  // namespace ucc::sim
