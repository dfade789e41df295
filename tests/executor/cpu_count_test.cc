// Copyright ferry authors.
//
// Counting the CPUs this process may use (src/executor/front/cpu_count.cc):
// within its affinity mask, and following a narrower one.
#include <executor/cpu_count.h>

#include <sched.h>

#include <gtest/gtest.h>

TEST(CpuCount, WithinTheAffinityMask) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_GE(ferry::cpu_count(), 1u);
  EXPECT_LE(ferry::cpu_count(), static_cast<std::size_t>(CPU_COUNT(&set)));
}

TEST(CpuCount, HonoursANarrowerAffinityMask) {
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(ferry::cpu_count(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
}
