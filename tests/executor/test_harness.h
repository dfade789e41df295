// Copyright ferry authors.
//
// What the executor's test programs share: the start method under test
// (FERRY_TEST_START), pool options for it, and a fixture that checks, after
// each test, that no worker process and no descriptor is left behind.
// The sanitizers' default options are defined once per program, by
// pool_test_main.cc.
#ifndef FERRY_TESTS_EXECUTOR_TEST_HARNESS_H_
#define FERRY_TESTS_EXECUTOR_TEST_HARNESS_H_

#include <dirent.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "sanitizer_skips.h"
#include "test_tasks.h"

// Under a sanitizer, crashing tasks must crash as they would without it, and
// a forked worker that calls exit() must not report this test's heap as its
// leaks. Memory limits are not tested there: the sanitizers' own memory use
// is many times the program's.
#if defined(FERRY_UNDER_ASAN)
inline constexpr const char* sanitizer_variable = "ASAN_OPTIONS";
inline constexpr const char* sanitizer_options = "detect_leaks=0:handle_segv=0:handle_sigbus=0";
#elif defined(FERRY_UNDER_TSAN)
inline constexpr const char* sanitizer_variable = "TSAN_OPTIONS";
inline constexpr const char* sanitizer_options = "handle_segv=0:handle_sigbus=0:halt_on_error=1";
#endif


namespace ferry_test {

inline ferry::start_method method() {
  const char* m = std::getenv("FERRY_TEST_START");
  const std::string s = m != nullptr ? m : "spawn";
  if (s == "fork") return ferry::start_method::fork;
  if (s == "plugin") return ferry::start_method::plugin;
  return ferry::start_method::spawn;
}

inline ferry::pool_options options(std::size_t workers = 2) {
  ferry::pool_options o;
  o.max_workers = workers;
  o.start = method();
  o.worker_program = FERRY_TEST_WORKER_PROGRAM;
  return o;
}

// Children of this process, from /proc/self/task/*/children.
inline std::vector<int> children() {
  std::vector<int> out;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/children");
      int pid;
      while (in >> pid) out.push_back(pid);
    }
    closedir(d);
  }
  return out;
}

template <class Error, class F>
Error expect_error(F&& get) {
  try {
    get();
  } catch (const Error& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception: " << e.what();
    throw;
  }
  ADD_FAILURE() << "no exception";
  throw std::logic_error("no exception");
}

// Every wait in these tests is bounded: a hang is a failure, not a stuck CI.
template <class T>
T get_within(ferry::future<T>& f, std::chrono::seconds limit = std::chrono::seconds(30)) {
  if (f.wait_for(limit) != std::future_status::ready)
    throw std::runtime_error("the future did not finish in time");
  return f.get();
}

// Runs `scenario` on a thread of its own and waits for it at most `limit`.
// A scenario that deadlocks cannot be unwound (its thread holds locks the
// rest would need), so then the test program says so and exits, failed.
inline void finishes_within(std::chrono::seconds limit, const std::function<void()>& scenario,
                            const char* what) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([scenario, done] {
    scenario();
    done->set_value();
  }).detach();
  if (finished.wait_for(limit) == std::future_status::ready) return;
  std::fprintf(stderr, "FAILED: %s did not finish within %lld s (a deadlock?)\n", what,
               static_cast<long long>(limit.count()));
  std::_Exit(1);
}

// Polls f with ready() (which lets this thread read the pool's answers)
// until it is finished, for at most 30 s.
template <class T>
void poll_until_ready(const ferry::future<T>& f) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!f.ready() && std::chrono::steady_clock::now() < deadline) {
  }
}

// Either pool: a task whose on_done callback shuts `pool` down, polled for
// by this thread, which then most often runs the callback in its own turn
// of the pool's loop. The value arrives, and the pool is shut down.
template <class Pool>
void shut_down_by_a_callback(Pool& pool, int i) {
  auto f = pool.submit(test_tasks::add(), i, 1);
  f.on_done([pool](const ferry::future<int>&) mutable { pool.shutdown(); });
  poll_until_ready(f);
  EXPECT_EQ(get_within(f), i + 1);
  EXPECT_TRUE(pool.is_shutdown());
  pool.shutdown();  // outside the loop: waits, and returns once it is done
}

// Either pool: a task whose on_done callback holds a copy of the pool's
// handle, the only one left once this returns; the callback goes where the
// answer is read: the manager thread, or (`poll`) most often this thread.
template <class Pool, class Options>
ferry::future<int> dropped_by_a_callback(const Options& options, int i, bool poll) {
  ferry::future<int> f;
  {
    Pool pool(options);
    f = pool.submit(test_tasks::add(), i, 2);
    f.on_done([pool](const ferry::future<int>&) {});
  }
  if (poll) poll_until_ready(f);
  return f;
}

