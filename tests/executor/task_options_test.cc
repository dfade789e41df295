// Copyright ferry authors.
//
// Per-task options (executor/task_options.h) on a process_pool, once per
// start method: a task sent again after its worker's death, only that
// task, an exception retried only when asked, the name in the pool's
// errors.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "long_durations.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using TaskOptions = ferry_test::ExecutorTest;
using ferry_test::expect_error;
using ferry_test::expect_message;
using ferry_test::get_within;
using ferry_test::options;

namespace {

// A counter file of fail_first's, removed afterwards.
class run_counter {
 public:
  explicit run_counter(const char* name)
      : path_(::testing::TempDir() + "/ferry_runs_" + std::to_string(::getpid()) + "_" + name) {
    std::remove(path_.c_str());
  }
  ~run_counter() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }
  int runs() const {
    int n = 0;
    std::ifstream(path_) >> n;
    return n;
  }

 private:
  std::string path_;
};

}  // namespace

TEST_F(TaskOptions, ATaskWhoseWorkerDiesIsSentAgainUpToItsRetries) {
  ferry::process_pool pool(options(1));
  run_counter counter("retried");
  auto f = pool.submit({.retries = 2}, test_tasks::fail_first(), counter.path(), 2, 0);
  EXPECT_EQ(get_within(f), 3);  // two deaths, then the third run returns
  EXPECT_EQ(counter.runs(), 3);
}

TEST_F(TaskOptions, TheLastDeathSaysHowEveryAttemptEnded) {
  ferry::process_pool pool(options(1));
  run_counter counter("exhausted");
  auto f = pool.submit({.retries = 1, .name = "shard 7"}, test_tasks::fail_first(), counter.path(), 5, 0);
  const auto e = expect_error<ferry::worker_died_error>([&] { get_within(f); });
  ASSERT_EQ(e.attempts().size(), 2u);
  EXPECT_NE(e.attempts()[0].find("SIGKILL"), std::string::npos) << e.attempts()[0];
  EXPECT_EQ(e.attempts()[1], e.cause());
  expect_message(e, "task 'shard 7'");
  expect_message(e, "attempt 2");
  EXPECT_EQ(counter.runs(), 2);
}

TEST_F(TaskOptions, OnlyTheTaskWhoseWorkerDiedIsSentAgain) {
  ferry::process_pool pool(options(2));
  run_counter counter("only");
  auto bystander = pool.submit(test_tasks::sleep_ms(), 300);
  auto retried = pool.submit({.retries = 3}, test_tasks::fail_first(), counter.path(), 1, 0);
  EXPECT_EQ(get_within(retried), 2);
  EXPECT_GT(get_within(bystander), 0);
}

TEST_F(TaskOptions, AnExceptionIsNotRetriedUnlessAsked) {
  ferry::process_pool pool(options(1));
  run_counter once("thrown");
  auto plain = pool.submit({.retries = 3}, test_tasks::fail_first(), once.path(), 0, 2);
  const auto e = expect_error<std::runtime_error>([&] { get_within(plain); });
  EXPECT_STREQ(e.what(), "run 1 threw");
  EXPECT_EQ(once.runs(), 1);

  run_counter again("asked");
  auto asked = pool.submit({.retries = 3, .retry_on_exception = true}, test_tasks::fail_first(), again.path(), 0, 2);
  EXPECT_EQ(get_within(asked), 3);
  EXPECT_EQ(again.runs(), 3);
}

TEST_F(TaskOptions, ThePoolsRetriesApplyToATaskThatGivesNone) {
  ferry::pool_options o = options(1);
  o.task_retries = 1;
  ferry::process_pool pool(o);
  run_counter counter("pool");
  auto f = pool.submit({.name = "uses the pool's"}, test_tasks::fail_first(), counter.path(), 1, 0);
  EXPECT_EQ(get_within(f), 2);
  run_counter none("none");
  auto g = pool.submit({.retries = 0}, test_tasks::fail_first(), none.path(), 1, 0);
  expect_error<ferry::worker_died_error>([&] { get_within(g); });
}

TEST_F(TaskOptions, ANamedTaskPastItsTimeoutIsNamedAndNotRetried) {
  ferry::pool_options o = options(1);
  o.task_timeout = 200ms;
  ferry::process_pool pool(o);
  auto f = pool.submit({.retries = 3, .name = "the slow one"}, test_tasks::spin_forever());
  const auto e = expect_error<ferry::task_timeout_error>([&] { get_within(f); });
  expect_message(e, "task 'the slow one'");
}

