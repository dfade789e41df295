// Copyright ferry authors.
//
// Deadlines from durations (include/executor/internal/deadline.h): exact
// for an ordinary duration, rounded up below the clock's tick, saturated
// at "never" for one too long to add, "now" for none.
#include <executor/internal/deadline.h>

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace ferry::detail {
namespace {

using namespace std::chrono_literals;
using clock = deadline_clock;

const clock::time_point from = clock::now();

TEST(Deadline, AnOrdinaryDurationIsAddedExactlyAndAFloatingOneRoundedUp) {
  EXPECT_EQ(later_by(from, 5ms), from + 5ms);
  EXPECT_EQ(later_by(from, std::chrono::hours(24)), from + std::chrono::hours(24));
  EXPECT_EQ(later_by(from, std::chrono::duration<double>(0.5)), from + 500ms);
  EXPECT_EQ(later_by(from, std::chrono::duration<double, std::nano>(1.5)), from + 2ns);
}

TEST(Deadline, ADurationTooLongToAddIsNeverRatherThanAWrapIntoThePast) {
  EXPECT_EQ(later_by(from, std::chrono::milliseconds::max()), clock::time_point::max());
  EXPECT_EQ(later_by(from, std::chrono::nanoseconds::max()), clock::time_point::max());
  EXPECT_EQ(later_by(from, std::chrono::hours::max()), clock::time_point::max());
  EXPECT_EQ(later_by(from, std::chrono::duration<double>(1e300)), clock::time_point::max());
  EXPECT_EQ(later_by(from, std::chrono::duration<double>(std::numeric_limits<double>::infinity())),
            clock::time_point::max());
  EXPECT_EQ(later_by(clock::time_point::max() - 1s, 2s), clock::time_point::max());
  EXPECT_GT(deadline_after(std::chrono::milliseconds::max()), clock::now() + std::chrono::hours(24 * 365 * 100));
}

TEST(Deadline, NoDurationANegativeOneOrNaNIsDueAtOnce) {
  EXPECT_EQ(later_by(from, 0ms), from);
  EXPECT_EQ(later_by(from, -5ms), from);
  EXPECT_EQ(later_by(from, std::chrono::milliseconds::min()), from);
  EXPECT_EQ(later_by(from, std::chrono::duration<double>(std::numeric_limits<double>::quiet_NaN())), from);
  const clock::time_point due = deadline_after(-1s);
  EXPECT_LE(due, clock::now());
}

TEST(Deadline, MillisecondsAreRoundedUpAndSaturated) {
  EXPECT_EQ(saturating_milliseconds(1ns), 1ms);
  EXPECT_EQ(saturating_milliseconds(std::chrono::duration<double, std::milli>(1.2)), 2ms);
  EXPECT_EQ(saturating_milliseconds(3s), 3000ms);
  EXPECT_EQ(saturating_milliseconds(std::chrono::hours::max()), std::chrono::milliseconds::max());
  EXPECT_EQ(saturating_milliseconds(std::chrono::hours::min()), std::chrono::milliseconds::min());
  EXPECT_EQ(saturating_milliseconds(std::chrono::duration<double>(std::numeric_limits<double>::quiet_NaN())),
            0ms);
}

}  // namespace
}  // namespace ferry::detail
