// Copyright ferry authors.
//
// Choosing a start method by name and counting usable CPUs.
#include <sched.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <executor/executor.h>

#include "executor/front/cpu_quota_linux.h"

TEST(StartMethod, FromString) {
  EXPECT_EQ(ferry::start_method_from_string("spawn"), ferry::start_method::spawn);
  EXPECT_EQ(ferry::start_method_from_string("fork"), ferry::start_method::fork);
  EXPECT_EQ(ferry::start_method_from_string("plugin"), ferry::start_method::plugin);
  EXPECT_EQ(ferry::start_method_from_string("in_process"), ferry::start_method::in_process);
  for (auto m : {ferry::start_method::spawn, ferry::start_method::fork, ferry::start_method::plugin,
                 ferry::start_method::in_process})
    EXPECT_EQ(ferry::start_method_from_string(ferry::to_string(m)), m);
}

TEST(StartMethod, BadNameListsTheValidOnes) {
  try {
    (void)ferry::start_method_from_string("forkserver");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'forkserver'"), std::string::npos) << what;
    EXPECT_NE(what.find("spawn, fork, plugin and in_process"), std::string::npos) << what;
  }
}

TEST(StartMethod, FromEnvironment) {
  ::unsetenv("FERRY_START_METHOD");
  EXPECT_EQ(ferry::start_method_from_env(ferry::start_method::fork), ferry::start_method::fork);
  ::setenv("FERRY_START_METHOD", "plugin", 1);
  EXPECT_EQ(ferry::start_method_from_env(), ferry::start_method::plugin);
  ::setenv("FERRY_START_METHOD", "nope", 1);
  EXPECT_THROW(ferry::start_method_from_env(), std::invalid_argument);
  ::unsetenv("FERRY_START_METHOD");
}

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

TEST(CpuQuota, CgroupV2CpuMax) {
  EXPECT_EQ(ferry::detail::quota_from_cpu_max("max 100000\n"), std::nullopt);
  EXPECT_EQ(ferry::detail::quota_from_cpu_max("200000 100000\n"), 2u);
  EXPECT_EQ(ferry::detail::quota_from_cpu_max("150000 100000"), 2u);  // rounded up
  EXPECT_EQ(ferry::detail::quota_from_cpu_max("50000 100000"), 1u);
  EXPECT_EQ(ferry::detail::quota_from_cpu_max(""), std::nullopt);
  EXPECT_EQ(ferry::detail::quota_from_cpu_max("garbage"), std::nullopt);
}

TEST(CpuQuota, CgroupV1Cfs) {
  EXPECT_EQ(ferry::detail::quota_from_cfs("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(ferry::detail::quota_from_cfs("400000\n", "100000\n"), 4u);
  EXPECT_EQ(ferry::detail::quota_from_cfs("", ""), std::nullopt);
}
