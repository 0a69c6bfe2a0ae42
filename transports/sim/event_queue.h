// The simulator's pending events: a monotone radix heap.
//
// Events leave in the order of (time_ps, tie, seq), exactly as from a binary
// heap on that key, but for a fraction of the cost when millions are pending:
// a push appends to one of 129 buckets (chosen by the highest bit in which the
// event's (time_ps, tie) differs from the last key taken out), and a pop scans
// only the lowest non-empty bucket when the bottom one runs dry, moving each
// event down a few buckets over its lifetime. Appends and scans are
// sequential, so the cost per event stays flat instead of missing the cache on
// every level of a deep heap. Buckets are lists of fixed-size chunks from one
// free list, so memory follows the number of pending events, not the sum of
// every bucket's high-water mark.
//
// Keys only grow (a discrete-event clock never goes back), with one
// exception: an event pushed at the current time with a tie below the last
// key's. Such an event is the smallest pending one; it joins the bottom
// bucket, which is a small binary heap on the full key, and leaves next.
//
// A window of the next kAhead events is kept out of the heap, in order
// (ahead()), so that the event loop can fetch what they will touch several
// events before it applies them. An event pushed below the window's last one
// is inserted into it, the window's last going back to the heap: the order is
// still exactly the heap order.
//
// E needs members `int64_t time_ps` (>= 0), `uint64_t tie` and `uint64_t seq`.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ucc::sim {

