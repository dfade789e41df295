// Copyright ferry authors.
//
// Executor measurements, one per mode; each prints JSON lines
// {"name": ..., "value": ..., "unit": ...} for bench/compare.py.
//
//   executor_bench roundtrip|pingpong|hops|spin|throughput|submits|floor|large|shared|memcpy|memory|start|scaling [max workers]
//
// Run through scripts/bench.sh, which runs loky's side in the same run.
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
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
// and its result over a stream socketpair, one at a time: `count` round
// trips after `warm_up`, their times in microseconds; with `counts`, what
// the scheduler counted for both processes over the measured ones.
std::vector<double> pingpong_times(int warm_up, int count, bench::sched_counts* counts = nullptr) {
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
  const std::string other = std::to_string(child);
  bench::sched_counts before;
  for (int i = 0; i < warm_up + count; ++i) {
    if (i == warm_up && counts != nullptr) {
      before = bench::sched_counts_of("self");
      before += bench::sched_counts_of(other);
    }
    const auto t = clock_type::now();
    if (write(sv[0], task.data(), task.size()) < 0 || !exact(sv[0], back.data(), back.size())) break;
    if (i >= warm_up) us.push_back(seconds_since(t) * 1e6);
  }
  if (counts != nullptr) {
    *counts = bench::sched_counts_of("self");
    *counts += bench::sched_counts_of(other);
    *counts -= before;
  }
  close(sv[0]);
  waitpid(child, nullptr, 0);
  return us;
}

void pingpong() {
  const std::vector<double> us = pingpong_times(500, 5000);
  emit("pingpong_median", percentile(us, 0.5), "us");
  emit("pingpong_p99", percentile(us, 0.99), "us");
}