TEST_F(TaskOptions, CancellingATaskWithOptionsCancelsItsWaitingAttempt) {
  // One task per worker: the attempt cannot be sent behind `busy` to its
  // worker (which makes it running, and it would run; a fast machine's
  // manager sent it before the cancel came), so it surely waits in the
  // pool's queue when cancelled.
  ferry::pool_options o = options(1);
  o.max_tasks_per_worker = 1;
  ferry::process_pool pool(o);
  auto busy = pool.submit(test_tasks::sleep_ms(), 300);
  run_counter counter("cancelled");
  auto f = pool.submit({.retries = 2}, test_tasks::fail_first(), counter.path(), 0, 0);
  EXPECT_TRUE(f.cancel());
  const auto e = expect_error<ferry::cancelled_error>([&] { get_within(f); });
  expect_message(e, "cancelled before it started");
  EXPECT_GT(get_within(busy), 0);
  ferry_test::expect_pool_serves(pool);
  EXPECT_EQ(counter.runs(), 0);
}

TEST_F(TaskOptions, SubmitWithOptionsAfterShutdownThrows) {
  ferry::process_pool pool(options(1));
  pool.shutdown();
  EXPECT_THROW(pool.submit({.retries = 1}, test_tasks::add(), 1, 2), ferry::pool_shutdown_error);
}

TEST_F(TaskOptions, ATasksOwnTimeoutStopsItAndSaysSo) {
  ferry::process_pool pool(options(1));  // no task_timeout of its own
  auto f = pool.submit({.timeout = 200ms, .name = "spins"}, test_tasks::spin_forever());
  const auto e = expect_error<ferry::task_timeout_error>([&] { get_within(f); });
  expect_message(e, "task 'spins'");
  expect_message(e, "its timeout of 200 ms");
  ferry_test::expect_pool_serves(pool);
}

TEST_F(TaskOptions, ATasksOwnTimeoutReplacesThePools) {
  ferry::pool_options o = options(1);
  o.task_timeout = 100ms;
  ferry::process_pool pool(o);
  auto longer = pool.submit({.timeout = 30s}, test_tasks::sleep_ms(), 400);
  EXPECT_GT(get_within(longer), 0);
  auto pools = pool.submit(test_tasks::sleep_ms(), 400);
  const auto e = expect_error<ferry::task_timeout_error>([&] { get_within(pools); });
  expect_message(e, "the task_timeout of 100 ms");
}

// A timeout of 0 ms killed the task's worker before the task could run,
// and failed it with "ran longer than its timeout of 0 ms"; negative ones
// the same. Now refused where it is given, and the pool goes on.
// Each wrapped into the past: the task was killed as it started, the wait
// ended at once (tests/executor/long_durations.h).
TEST_F(TaskOptions, TheLongestTimeoutsGracesAndWaitsMeanNoLimit) {
  ferry::process_pool pool(options(2));
  ferry_test::expect_the_longest_durations_to_mean_no_limit(pool);
}

// The worker was retired as soon as it was idle, and its task killed.
TEST_F(TaskOptions, ThePoolsLongestTaskAndIdleTimeoutsMeanNoLimit) {
  ferry::pool_options o = options(1);
  o.task_timeout = std::chrono::milliseconds::max();
  o.idle_timeout = std::chrono::milliseconds::max();
  ferry::process_pool pool(o);
  auto f = pool.submit(test_tasks::sleep_ms(), 100);
  const int pid = get_within(f);
  EXPECT_GT(pid, 0);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(pool.worker_pids(), std::vector<int>{pid}) << "the idle worker was retired";
}

TEST_F(TaskOptions, ATimeoutOfZeroOrLessIsRefusedNamingTheOption) {
  ferry::process_pool pool(options(1));
  for (const auto timeout : {0ms, -5ms}) {
    const auto e = expect_error<ferry::error>([&] { pool.submit({.timeout = timeout}, test_tasks::sleep_ms(), 0); });
    expect_message(e, "task_options::timeout of " + std::to_string(timeout.count()) + " ms");
    expect_message(e, "leave it unset for no timeout");
  }
  ferry::pool_options o = options(1);
  o.task_timeout = 0ms;
  const auto e = expect_error<ferry::error>([&] { ferry::process_pool refused(o); });
  expect_message(e, "pool_options::task_timeout of 0 ms");
  auto f = pool.submit({.timeout = 30s}, test_tasks::sleep_ms(), 0);
  EXPECT_GT(get_within(f), 0);
}
