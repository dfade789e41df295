// Copyright ferry authors.
//
// ferry::cpu_count(): how many workers a pool with max_workers = 0 gets.
#ifndef FERRY_EXECUTOR_CPU_COUNT_H_
#define FERRY_EXECUTOR_CPU_COUNT_H_

#include <cstddef>

#include "executor/internal/config.h"

namespace ferry {

// How many workers this process can keep busy: the CPUs of its affinity
// mask, lowered to the cgroup CPU quota (cgroup v2 cpu.max, or v1
// cpu.cfs_quota_us / cpu.cfs_period_us) rounded up; at least 1.
FERRY_EXECUTOR_EXPORT std::size_t cpu_count() noexcept;

}  // namespace ferry

#endif  // FERRY_EXECUTOR_CPU_COUNT_H_
