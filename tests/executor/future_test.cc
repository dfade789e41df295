// Copyright ferry authors.
//
// Futures: waiting, callbacks, wait_any, cancel.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
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
using Future = ferry_test::ExecutorTest;

TEST_F(Future, WaitingAndCallbacks) {
  ferry::process_pool pool(options(2));
  auto slow = pool.submit(test_tasks::sleep_ms(), 400);
  EXPECT_EQ(slow.wait_for(10ms), std::future_status::timeout);
  EXPECT_FALSE(slow.ready());
  std::atomic<int> called{0};
  slow.on_done([&](const ferry::future<int>& f) { called += f.get() > 0; });
  std::vector<ferry::future<int>> futures = {pool.submit(test_tasks::sleep_ms(), 300),
                                             pool.submit(test_tasks::sleep_ms(), 10)};
  std::vector<int> order;
  for (const ferry::future<int>& f : ferry::as_completed(futures)) order.push_back(f.get());
  EXPECT_EQ(order.size(), 2u);
  EXPECT_FALSE(ferry::wait_all(std::array{slow, pool.submit(test_tasks::sleep_ms(), 300)}, 1ms));
  ferry::wait_all(std::array{slow});
  EXPECT_TRUE(slow.ready());
  // Callbacks run on the manager thread after waiters are released.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (called.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(called.load(), 1);
}

TEST_F(Future, WaitAnyReturnsTheFirstFinished) {
  ferry::process_pool pool(options(2));
  std::vector<ferry::future<int>> futures = {pool.submit(test_tasks::sleep_ms(), 1500),
                                             pool.submit(test_tasks::sleep_ms(), 10)};
  EXPECT_EQ(ferry::wait_any(futures), 1u);
  EXPECT_EQ(ferry::wait_any(std::vector{futures[0]}, 1ms), std::nullopt);
  EXPECT_EQ(ferry::wait_any(futures, 1ms), std::optional<std::size_t>(1));
}

TEST_F(Future, CancelOnlyBeforeSending) {
  ferry::process_pool pool(options(1));
  // A ready worker first: the waits below time the tasks, not a worker's
  // start (hundreds of ms for a spawned test program under ASan).
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  auto running = pool.submit(test_tasks::sleep_ms(), 300);
  auto sent = pool.submit(test_tasks::add(), 1, 1);    // queued in the busy worker
  auto queued = pool.submit(test_tasks::add(), 2, 2);  // still in the pool
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(running.cancel());
  EXPECT_FALSE(sent.cancel());
  EXPECT_TRUE(queued.cancel());
  EXPECT_THROW(queued.get(), ferry::cancelled_error);
  EXPECT_GT(running.get(), 0);
  EXPECT_EQ(sent.get(), 2);
}

