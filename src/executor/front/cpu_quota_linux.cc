// Copyright ferry authors.
#include "executor/front/cpu_quota_linux.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace ferry::detail {
namespace {

std::optional<long long> number(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::size_t> ratio(long long quota, long long period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  return static_cast<std::size_t>((quota + period - 1) / period);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The process's cgroup path for a controller ("" for v2's unified line).
std::optional<std::string> cgroup_path(std::string_view controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // hierarchy-id:controllers:path
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string_view controllers = std::string_view(line).substr(first + 1, second - first - 1);
    if (controller.empty() ? controllers.empty() : controllers.find(controller) != std::string_view::npos)
      return line.substr(second + 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> quota_from_cpu_max(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto quota = number(line.substr(0, space));  // "max" is not a number: unlimited
  const auto period = number(line.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  return ratio(*quota, *period);
}

std::optional<std::size_t> quota_from_cfs(std::string_view quota_us, std::string_view period_us) {
  const auto quota = number(quota_us);
  const auto period = number(period_us);
  if (!quota || !period) return std::nullopt;
  return ratio(*quota, *period);
}

std::optional<std::size_t> cgroup_cpu_quota() {
  if (const auto v2 = cgroup_path("")) {
    if (auto q = quota_from_cpu_max(read_file("/sys/fs/cgroup" + *v2 + "/cpu.max"))) return q;
  }
  if (const auto v1 = cgroup_path("cpu")) {
    for (const std::string& base : {"/sys/fs/cgroup/cpu,cpuacct" + *v1, "/sys/fs/cgroup/cpu" + *v1}) {
      if (auto q = quota_from_cfs(read_file(base + "/cpu.cfs_quota_us"), read_file(base + "/cpu.cfs_period_us")))
        return q;
    }
  }
  return std::nullopt;
}

}  // namespace ferry::detail
