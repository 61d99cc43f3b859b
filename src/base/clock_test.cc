#include "base/clock.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

TEST(ManualClockTest, SleepAdvancesInsteadOfBlocking) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.NowMicros(), 1000);
  clock.SleepMicros(500);
  EXPECT_EQ(clock.NowMicros(), 1500);
  clock.Advance(2500);
  EXPECT_EQ(clock.NowMillis(), 4);
  clock.Set(7);
  EXPECT_EQ(clock.MonotonicMicros(), 7);
}

TEST(SystemClockTest, ReportsPlausibleUnixMicros) {
  int64_t now = SystemClock::Default()->NowMicros();
  EXPECT_GT(now, 1'600'000'000'000'000);  // After 2020.
  int64_t a = SystemClock::Default()->MonotonicMicros();
  int64_t b = SystemClock::Default()->MonotonicMicros();
  EXPECT_LE(a, b);
}

}  // namespace
}  // namespace omnigraph
