// Copyright ferry authors.
//
// Load through one pool: many tiny tasks, then many large ones, with the
// parent's resident memory and descriptor count sampled every 10 ms. Prints
// one line per phase and exits 1 if either grew past its bound, or if a
// worker or a descriptor is left once the pool is gone.
//
//   load_run TINY_TASKS LARGE_TASKS LARGE_MIB [WORKERS]
//
// The test suite runs a small load (tests/CMakeLists.txt); scripts/load_run.sh
// the full one of docs/reliability.md. Submission keeps a bounded window of
// futures in flight, as a program streaming work through a pool would: what
// is measured is the pool's own growth, not a vector of a million futures.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <string>
#include <thread>

#include <executor/executor.h>

namespace {

#ifdef FERRY_LOAD_NO_MEMORY_BOUND
constexpr bool memory_bounded = false;  // under a sanitizer: report, do not judge
#else
constexpr bool memory_bounded = true;
#endif

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::size_t open_descriptors() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++n;
    ::closedir(d);
  }
  return n - 3;  // ., .. and the directory's own descriptor
}

// Children of every thread of this process.
std::size_t children() {
  std::size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/children");
      for (int pid; in >> pid;) ++n;
    }
    ::closedir(d);
  }
  return n;
}

// Peaks of memory and descriptors while it lives.
class sampler {
 public:
  sampler() : thread_([this] { run(); }) {}
  ~sampler() {
    stop_ = true;
    thread_.join();
  }
  std::size_t peak_rss() const { return peak_rss_; }
  std::size_t peak_fds() const { return peak_fds_; }

 private:
  void run() {
    while (!stop_) {
      peak_rss_ = std::max<std::size_t>(peak_rss_, resident_bytes());
      peak_fds_ = std::max<std::size_t>(peak_fds_, open_descriptors());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> peak_rss_{0};
  std::atomic<std::size_t> peak_fds_{0};
  std::thread thread_;
};

double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// Runs `count` tasks with at most `window` in flight; true if all results
// are right.
template <class Submit, class Check>
bool stream(std::size_t count, std::size_t window, Submit submit, Check check) {
  std::deque<decltype(submit(std::size_t{0}))> in_flight;
  bool ok = true;
  for (std::size_t i = 0; i < count; ++i) {
    in_flight.push_back(submit(i));
    if (in_flight.size() >= window) {
      ok = check(in_flight.front().get()) && ok;
      in_flight.pop_front();
    }
  }
  for (auto& f : in_flight) ok = check(f.get()) && ok;
  return ok;
}

struct phase_result {
  bool ok;
  std::size_t rss_growth;
  std::size_t fd_growth;
};

template <class Run>
phase_result measure(const char* name, std::size_t tasks, Run run) {
  const std::size_t rss_before = resident_bytes();
  const std::size_t fds_before = open_descriptors();
  const auto start = std::chrono::steady_clock::now();
  bool ok;
  std::size_t peak_rss, peak_fds;
  {
    sampler s;
    ok = run();
    peak_rss = s.peak_rss();
    peak_fds = s.peak_fds();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t rss_growth = peak_rss > rss_before ? peak_rss - rss_before : 0;
  const std::size_t fd_growth = peak_fds > fds_before ? peak_fds - fds_before : 0;
  std::printf(
      "%-6s %9zu tasks %8.1f s %10.0f tasks/s  parent RSS %7.1f MiB before, peak +%.1f MiB, "
      "after %.1f MiB  descriptors %zu before, peak +%zu, after %zu  results %s\n",
      name, tasks, seconds, static_cast<double>(tasks) / seconds, mib(rss_before), mib(rss_growth),
      mib(resident_bytes()), fds_before, fd_growth, open_descriptors(), ok ? "right" : "WRONG");
  std::fflush(stdout);
  return {ok, rss_growth, fd_growth};
}

}  // namespace

int main(int argc, char** argv) {
  ferry::serve_if_worker(argc, argv);
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s TINY_TASKS LARGE_TASKS LARGE_MIB [WORKERS]\n", argv[0]);
    return 2;
  }
  const std::size_t tiny = std::strtoull(argv[1], nullptr, 10);
  const std::size_t large = std::strtoull(argv[2], nullptr, 10);
  const std::size_t large_bytes = std::strtoull(argv[3], nullptr, 10) << 20;
  ferry::pool_options options;
  options.max_workers = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 2;
  const std::size_t workers = options.max_workers;
  const std::size_t fds_at_start = open_descriptors();
  bool ok = true;
  {
    ferry::process_pool pool(options);
    // Warm up: every worker started, allocator pools grown, before measuring.
    stream(2000, 1000, [&](std::size_t i) { return pool.submit([](std::size_t x) { return x + 1; }, i); },
           [](std::size_t) { return true; });

    const std::size_t tiny_window = 10000;
    const phase_result t = measure("tiny", tiny, [&] {
      return stream(
          tiny, tiny_window,
          [&](std::size_t i) { return pool.submit([](std::size_t x) { return x + 1; }, i); },
          [n = std::size_t{0}](std::size_t r) mutable { return r == ++n; });
    });
    // Bounds: the window of futures and messages (well under 1 KiB each), and
    // each worker's socket and pidfd.
    const std::size_t tiny_bound = std::size_t{64} << 20;
    if (!t.ok || (memory_bounded && t.rss_growth > tiny_bound) || t.fd_growth > 2 * workers + 2) {
      std::fprintf(stderr, "tiny tasks: growth past the bound (%.1f MiB of RSS allowed, %zu descriptors)\n",
                   mib(tiny_bound), 2 * workers + 2);
      ok = false;
    }

    const std::size_t large_window = 2 * workers;
    const phase_result l = measure("large", large, [&] {
      return stream(
          large, large_window,
          [&](std::size_t i) {
            std::string data(large_bytes, static_cast<char>('a' + i % 26));
            return pool.submit(
                [](const std::string& s) { return s.size() + static_cast<unsigned char>(s[s.size() / 2]); },
                std::move(data));
          },
          [&, n = std::size_t{0}](std::size_t r) mutable {
            return r == large_bytes + static_cast<unsigned char>('a' + n++ % 26);
          });
    });
    // Bounds: per task in flight, its argument, its encoded message and its
    // shared-memory copy; plus 64 MiB of slack. Descriptors: a memfd per
    // task in flight besides each worker's two.
    const std::size_t large_bound = 3 * large_window * large_bytes + (std::size_t{64} << 20);
    if (!l.ok || (memory_bounded && l.rss_growth > large_bound) || l.fd_growth > large_window + 2 * workers + 2) {
      std::fprintf(stderr, "large tasks: growth past the bound (%.1f MiB of RSS allowed, %zu descriptors)\n",
                   mib(large_bound), large_window + 2 * workers + 2);
      ok = false;
    }
  }
  if (children() != 0 || open_descriptors() != fds_at_start) {
    std::fprintf(stderr, "after the pool: %zu workers left, %zu descriptors open (%zu at start)\n",
                 children(), open_descriptors(), fds_at_start);
    ok = false;
  }
  std::printf("pool gone: %zu workers left, %zu descriptors open (%zu at start)\n", children(),
              open_descriptors(), fds_at_start);
  return ok ? 0 : 1;
}