template <class E>
class EventQueue {
  public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }

    static constexpr size_t kAhead = 8;

    void push(const E &e) {
        ++size_;
        if (n_ahead_ > 0 && Later{}(window(n_ahead_ - 1), e)) {
            // Below the window's last event: into the window, in order.
            size_t i = n_ahead_;
            if (n_ahead_ == kAhead) {
                put(window(kAhead - 1));  // the window's last goes back
                ++queued_;
                --i;
            } else {
                ++n_ahead_;
            }
            while (i > 0 && Later{}(window(i - 1), e)) {
                window(i) = window(i - 1);
                --i;
            }
            window(i) = e;
            return;
        }
        put(e);
        ++queued_;
    }

    // The smallest pending event, removed. The queue must not be empty.
    E pop() {
        if (n_ahead_ == 0) {
            fill();
        }
        E e = window(0);
        head_ = (head_ + 1) % kAhead;
        --n_ahead_;
        --size_;
        return e;
    }

    // The smallest pending event, left in place. The queue must not be empty.
    const E &peek() { return *ahead(0); }

    // The k-th smallest pending event (k < kAhead), left in place; null when
    // fewer are pending.
    const E *ahead(size_t k) {
        if (k >= n_ahead_) {
            fill();
        }
        return k < n_ahead_ ? &window(k) : nullptr;
    }

    // Calls f on every pending event (in no particular order), then empties the queue.
    template <class F>
    void drain(F &&f) {
        for (size_t i = 0; i < n_ahead_; ++i) {
            f(window(i));
        }
        n_ahead_ = 0;
        head_ = 0;
        queued_ = 0;
        for (const E &e : bottom_) {
            f(e);
        }
        bottom_.clear();
        for (Bucket &b : buckets_) {
            consume(b.head, f);
            b = Bucket{};
        }
        nonempty_ = {};
        size_ = 0;
    }

    EventQueue() = default;
    EventQueue(const EventQueue &) = delete;
    EventQueue &operator=(const EventQueue &) = delete;
    ~EventQueue() {
        drain([](const E &) {});
        while (free_ != nullptr) {
            Chunk *next = free_->next;
            delete free_;
            free_ = next;
        }
    }

  private:
    E &window(size_t i) { return ahead_[(head_ + i) % kAhead]; }

    // Tops the window up from the heap.
    void fill() {
        while (n_ahead_ < kAhead && queued_ > 0) {
            window(n_ahead_++) = take();
            --queued_;
        }
    }

    // The heap's smallest event, removed.
    E take() {
        if (bottom_.empty()) {
            refill();
        }
        std::pop_heap(bottom_.begin(), bottom_.end(), Later{});
        E e = bottom_.back();
        bottom_.pop_back();
        return e;
    }

    static constexpr int kBuckets = 128;  // buckets_[i]: highest differing bit i
    static constexpr uint32_t kChunkEvents = 256;

    struct Chunk {
        Chunk *next;
        uint32_t n;
        E ev[kChunkEvents];
    };
    struct Bucket {
        Chunk *head = nullptr;
        Chunk *tail = nullptr;
    };

    Chunk *acquire() {
        Chunk *c = free_;
        if (c != nullptr) {
            free_ = c->next;
        } else {
            c = new Chunk;
        }
        c->next = nullptr;
        c->n = 0;
        return c;
    }
    void release(Chunk *c) {
        c->next = free_;
        free_ = c;
    }

    struct Later {
        bool operator()(const E &a, const E &b) const {
            if (a.time_ps != b.time_ps) {
                return a.time_ps > b.time_ps;
            }
            if (a.tie != b.tie) {
                return a.tie > b.tie;
            }
            return a.seq > b.seq;
        }
    };

    // -1 when (time_ps, tie) is at or below the last key, else its highest
    // bit differing from the last key (0..127).
    int bucket_of(const E &e) const {
        const auto t = static_cast<uint64_t>(e.time_ps);
        if (t != last_time_) {
            if (t < last_time_) {
                return -1;
            }
            return 64 + 63 - __builtin_clzll(t ^ last_time_);
        }
        if (e.tie <= last_tie_) {
            return -1;
        }
        return 63 - __builtin_clzll(e.tie ^ last_tie_);
    }

    void put(const E &e) {
        const int b = bucket_of(e);
        if (b < 0) {
            bottom_.push_back(e);
            std::push_heap(bottom_.begin(), bottom_.end(), Later{});
            return;
        }
        Bucket &k = buckets_[static_cast<size_t>(b)];
        if (k.tail == nullptr || k.tail->n == kChunkEvents) {
            Chunk *c = acquire();
            (k.tail != nullptr ? k.tail->next : k.head) = c;
            k.tail = c;
        }
        k.tail->ev[k.tail->n++] = e;
        nonempty_[static_cast<size_t>(b) / 64] |= uint64_t{1} << (b % 64);
    }

    // Moves the lowest non-empty bucket down, its smallest key becoming the
    // last key (and its events with that key the bottom bucket).
    void refill() {
        int b = -1;
        for (size_t w = 0; w < nonempty_.size(); ++w) {
            if (nonempty_[w] != 0) {
                b = static_cast<int>(w * 64) + __builtin_ctzll(nonempty_[w]);
                break;
            }
        }
        Bucket from = buckets_[static_cast<size_t>(b)];
        buckets_[static_cast<size_t>(b)] = Bucket{};
        nonempty_[static_cast<size_t>(b) / 64] &= ~(uint64_t{1} << (b % 64));
        const E *min = &from.head->ev[0];
        for (const Chunk *c = from.head; c != nullptr; c = c->next) {
            for (uint32_t i = 0; i < c->n; ++i) {
                const E &e = c->ev[i];
                if (e.time_ps < min->time_ps || (e.time_ps == min->time_ps && e.tie < min->tie)) {
                    min = &e;
                }
            }
        }
        last_time_ = static_cast<uint64_t>(min->time_ps);
        last_tie_ = min->tie;
        // Every event of the bucket now lands in a lower one (the smallest in
        // the bottom), so the chunks can be recycled as they are emptied.
        consume(from.head, [this](const E &e) { put(e); });
    }

    // Calls f on every event of a chunk list, returning each chunk to the free
    // list once it has been read (f may take chunks for other buckets).
    template <class F>
    void consume(Chunk *c, F &&f) {
        while (c != nullptr) {
            for (uint32_t i = 0; i < c->n; ++i) {
                f(c->ev[i]);
            }
            Chunk *next = c->next;
            release(c);
            c = next;
        }
    }

    std::array<E, kAhead> ahead_{};  // the window: n_ahead_ events from head_, in order
    size_t head_ = 0;
    size_t n_ahead_ = 0;
    size_t queued_ = 0;      // events in the heap (size_ - n_ahead_)
    std::vector<E> bottom_;  // keys <= the last key: a binary heap
    std::array<Bucket, kBuckets> buckets_{};
    std::array<uint64_t, kBuckets / 64> nonempty_{};
    Chunk *free_ = nullptr;
    uint64_t last_time_ = 0;
    uint64_t last_tie_ = 0;
    size_t size_ = 0;
};

}  // namespace ucc::sim
