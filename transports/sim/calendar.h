// The bookings of one resource the ranks of a node share (its NIC, each
// way, its memory, or one of its cores), in virtual time.
//
// The ranks of the simulator run one at a time, each as far as it can, so
// they ask for a shared resource out of time order: a rank running ahead
// asks for a slot far in the future before a rank behind it asks for one
// now. A queue served in the order of the requests would make the second
// wait behind the first's future slot. A calendar instead gives each request
// the earliest stretch, from its own time on, that is free for as long as it
// holds the resource: the gaps before a booking stay usable. A booking never
// moves once made (a request earlier in virtual time that comes later in
// the run can still find the resource taken: the model's approximation).
//
// Cost: a request at or after every booking (the usual case) is O(1); one
// that falls among them, a search plus a shift of at most kMaxBookings.
// Bookings that ended by the global time are forgotten (no request starts
// before it), their room reused before the list grows (a calendar per rank
// stays small); beyond kMaxBookings live ones, the two earliest merge, the
// gap between them counted busy, so the memory per resource stays bounded.
// The first kInline bookings live inside the calendar (a SmallVector): a rank's
// receiving port usually holds one or two, and a list on the heap cost a
// million-rank barrier a cache miss per message and 190 bytes per rank.
//
// A core is such a resource with owners (book_as): each booking is one
// rank's work, and work that follows another rank's pays a switch first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "lib/util/small_vector.h"

namespace ucc::sim {

// One resource's bookings: [start, end) of `owner`'s.
struct Span {
    int64_t start;
    int64_t end;
    uint32_t owner;
};

class Calendar {
  public:
    static constexpr size_t kMaxBookings = 1024;
    static constexpr size_t kInline = 2;  // bookings inside the calendar

    // Books the resource for `hold` ps from the earliest time >= `at` at
    // which it is free that long, and returns that time. `now` is the
    // global virtual time: bookings that ended by then are dropped.
    int64_t book(int64_t at, int64_t hold, int64_t now) {
        return book_as(at, hold, now, kAnyone, 0) - hold;
    }

    // Books `hold` ps of `owner`'s work from the earliest time >= `at` at
    // which the resource is free long enough, `switch_ps` more where the
    // booking before (in time) is another owner's, and returns when the work
    // ends. The first booking, and one after the owner's own, switch nothing.
    int64_t book_as(int64_t at, int64_t hold, int64_t now, uint32_t owner, int64_t switch_ps) {
        forget(now);
        const auto live = busy_.begin() + static_cast<std::ptrdiff_t>(head_);
        // The first booking that ends after `at` (none: at or after every
        // booking, the usual case), then the first gap that fits.
        auto it = live == busy_.end() || at >= busy_.back().end
                      ? busy_.end()
                      : std::upper_bound(live, busy_.end(), at,
                                         [](int64_t t, const Span &s) { return t < s.end; });
        auto need = [&](Span *next) {
            const uint32_t before = next == live ? before_ : std::prev(next)->owner;
            return hold + (before == kAnyone || before == owner ? 0 : switch_ps);
        };
        int64_t start = at;
        int64_t take = need(it);
        while (it != busy_.end() && it->start < start + std::max<int64_t>(take, 1)) {
            start = std::max(start, it->end);
            ++it;
            take = need(it);
        }
        if (take > 0) {
            insert(it, start, start + take, owner);
        }
        return start + take;
    }

