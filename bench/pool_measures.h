// Copyright ferry authors. The measures every pool benchmark of bench/
// takes the same way, for any pool with pool_front's API (process_pool in
// executor_bench.cc, mpi_pool in mpi_bench.cc), so that their figures
// compare: `prefix` and `suffix` name them.
#ifndef FERRY_BENCH_POOL_MEASURES_H_
#define FERRY_BENCH_POOL_MEASURES_H_

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include <serialize/function.h>

#include "bench_output.h"

namespace bench {

// submit(task, i).get(), one at a time, after `warm_up` unmeasured ones:
// <prefix>roundtrip_median and _p99, in microseconds.
template <class Pool, class Task>
void measure_roundtrip(Pool& pool, const Task& task, const std::string& prefix, int warm_up, int count) {
  for (int i = 0; i < warm_up; ++i) pool.submit(task, i).get();
  std::vector<double> us;
  for (int i = 0; i < count; ++i) {
    const auto t = clock_type::now();
    pool.submit(task, i).get();
    us.push_back(seconds_since(t) * 1e6);
  }
  emit(prefix + "roundtrip_median", percentile(us, 0.5), "us");
  emit(prefix + "roundtrip_p99", percentile(us, 0.99), "us");
}

// `count` tasks submitted at once, one message each, then map over as many
// inputs at each chunk size: <prefix>submit_tasks_per_s<suffix> and
// <prefix>map_chunk<n>_items_per_s<suffix> (chunk size 0, chosen by the
// map: map_chunkauto).
template <class Pool, class Task>
void measure_throughput(Pool& pool, const Task& task, const std::string& prefix, const std::string& suffix,
                        int count, std::initializer_list<std::size_t> chunks) {
  {
    const auto t = clock_type::now();
    std::vector<decltype(pool.submit(task, 0))> futures;
    futures.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) futures.push_back(pool.submit(task, i));
    for (auto& f : futures) f.get();
    emit(prefix + "submit_tasks_per_s" + suffix, count / seconds_since(t), "tasks/s");
  }
  std::vector<int> inputs(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) inputs[static_cast<std::size_t>(i)] = i;
  for (std::size_t chunk : chunks) {
    const auto t = clock_type::now();
    pool.map(task, inputs, chunk);
    const std::string size = chunk == 0 ? "auto" : std::to_string(chunk);
    emit(prefix + "map_chunk" + size + "_items_per_s" + suffix, count / seconds_since(t),
         "items/s");
  }
}

// A task taking and returning 64 MiB, five times after a first one:
// <prefix>large_roundtrip_ms and <prefix>large_gbps (both ways counted).
template <class Pool>
void measure_large(Pool& pool, const std::string& prefix) {
  ferry::function<std::string(std::string)> echo = [](std::string s) { return s; };
  const std::string payload(64u << 20, 'p');
  pool.submit(echo, payload).get();
  std::vector<double> s;
  for (int i = 0; i < 5; ++i) {
    const auto t = clock_type::now();
    const std::string back = pool.submit(echo, payload).get();
    s.push_back(seconds_since(t));
    if (back.size() != payload.size()) std::abort();
  }
  const double median = percentile(s, 0.5);
  emit(prefix + "large_roundtrip_ms", median * 1e3, "ms");
  emit(prefix + "large_gbps", 2.0 * static_cast<double>(payload.size()) / median / 1e9, "GB/s");
}

}  // namespace bench

#endif  // FERRY_BENCH_POOL_MEASURES_H_
