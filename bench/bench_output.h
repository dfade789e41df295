// Copyright ferry authors. What every benchmark program of bench/ prints:
// JSON lines {"name": ..., "value": ..., "unit": ...} for bench/compare.py
// and bench/compare_mpi.py, and the helpers that compute them.
#ifndef FERRY_BENCH_BENCH_OUTPUT_H_
#define FERRY_BENCH_BENCH_OUTPUT_H_

#include <dirent.h>
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

// What the scheduler counted for every thread of a process, summed: time
// on a CPU and waiting on a run queue (/proc/PID/task/TID/schedstat, in
// nanoseconds), and context switches, those where the thread blocked or
// yielded (voluntary) and those where it was preempted. A thread that
// ended between two samples takes its counts with it.
struct sched_counts {
  double on_cpu_ns = 0, run_queue_ns = 0, voluntary = 0, involuntary = 0;
  sched_counts& operator+=(const sched_counts& o) {
    on_cpu_ns += o.on_cpu_ns;
    run_queue_ns += o.run_queue_ns;
    voluntary += o.voluntary;
    involuntary += o.involuntary;
    return *this;
  }
  sched_counts& operator-=(const sched_counts& o) {
    on_cpu_ns -= o.on_cpu_ns;
    run_queue_ns -= o.run_queue_ns;
    voluntary -= o.voluntary;
    involuntary -= o.involuntary;
    return *this;
  }
};

// One thread's: `task` is /proc/PID/task/TID.
inline void add_sched_counts(const std::string& task, sched_counts& c) {
  if (std::FILE* f = std::fopen((task + "/schedstat").c_str(), "r")) {
    unsigned long long cpu = 0, wait = 0;
    if (std::fscanf(f, "%llu %llu", &cpu, &wait) == 2) {
      c.on_cpu_ns += static_cast<double>(cpu);
      c.run_queue_ns += static_cast<double>(wait);
    }
    std::fclose(f);
  }
  if (std::FILE* f = std::fopen((task + "/status").c_str(), "r")) {
    char line[256];
    unsigned long n = 0;
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::sscanf(line, "voluntary_ctxt_switches: %lu", &n) == 1) c.voluntary += static_cast<double>(n);
      if (std::sscanf(line, "nonvoluntary_ctxt_switches: %lu", &n) == 1) c.involuntary += static_cast<double>(n);
    }
    std::fclose(f);
  }
}

// Every thread's of process `pid` (a process id, or "self"), or thread
// `tid`'s alone.
inline sched_counts sched_counts_of(const std::string& pid, const std::string& tid = "") {
  sched_counts c;
  const std::string tasks = "/proc/" + pid + "/task";
  if (!tid.empty()) {
    add_sched_counts(tasks + "/" + tid, c);
    return c;
  }
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return c;
  while (const dirent* e = ::readdir(dir))
    if (e->d_name[0] != '.') add_sched_counts(tasks + "/" + e->d_name, c);
  ::closedir(dir);
  return c;
}

// Emits `counts` per round trip: <prefix>_switches (both kinds),
// <prefix>_involuntary, <prefix>_run_queue_us and <prefix>_on_cpu_us.
inline void emit_sched(const std::string& prefix, const sched_counts& counts, int round_trips) {
  const double n = round_trips;
  emit(prefix + "_switches", (counts.voluntary + counts.involuntary) / n, "per round trip");
  emit(prefix + "_involuntary", counts.involuntary / n, "per round trip");
  emit(prefix + "_run_queue_us", counts.run_queue_ns / n / 1e3, "us");
  emit(prefix + "_on_cpu_us", counts.on_cpu_ns / n / 1e3, "us");
}

}  // namespace bench

#endif  // FERRY_BENCH_BENCH_OUTPUT_H_
