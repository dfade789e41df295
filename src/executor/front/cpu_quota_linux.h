// Copyright ferry authors. Internal: the cgroup CPU quota, for cpu_count(),
// read from /proc/self/cgroup and the cgroup files under /sys/fs/cgroup.
#ifndef FERRY_SRC_EXECUTOR_FRONT_CPU_QUOTA_LINUX_H_
#define FERRY_SRC_EXECUTOR_FRONT_CPU_QUOTA_LINUX_H_

#include <cstddef>
#include <optional>
#include <string_view>

namespace ferry::detail {

// CPUs allowed by a cgroup v2 cpu.max line ("max 100000" or "150000 100000"),
// rounded up; nullopt when unlimited or unreadable.
std::optional<std::size_t> quota_from_cpu_max(std::string_view line);

// CPUs allowed by cgroup v1 values (cpu.cfs_quota_us, cpu.cfs_period_us);
// nullopt when the quota is -1 (unlimited) or the values are not numbers.
std::optional<std::size_t> quota_from_cfs(std::string_view quota_us, std::string_view period_us);

// This process's quota: its cgroup's cpu.max (v2) or cfs files (v1).
std::optional<std::size_t> cgroup_cpu_quota();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_FRONT_CPU_QUOTA_LINUX_H_