    // A port taking in a stream's bytes: `hold` ps of the resource's free
    // time from `at` on, in as many free stretches as it takes (packets of
    // several messages interleave; a message that finds the port busy is not
    // held back by a whole booking for a gap slightly too short), and no
    // earlier than the end of `owner`'s latest live booking (one sender's
    // messages into one port keep their order). Returns when the last
    // stretch ends. Bookings merged away (beyond kMaxBookings) count as
    // everyone's.
    int64_t book_spread(int64_t at, int64_t hold, int64_t now, uint32_t owner) {
        forget(now);
        for (size_t i = busy_.size(); i > head_ && busy_[i - 1].end > at; --i) {
            if (busy_[i - 1].owner == owner || (merged_ && i - 1 == head_)) {
                at = busy_[i - 1].end;
                break;
            }
        }
        if (hold <= 0) {
            return at;
        }
        // The first booking that ends after `at` (none: the usual case).
        size_t i = busy_.size();
        if (head_ < busy_.size() && at < busy_.back().end) {
            i = static_cast<size_t>(
                std::upper_bound(busy_.begin() + static_cast<std::ptrdiff_t>(head_), busy_.end(),
                                 at, [](int64_t t, const Span &sp) { return t < sp.end; }) -
                busy_.begin());
        }
        int64_t t = at;
        while (i < busy_.size() && busy_[i].start < t + hold) {
            if (busy_[i].start > t) {  // a free stretch before booking i: take it
                const int64_t end = busy_[i].start;
                hold -= end - t;
                i -= insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), t, end, owner);
                // Booking i again: the first that ends after the stretch
                // (the stretch may have joined either neighbour).
                i = std::max<size_t>(i, head_);
                while (i < busy_.size() && busy_[i].end <= end) {
                    ++i;
                }
                if (i > head_ && busy_[i - 1].end > end) {
                    --i;
                }
                t = end;
                if (i == busy_.size()) {
                    break;
                }
            }
            t = std::max(t, busy_[i].end);
            ++i;
        }
        insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), t, t + hold, owner);
        return t + hold;
    }

    // Live bookings (tests).
    size_t bookings() const { return busy_.size() - head_; }
    // Bookings it has room for, inside or on the heap (tests).
    size_t room() const { return busy_.capacity(); }

  private:
    static constexpr uint32_t kAnyone = UINT32_MAX;  // book()'s owner: never switches
    // An emptied calendar keeps heap room for this many bookings (a burst's
    // larger room goes back).
    static constexpr size_t kKeep = 8;

    void forget(int64_t now) {
        while (head_ < busy_.size() && busy_[head_].end <= now) {
            before_ = busy_[head_].owner;
            ++head_;
        }
        if (head_ == busy_.size()) {
            if (busy_.capacity() > kKeep) {
                busy_.release();  // a burst's room, given back
            }
            busy_.clear();
            head_ = 0;
        }
    }
    // Before the list grows, the forgotten bookings' room, when they are at
    // least as many as the live ones (amortised O(1): a compaction moves
    // no more bookings than it drops). Returns how far they moved.
    size_t compact() {
        const size_t dropped = head_;
        if (busy_.size() == busy_.capacity() && head_ > 0 && head_ >= busy_.size() - head_) {
            busy_.erase(busy_.begin(), busy_.begin() + head_);
            head_ = 0;
        }
        return dropped - head_;
    }

    // Before `it` (the first booking that starts at or after `end`), joined
    // to the bookings it touches. Returns how far the bookings from `it` on
    // moved towards the front (compact()).
    size_t insert(Span *it, int64_t start, int64_t end, uint32_t owner) {
        const bool joins_next = it != busy_.end() && it->start == end && it->owner == owner;
        const bool joins_prev = it != busy_.begin() + static_cast<std::ptrdiff_t>(head_) &&
                                std::prev(it)->end == start && std::prev(it)->owner == owner;
        if (joins_prev && joins_next) {
            std::prev(it)->end = it->end;
            busy_.erase(it);
        } else if (joins_prev) {
            std::prev(it)->end = end;
        } else if (joins_next) {
            it->start = start;
        } else {
            const size_t moved = compact();
            busy_.insert(it - moved, Span{start, end, owner});
            bound();
            return moved;
        }
        return 0;
    }

    // At most kMaxBookings live: the two earliest become one.
    void bound() {
        if (bookings() > kMaxBookings) {
            busy_[head_ + 1].start = busy_[head_].start;
            ++head_;
            merged_ = true;
        }
    }

    // Sorted, disjoint, touching only where their owners differ; live from head_.
    SmallVector<Span, kInline> busy_;
    uint32_t head_ = 0;
    uint32_t before_ = kAnyone;  // the owner of the last booking forgotten
    bool merged_ = false;        // bound() has merged bookings (book_spread)
};

}  // namespace ucc::sim
