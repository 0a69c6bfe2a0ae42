// The calendar of a resource a node's ranks share (transports/sim/calendar.h).
#include <gtest/gtest.h>

#include <cstdint>

#include "transports/sim/calendar.h"

namespace ucc::sim {
namespace {

TEST(SimCalendar, RequestsInTimeOrderQueue) {
    Calendar c;
    EXPECT_EQ(c.book(0, 10, 0), 0);
    EXPECT_EQ(c.book(5, 10, 0), 10);   // behind the first
    EXPECT_EQ(c.book(30, 10, 0), 30);  // free by then
    EXPECT_EQ(c.bookings(), 2u);       // [0, 20) joined, [30, 40)
}

TEST(SimCalendar, ARequestFromBehindFillsTheGapBeforeALaterBooking) {
    Calendar c;
    EXPECT_EQ(c.book(100, 10, 0), 100);  // a rank running ahead
    EXPECT_EQ(c.book(0, 10, 0), 0);      // one behind it: the gap before is free
    EXPECT_EQ(c.book(5, 10, 0), 10);     // after that one, still before 100
    EXPECT_EQ(c.book(85, 10, 0), 85);    // [85, 95) fits before 100
    EXPECT_EQ(c.book(90, 10, 0), 110);   // [95, 100) is too short: after 100's
    EXPECT_EQ(c.book(0, 60, 0), 20);     // [20, 80) is the first 60 free
    EXPECT_EQ(c.book(0, 0, 0), 80);      // an instant: the first free one
}

TEST(SimCalendar, BookingsThatEndedAreForgotten) {
    Calendar c;
    for (int64_t t = 0; t < 1000; t += 20) {
        c.book(t, 10, t);
        EXPECT_LE(c.bookings(), 2u) << t;
    }
}

TEST(SimCalendar, LiveBookingsAreBoundedByJoiningTheEarliest) {
    Calendar c;
    const int64_t n = static_cast<int64_t>(Calendar::kMaxBookings) + 10;
    for (int64_t i = 0; i < n; ++i) {
        c.book(1000 + 20 * i, 10, 0);
    }
    EXPECT_EQ(c.bookings(), Calendar::kMaxBookings);
    // The ten earliest gaps are counted busy now, the later ones not.
    EXPECT_EQ(c.book(1000, 5, 0), 1000 + 20 * 10 + 10);
    EXPECT_EQ(c.book(1000 + 20 * (n - 2), 10, 0), 1000 + 20 * (n - 2) + 10);
}

// A receiving port takes one message at a time while the ranks run ahead of
// the global time: its few live bookings, and those that ended, stay inside
// the calendar (a heap list per rank cost a million-rank barrier 190 bytes
// and a cache miss per message).
TEST(SimCalendar, AFewBookingsStayInside) {
    Calendar c;
    int64_t now = 0;
    for (int64_t t = 0; t < 100000; t += 100) {
        c.book_spread(t, 50, now, static_cast<uint32_t>(t % 7));
        now = t;  // the last booking ended before the next one
    }
    EXPECT_EQ(c.room(), Calendar::kInline);
    // A burst takes heap room, given back once it has all ended.
    for (int64_t i = 0; i < 100; ++i) {
        c.book_spread(200000 + 1000 * i, 50, now, static_cast<uint32_t>(i));
    }
    EXPECT_EQ(c.bookings(), 101u);  // and the last of the first ones
    EXPECT_GT(c.room(), Calendar::kInline);
    c.book_spread(10000000, 50, 9000000, 0);
    EXPECT_EQ(c.bookings(), 1u);
    EXPECT_EQ(c.room(), Calendar::kInline);
}

// The calendar's list (lib/util/small_vector.h): inserts and erases keep the order, inside and on
// the heap; release gives the heap room back.
TEST(SmallVector, InsertsEraseAndGivesItsRoomBack) {
    SmallVector<int64_t, 2> v;
    for (int64_t i = 0; i < 10; ++i) {  // 0, 2, ..., 18, each inserted at the front
        v.insert(v.begin(), 18 - 2 * i);
    }
    v.insert(v.begin() + 1, 1);
    ASSERT_EQ(v.size(), 11u);
    EXPECT_EQ(v[0], 0);
    EXPECT_EQ(v[1], 1);
    EXPECT_EQ(v.back(), 18);
    v.erase(v.begin(), v.begin() + 2);
    v.erase(v.end() - 1);
    ASSERT_EQ(v.size(), 8u);
    EXPECT_EQ(v[0], 2);
    EXPECT_EQ(v.back(), 16);
    EXPECT_GT(v.capacity(), 2u);
    v.release();
    EXPECT_TRUE(v.empty());
    EXPECT_EQ(v.capacity(), 2u);
    v.insert(v.end(), 5);
    EXPECT_EQ(v[0], 5);
}

// A core (book_as): each booking one rank's work; after another rank's, a
// switch first.
TEST(SimCalendar, WorkAfterAnotherOwnersPaysTheSwitch) {
    Calendar c;
    EXPECT_EQ(c.book_as(0, 10, 0, 1, 5), 10);    // the first: no switch
    EXPECT_EQ(c.book_as(10, 10, 0, 1, 5), 20);   // after its own: none
    EXPECT_EQ(c.bookings(), 1u);                 // [0, 20) joined
    EXPECT_EQ(c.book_as(0, 10, 0, 2, 5), 35);    // waits for 1's, switches: [20, 35)
    EXPECT_EQ(c.book_as(100, 1, 0, 2, 5), 101);  // after its own (a gap between)
    EXPECT_EQ(c.book_as(50, 10, 0, 1, 5), 65);   // after 2's: [50, 65)
    EXPECT_EQ(c.book_as(36, 3, 0, 2, 5), 39);    // after 2's own [20, 35): fits before 50
    EXPECT_EQ(c.book_as(40, 6, 0, 1, 5), 71);    // [39, 50) is free, but 11 > 10: after 65
    EXPECT_EQ(c.book_as(40, 0, 0, 2, 5), 40);    // an instant after its own: nothing
    EXPECT_EQ(c.book_as(40, 0, 0, 1, 5), 45);    // after 2's: the switch alone, [40, 45)
    EXPECT_EQ(c.bookings(),
              6u);  // [0,20) 1, [20,35) 2, [36,39) 2, [40,45) 1, [50,71) 1, [100,101) 2
    // The owner of the last booking forgotten still counts.
    Calendar d;
    d.book_as(0, 10, 0, 1, 5);
    EXPECT_EQ(d.book_as(20, 1, 20, 2, 5), 26);
    EXPECT_EQ(d.bookings(), 1u);
}

TEST(SimCalendar, BookSpreadTakesTheFreeStretchesInOwnerOrder) {
    Calendar c;
    EXPECT_EQ(c.book_spread(0, 10, 0, 1), 10);   // [0, 10) 1
    EXPECT_EQ(c.book_spread(30, 10, 0, 2), 40);  // [30, 40) 2
    // 30 from 12: [12, 30) then [40, 52), interleaved with 2's.
    EXPECT_EQ(c.book_spread(12, 30, 0, 3), 52);
    // Owner 3's next starts after its own latest, whatever is free before.
    EXPECT_EQ(c.book_spread(13, 5, 0, 3), 57);
    EXPECT_EQ(c.book_spread(13, 5, 0, 4), 62);  // nothing free from 13 until 57
    // Owner 1's next: from the end of its own [0, 10), [10, 12) and then 62.
    EXPECT_EQ(c.book_spread(0, 5, 0, 1), 65);
    // Bookings merged away count as everyone's.
    Calendar d;
    const auto n = static_cast<int64_t>(Calendar::kMaxBookings) + 1;
    for (int64_t i = 0; i < n; ++i) {
        d.book_spread(100 + 20 * i, 10, 0, 7);  // 7's, the earliest merged with the next
    }
    // [100, 130) is 7's first two joined: any owner's might be in it, so a
    // booking that reaches into it goes after it.
    EXPECT_EQ(d.book_spread(0, 5, 0, 8), 135);
    EXPECT_EQ(d.book_spread(105, 5, 0, 9), 140);
}

}  // namespace
}  // namespace ucc::sim
