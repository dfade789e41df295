// Copyright ferry authors.
//
// shutdown and the destructor: pending work run or cancelled, running tasks
// waited for or killed.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using ferry_test::method;
using ferry_test::options;
using Shutdown = ferry_test::ExecutorTest;

TEST_F(Shutdown, ShutdownCancellingPendingWork) {
  ferry::process_pool pool(options(1));
  // A ready worker first: the waits below time the tasks, not a worker's
  // start (hundreds of ms for a spawned test program under ASan).
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  auto running = pool.submit(test_tasks::sleep_ms(), 300);
  std::this_thread::sleep_for(100ms);
  std::vector<ferry::future<int>> pending;
  for (int i = 0; i < 5; ++i) pending.push_back(pool.submit(test_tasks::add(), i, i));
  std::this_thread::sleep_for(50ms);
  pool.shutdown({.cancel_pending = true});
  EXPECT_GT(running.get(), 0);
  // The first was already sent, queued behind the running task; it runs.
  EXPECT_EQ(pending[0].get(), 0);
  for (std::size_t i = 1; i < pending.size(); ++i) EXPECT_THROW(pending[i].get(), ferry::pool_shutdown_error);
  EXPECT_THROW(pool.submit(test_tasks::add(), 1, 1), ferry::pool_shutdown_error);
}

TEST_F(Shutdown, ShutdownRunsPendingWork) {
  ferry::process_pool pool(options(1));
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 20; ++i) futures.push_back(pool.submit(test_tasks::add(), i, 1));
  pool.shutdown({.wait = true});
  for (int i = 0; i < 20; ++i) EXPECT_EQ(futures[i].get(), i + 1);
}

TEST_F(Shutdown, DestructorWithWorkInFlightJoins) {
  ferry::future<int> f;
  {
    ferry::process_pool pool(options(2));
    f = pool.submit(test_tasks::sleep_ms(), 200);
    pool.submit(test_tasks::sleep_ms(), 200);
  }
  EXPECT_TRUE(f.ready());
  EXPECT_GT(f.get(), 0);
}

TEST_F(Shutdown, ShutdownCanKillRunningTasks) {
  ferry::process_pool pool(options(2));
  auto a = pool.submit(test_tasks::sleep_ms(), 20'000);
  auto b = pool.submit(test_tasks::sleep_ms(), 20'000);
  auto pending = pool.submit(test_tasks::add(), 1, 1);
  std::this_thread::sleep_for(200ms);
  const auto start = std::chrono::steady_clock::now();
  pool.shutdown({.kill_running = true});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_THROW(a.get(), ferry::pool_shutdown_error);
  EXPECT_THROW(b.get(), ferry::pool_shutdown_error);
  EXPECT_THROW(pending.get(), ferry::pool_shutdown_error);
}

