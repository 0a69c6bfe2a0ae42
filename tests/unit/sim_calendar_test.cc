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

}  // namespace
}  // namespace ucc::sim
