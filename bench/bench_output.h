// Copyright ferry authors. What every benchmark program of bench/ prints:
// JSON lines {"name": ..., "value": ..., "unit": ...} for bench/compare.py
// and bench/compare_mpi.py, and the helpers that compute them.
#ifndef FERRY_BENCH_BENCH_OUTPUT_H_
#define FERRY_BENCH_BENCH_OUTPUT_H_

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

using clock_type = std::chrono::steady_clock;

inline double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

inline void emit(const std::string& name, double value, const char* unit) {
  std::printf("{\"name\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}\n", name.c_str(), value, unit);
  std::fflush(stdout);
}

inline double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// CPU time (user and system) a process has used, in seconds: `pid` is a
// process id, or "self". From /proc/PID/stat, in clock ticks.
inline double cpu_seconds(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
  if (f == nullptr) return 0;
  char line[1024] = {};
  const std::size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  const std::string s(line, n);
  unsigned long utime = 0, stime = 0;
  // Fields 14 and 15, counted after the command, which is in parentheses.
  std::sscanf(s.c_str() + s.rfind(')') + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
              &stime);
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace bench

#endif  // FERRY_BENCH_BENCH_OUTPUT_H_
