// Copyright ferry authors. What every benchmark program of bench/ prints:
// JSON lines {"name": ..., "value": ..., "unit": ...} for bench/compare.py
// and bench/compare_mpi.py, and the helpers that compute them.
#ifndef FERRY_BENCH_BENCH_OUTPUT_H_
#define FERRY_BENCH_BENCH_OUTPUT_H_

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

}  // namespace bench

#endif  // FERRY_BENCH_BENCH_OUTPUT_H_