// Whether this process's children (pools' workers) are all gone within
// `most`: seen gone in five looks in a row, 20 ms apart, since one look at
// /proc can miss a worker whose parent thread is exiting, and a pool's
// descriptors close just after its workers are reaped. For a pool that a
// thread of ferry's own shuts down after its last handle went.
inline bool workers_gone_within(std::chrono::seconds most) {
  int gone = 0;
  const auto deadline = std::chrono::steady_clock::now() + most;
  while (gone < 5 && std::chrono::steady_clock::now() < deadline) {
    gone = children().empty() ? gone + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return gone == 5;
}

inline void expect_message(const std::exception& e, std::string_view part) {
  EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
}

inline std::size_t open_descriptors() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d) != nullptr) ++n;
    closedir(d);
  }
  return n;
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { descriptors_ = open_descriptors(); }
  void TearDown() override {
    // A pool that is gone has reaped every worker it started and closed
    // every descriptor it opened.
    EXPECT_EQ(children(), std::vector<int>{}) << "worker processes left behind";
    if (!keeps_reusable_pool_) {
      EXPECT_EQ(open_descriptors(), descriptors_) << "descriptors left open";
    }
  }
  // The process-wide reusable pool outlives a test, with its wake-up descriptor.
  void keeps_reusable_pool() { keeps_reusable_pool_ = true; }

 private:
  std::size_t descriptors_ = 0;
  bool keeps_reusable_pool_ = false;
};

}  // namespace ferry_test


namespace ferry_test {

// A pool of one worker that is up and idle; its pid.
inline int start_one_worker(ferry::process_pool& pool) {
  auto f = pool.submit(test_tasks::add(), 1, 1);
  EXPECT_EQ(get_within(f), 2);
  const std::vector<int> pids = pool.worker_pids();
  EXPECT_EQ(pids.size(), 1u);
  return pids.empty() ? 0 : pids[0];
}

// While a continuation holds ferry's continuation thread, the pool's
// results still arrive: then() never runs on a pool's manager or MPI
// progress thread. For either pool.
template <class Pool>
void expect_results_while_a_continuation_blocks(Pool& pool) {
  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  auto blocked = pool.submit(test_tasks::add(), 1, 1).then([&entered, released](const ferry::future<int>& f) {
    entered.set_value();
    released.wait_for(std::chrono::seconds(30));
    return f.get();
  });
  ASSERT_EQ(entered.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  auto meanwhile = pool.submit(test_tasks::add(), 20, 22);
  EXPECT_EQ(get_within(meanwhile), 42);
  release.set_value();
  EXPECT_EQ(get_within(blocked), 2);
}

// However future::cancel(grace) and a task's end interleave, a value that
// was delivered stays: each of `n` futures holds its value, or the request
// came first and it was cancelled; never both, never neither. For either
// pool.
template <class Pool>
void expect_cancels_racing_the_ends_to_keep_delivered_values(Pool& pool, int n) {
  int values = 0, cancelled = 0;
  for (int i = 0; i < n; ++i) {
    auto f = pool.submit(test_tasks::add(), i, 1);
    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50 * (i % 7)));
    const bool was_ready = f.ready();
    const bool asked = f.cancel(std::chrono::milliseconds(0));
    if (was_ready) {
      EXPECT_FALSE(asked);
    }
    try {
      EXPECT_EQ(get_within(f), i + 1);
      ++values;
    } catch (const ferry::cancelled_error&) {
      EXPECT_TRUE(asked);
      ++cancelled;
    }
  }
  EXPECT_EQ(values + cancelled, n);
}

inline void expect_pool_serves(ferry::process_pool& pool) {
  auto f = pool.submit(test_tasks::add(), 20, 22);
  EXPECT_EQ(get_within(f), 42);
}

// main() of a test program whose tests start pools.
inline int run_tests(int argc, char** argv) {
#ifdef FERRY_UNDER_SANITIZER
  // For spawned and plugin workers; a preset's own options (suppressions) come first.
  const char* preset = std::getenv(sanitizer_variable);
  ::setenv(sanitizer_variable, (std::string(preset ? preset : "") + ":" + sanitizer_options).c_str(), 1);
#endif
  ferry::serve_if_worker(argc, argv);
  // No ferry::allow_module: workers load the tasks' library because the
  // pool's own tasks vouch for it.
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_TEST_HARNESS_H_
