// Copyright ferry authors.
//
// Executor measurements, one per mode; each prints JSON lines
// {"name": ..., "value": ..., "unit": ...} for bench/compare.py.
//
//   executor_bench roundtrip|pingpong|spin|throughput|large|shared|memcpy|start|scaling [max workers]
//
// Run through scripts/bench.sh, which runs loky's side in the same run.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <executor/executor.h>

#include "bench_output.h"
#include "pool_measures.h"

namespace {

using bench::clock_type;
using bench::emit;
using bench::percentile;
using bench::seconds_since;

ferry::function<int(int)> noop() {
  return [](int x) { return x; };
}

ferry::pool_options options(std::size_t workers, ferry::start_method method = ferry::start_method::spawn) {
  ferry::pool_options o;
  o.max_workers = workers;
  o.start = method;
  return o;
}

// submit(noop).get(), one at a time, one worker.
void roundtrip() {
  ferry::process_pool pool(options(1));
  bench::measure_roundtrip(pool, noop(), "", 500, 5000);
}

// The low-latency mode: the round trip again with pool_options::spin, and
// the CPU time both processes spent per round trip, with it and without.
void spin() {
  for (const std::chrono::microseconds spin : {std::chrono::microseconds(0), std::chrono::microseconds(100)}) {
    ferry::pool_options o = options(1);
    o.spin = spin;
    ferry::process_pool pool(o);
    const std::string suffix = spin.count() == 0 ? "_nospin" : "_spin";
    for (int i = 0; i < 500; ++i) pool.submit(noop(), i).get();
    const int worker = pool.worker_pids().front();
    const double cpu_before = bench::cpu_seconds("self") + bench::cpu_seconds(std::to_string(worker));
    std::vector<double> s;
    for (int i = 0; i < 5000; ++i) {
      const auto t = clock_type::now();
      pool.submit(noop(), i).get();
      s.push_back(seconds_since(t));
    }
    const double cpu = bench::cpu_seconds("self") + bench::cpu_seconds(std::to_string(worker)) - cpu_before;
    emit("roundtrip" + suffix + "_median", percentile(s, 0.5) * 1e6, "us");
    emit("roundtrip" + suffix + "_p99", percentile(s, 0.99) * 1e6, "us");
    emit("roundtrip" + suffix + "_cpu", cpu / static_cast<double>(s.size()) * 1e6, "us");
  }
}

// The floor: two processes exchanging frames of the sizes of a no-op task
// and its result over a stream socketpair, one at a time.
void pingpong() {
  std::string task(ferry::dumps(ferry::function<int(int)>(noop())).size() + 24 + 8, 't');
  std::string result(24 + 1 + 4 + 8 + 1 + 4, 'r');
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  auto exact = [](int fd, char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t r = read(fd, p, n);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  };
  const pid_t child = fork();
  if (child == 0) {
    close(sv[0]);
    std::string in(task.size(), '\0');
    while (exact(sv[1], in.data(), in.size())) {
      if (write(sv[1], result.data(), result.size()) < 0) break;
    }
    _exit(0);
  }
  close(sv[1]);
  std::string back(result.size(), '\0');
  std::vector<double> us;
  for (int i = 0; i < 5500; ++i) {
    const auto t = clock_type::now();
    if (write(sv[0], task.data(), task.size()) < 0 || !exact(sv[0], back.data(), back.size())) break;
    if (i >= 500) us.push_back(seconds_since(t) * 1e6);
  }
  close(sv[0]);
  waitpid(child, nullptr, 0);
  emit("pingpong_median", percentile(us, 0.5), "us");
  emit("pingpong_p99", percentile(us, 0.99), "us");
}

// Both workers up, and a burst of the measured size already run: one task
// started only one worker, and the first burst in a process grows its heap
// by the memory of 100 000 futures, whose fresh pages cost more than the
// tasks on a machine where page faults are slow. Without it, whichever pool
// was measured first ran 1.5-1.9x slower than the next one.
void warm_up(ferry::process_pool& pool) {
  std::vector<ferry::future<int>> burst;
  for (int i = 0; i < 100'000; ++i) burst.push_back(pool.submit(noop(), i));
  for (auto& f : burst) f.get();
}

// 100 000 no-op tasks with 2 workers: one message each, and map in chunks
// of a fixed size and of the size the map chooses.
void throughput() {
  {
    ferry::process_pool pool(options(2));
    warm_up(pool);
    bench::measure_throughput(pool, noop(), "", "", 100'000, {1, 100, 256, 0});
  }
  // The same submits told to an observer that counts them
  // (observed_submit_tasks_per_s): what events cost when someone listens.
  struct counter final : ferry::pool_observer {
    std::atomic<std::uint64_t> tasks{0};
    void on_task(const ferry::task_event&) override { tasks.fetch_add(1, std::memory_order_relaxed); }
  };
  auto seen = std::make_shared<counter>();
  ferry::pool_options o = options(2);
  o.observer = seen;
  ferry::process_pool pool(o);
  warm_up(pool);
  bench::measure_throughput(pool, noop(), "observed_", "", 100'000, {});
  if (seen->tasks.load() < 2 * 100'000) std::abort();  // each was at least submitted and started
}

// A task taking and returning 64 MiB.
void large() {
  ferry::process_pool pool(options(1));
  bench::measure_large(pool, "");
}

// A 1 GiB ferry::shared_buffer to a task and back: the memory is the
// caller's, touched once before; nothing is copied, so what is measured is
// the passing of its descriptor and the mapping in each process.
void shared() {
  ferry::process_pool pool(options(1));
  ferry::function<ferry::shared_buffer(ferry::shared_buffer)> echo = [](ferry::shared_buffer b) { return b; };
  ferry::shared_buffer buffer(std::size_t{1} << 30);
  std::memset(buffer.data(), 'p', buffer.size());
  for (int i = 0; i < 20; ++i) pool.submit(echo, buffer).get();  // warm: the worker started, its heap grown
  std::vector<double> s;
  for (int i = 0; i < 200; ++i) {
    const auto t = clock_type::now();
    const ferry::shared_buffer back = pool.submit(echo, buffer).get();
    s.push_back(seconds_since(t));
    if (back.size() != buffer.size() || back.data()[12345] != std::byte{'p'}) std::abort();
  }
  const double median = percentile(s, 0.5);
  emit("shared_1gib_roundtrip_us", median * 1e6, "us");
  emit("shared_1gib_roundtrip_p99_us", percentile(s, 0.99) * 1e6, "us");
  emit("shared_gbps", 2.0 * static_cast<double>(buffer.size()) / median / 1e9, "GB/s");
}

void memcpy_floor() {
  std::vector<char> a(64u << 20, 'a'), b(64u << 20, 'b');
  std::vector<double> s;
  for (int i = 0; i < 10; ++i) {
    const auto t = clock_type::now();
    std::memcpy(b.data(), a.data(), a.size());
    s.push_back(seconds_since(t));
  }
  emit("memcpy_gbps", static_cast<double>(a.size()) / percentile(s, 0.5) / 1e9, "GB/s");
}

// From constructing a pool of 2 workers to the first result.
void start() {
  for (auto method : {ferry::start_method::spawn, ferry::start_method::fork}) {
    std::vector<double> ms;
    for (int i = 0; i < 7; ++i) {
      const auto t = clock_type::now();
      ferry::process_pool pool(options(2, method));
      pool.submit(noop(), 1).get();
      ms.push_back(seconds_since(t) * 1e3);
    }
    emit(std::string("start_") + ferry::to_string(method) + "_ms", percentile(ms, 0.5), "ms");
  }
}

// 2000 CPU-bound tasks of about 1 ms each, with 1, 2, 4, ... workers.
void scaling(std::size_t max) {
  ferry::function<double(int)> spin = [](int seed) {
    const auto until = clock_type::now() + std::chrono::milliseconds(1);
    double x = seed;
    while (clock_type::now() < until) x = x * 1.0000001 + 1;
    return x;
  };
  std::vector<int> inputs(2000);
  for (int i = 0; i < 2000; ++i) inputs[static_cast<std::size_t>(i)] = i;
  double one = 0;
  for (std::size_t workers = 1; workers <= max; workers *= 2) {
    ferry::process_pool pool(options(workers));
    pool.map(spin, std::vector<int>(workers * 4, 0), 1);  // start every worker
    const auto t = clock_type::now();
    pool.map(spin, inputs, 4);
    const double s = seconds_since(t);
    if (workers == 1) one = s;
    emit("scaling_" + std::to_string(workers) + "_workers_s", s, "s");
    emit("scaling_" + std::to_string(workers) + "_speedup", one / s, "x");
  }
}

}  // namespace

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "roundtrip") roundtrip();
  else if (mode == "pingpong") pingpong();
  else if (mode == "throughput") throughput();
  else if (mode == "large") large();
  else if (mode == "shared") shared();
  else if (mode == "spin") spin();
  else if (mode == "memcpy") memcpy_floor();
  else if (mode == "start") start();
  else if (mode == "scaling") scaling(argc > 2 ? std::stoul(argv[2]) : 16);
  else {
    std::cerr << "usage: " << argv[0] << " roundtrip|pingpong|spin|throughput|large|shared|memcpy|start|scaling [max]\n";
    return 2;
  }
  return 0;
}