// Where a round trip's time goes (issue 33): what the scheduler counted
// per round trip, 5 000 of them after 500, for the floor's two processes
// (hops_floor) and for ferry's submit(noop).get() with one worker: the
// submitting thread (hops_ferry_caller), the pool's other threads, its
// manager's (hops_ferry_manager), and the worker (hops_ferry_worker); and
// the median round trip of each over the same 5 000.
void hops() {
  constexpr int warm_up = 500, count = 5000;
  bench::sched_counts floor;
  emit("hops_floor_median", percentile(pingpong_times(warm_up, count, &floor), 0.5), "us");
  bench::emit_sched("hops_floor", floor, count);

  ferry::process_pool pool(options(1));
  for (int i = 0; i < warm_up; ++i) pool.submit(noop(), i).get();
  const std::string me = std::to_string(::getpid()), worker = std::to_string(pool.worker_pids().front());
  const bench::sched_counts process = bench::sched_counts_of("self"), caller = bench::sched_counts_of("self", me),
                            in_worker = bench::sched_counts_of(worker);
  std::vector<double> us;
  for (int i = 0; i < count; ++i) {
    const auto t = clock_type::now();
    pool.submit(noop(), i).get();
    us.push_back(seconds_since(t) * 1e6);
  }
  bench::sched_counts process_after = bench::sched_counts_of("self"),
                      caller_after = bench::sched_counts_of("self", me),
                      worker_after = bench::sched_counts_of(worker);
  process_after -= process;
  caller_after -= caller;
  worker_after -= in_worker;
  bench::sched_counts manager = process_after;
  manager -= caller_after;
  bench::sched_counts all = process_after;
  all += worker_after;
  emit("hops_ferry_median", percentile(us, 0.5), "us");
  bench::emit_sched("hops_ferry", all, count);
  bench::emit_sched("hops_ferry_caller", caller_after, count);
  bench::emit_sched("hops_ferry_manager", manager, count);
  bench::emit_sched("hops_ferry_worker", worker_after, count);
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

// The submit row alone, for profiles of where a task's CPU goes
// (scripts/cpu_by_stage.sh): the warm-up burst, then `count` tasks, one
// submit each: submits_tasks_per_s and submits_tasks (both bursts' tasks,
// which the profile covers).
void submits() {
  constexpr int count = 100'000;
  ferry::process_pool pool(options(2));
  warm_up(pool);
  const auto t = clock_type::now();
  std::vector<ferry::future<int>> futures;
  futures.reserve(count);
  for (int i = 0; i < count; ++i) futures.push_back(pool.submit(noop(), i));
  for (auto& f : futures) f.get();
  emit("submits_tasks_per_s", count / seconds_since(t), "tasks/s");
  emit("submits_tasks", 2.0 * count, "tasks");
}

// The floor under the throughput row: what the sockets alone carry with one
// frame each way per task. One process plays the pool: a thread writes the
// task frames (one write each, alternating between the workers, as far as
// the sockets' buffers let it) while another reads the results in bulk; two
// children play the workers (task frames read in bulk, one write per
// result). The frames have the sizes of a no-op task and its result;
// nothing is encoded, authenticated or decoded: floor_tasks_per_s.
void socket_floor() {
  // A message's header is 64 bytes (its tag among them, src/executor/wire/protocol.h).
  const std::size_t task_size = 64 + ferry::dumps(ferry::function<int(int)>(noop())).size() + 8;
  const std::size_t result_size = 64 + 1 + 4 + 8 + 1 + 4;
  constexpr int workers = 2, count = 100'000;
  int fds[workers];
  pid_t children[workers];
  for (int w = 0; w < workers; ++w) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
    children[w] = fork();
    if (children[w] == 0) {
      close(sv[0]);
      // The earlier workers' sockets, inherited: held open here, they would
      // never see their end.
      for (int other = 0; other < w; ++other) close(fds[other]);
      std::vector<char> in(64 * 1024);
      const std::string result(result_size, 'r');
      std::size_t pending = 0;  // bytes of task frames read and not yet answered
      for (;;) {
        const ssize_t r = read(sv[1], in.data(), in.size());
        if (r <= 0) _exit(0);
        pending += static_cast<std::size_t>(r);
        for (; pending >= task_size; pending -= task_size)
          if (write(sv[1], result.data(), result.size()) < 0) _exit(1);
      }
    }
    close(sv[1]);
    fds[w] = sv[0];
  }
  const auto t = clock_type::now();
  std::thread writer([&] {
    const std::string task(task_size, 't');
    for (int i = 0; i < count; ++i)
      if (write(fds[i % workers], task.data(), task.size()) != static_cast<ssize_t>(task.size())) std::abort();
  });
  std::vector<char> back(64 * 1024);
  std::size_t received = 0;
  while (received < count * result_size) {
    pollfd p[workers];
    for (int w = 0; w < workers; ++w) p[w] = {fds[w], POLLIN, 0};
    if (poll(p, workers, 10'000) <= 0) std::abort();
    for (int w = 0; w < workers; ++w) {
      if ((p[w].revents & POLLIN) == 0) continue;
      const ssize_t r = read(fds[w], back.data(), back.size());
      if (r <= 0) std::abort();
      received += static_cast<std::size_t>(r);
    }
  }
  emit("floor_tasks_per_s", count / seconds_since(t), "tasks/s");
  writer.join();
  for (int w = 0; w < workers; ++w) {
    close(fds[w]);
    waitpid(children[w], nullptr, 0);
  }
}

// A process's resident and unique set sizes, from /proc/PID/smaps_rollup,
// in KiB: {Rss, Private_Clean + Private_Dirty}.
std::pair<double, double> memory_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/smaps_rollup");
  std::string line;
  double rss = 0, uss = 0;
  std::getline(in, line);  // the address range of the whole
  while (std::getline(in, line)) {
    char key[64];
    double kib = 0;
    if (std::sscanf(line.c_str(), "%63s %lf", key, &kib) != 2) continue;
    const std::string_view k = key;
    if (k == "Rss:") rss = kib;
    if (k == "Private_Clean:" || k == "Private_Dirty:") uss += kib;
  }
  return {rss, uss};
}

// What a pool costs in memory: an idle worker's resident and unique set
// (after it ran a few tasks), the pool process's growth per worker (a pool
// of 8 started, against the process before it), and per task queued (100 000
// no-op tasks behind two that sleep, against the process before them).
void memory() {
  ferry::function<int(int)> nap = [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return ms;
  };
  {
    ferry::process_pool pool(options(1));
    for (int i = 0; i < 100; ++i) pool.submit(noop(), i).get();
    const auto [rss, uss] = memory_of(std::to_string(pool.worker_pids().front()));
    emit("memory_idle_worker_rss_mib", rss / 1024, "MiB");
    emit("memory_idle_worker_uss_mib", uss / 1024, "MiB");
  }
  {
    const double before = memory_of("self").first;
    constexpr std::size_t workers = 8;
    ferry::process_pool pool(options(workers));
    std::vector<ferry::future<int>> up;
    for (std::size_t i = 0; i < 4 * workers; ++i) up.push_back(pool.submit(nap, 20));
    for (auto& f : up) f.get();
    emit("memory_parent_per_worker_kib", (memory_of("self").first - before) / workers, "KiB");
  }
  {
    ferry::process_pool pool(options(2));
    for (int i = 0; i < 1000; ++i) pool.submit(noop(), i).get();
    std::vector<ferry::future<int>> queued;
    queued.reserve(100'002);
    const double before = memory_of("self").first;
    queued.push_back(pool.submit(nap, 1500));
    queued.push_back(pool.submit(nap, 1500));
    for (int i = 0; i < 100'000; ++i) queued.push_back(pool.submit(noop(), i));
    const double after = memory_of("self").first;
    emit("memory_per_queued_task_bytes", (after - before) * 1024 / 100'000, "bytes");
    for (auto& f : queued) f.get();
  }
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
  else if (mode == "hops") hops();
  else if (mode == "throughput") throughput();
  else if (mode == "floor") socket_floor();
  else if (mode == "submits") submits();
  else if (mode == "memory") memory();
  else if (mode == "large") large();
  else if (mode == "shared") shared();
  else if (mode == "spin") spin();
  else if (mode == "memcpy") memcpy_floor();
  else if (mode == "start") start();
  else if (mode == "scaling") scaling(argc > 2 ? std::stoul(argv[2]) : 16);
  else {
    std::cerr << "usage: " << argv[0] << " roundtrip|pingpong|hops|spin|throughput|submits|floor|large|shared|memcpy|memory|start|scaling [max]\n";
    return 2;
  }
  return 0;
}
