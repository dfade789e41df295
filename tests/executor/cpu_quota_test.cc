// Copyright ferry authors.
//
// The cgroup CPU quota (src/executor/front/cpu_quota_linux.cc), read from
// the lines cgroup v2 and v1 write.
#include "executor/front/cpu_quota_linux.h"

#include <gtest/gtest.h>

#include <optional>

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
