// Copyright ferry authors.
#include <executor/cpu_count.h>

#include <sched.h>

#include <algorithm>
#include <optional>

#include "executor/front/cpu_quota_linux.h"

namespace ferry {

std::size_t cpu_count() noexcept {
  std::size_t n = 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    n = static_cast<std::size_t>(CPU_COUNT(&set));
  if (const std::optional<std::size_t> quota = detail::cgroup_cpu_quota()) n = std::min(n, *quota);
  return std::max<std::size_t>(n, 1);
}

}  // namespace ferry
