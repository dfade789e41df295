// Copyright ferry authors.
//
// A duration too long to add to the clock's now (milliseconds::max(),
// hours::max()), which a user gives to mean "no limit", means no limit: it
// wrapped into the past, so a wait ended at once, a task was killed as it
// started and a map failed before its first result. For the process pool's
// and the MPI pool's tests alike.
#ifndef FERRY_TESTS_EXECUTOR_LONG_DURATIONS_H_
#define FERRY_TESTS_EXECUTOR_LONG_DURATIONS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <ranges>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// Waits, a task's own timeout, a stop's grace and a map's timeout, each
// of the longest: every task runs to its end.
template <class Pool>
void expect_the_longest_durations_to_mean_no_limit(Pool& pool) {
  using namespace std::chrono_literals;
  constexpr auto longest_ms = std::chrono::milliseconds::max();
  auto timed = pool.submit({.timeout = longest_ms}, test_tasks::sleep_ms(), 100);
  EXPECT_GT(get_within(timed), 0) << "a task with the longest timeout was stopped";

  auto waited = pool.submit(test_tasks::sleep_ms(), 100);
  EXPECT_EQ(waited.wait_for(std::chrono::nanoseconds::max()), std::future_status::ready);
  const std::vector<ferry::future<int>> some{pool.submit(test_tasks::sleep_ms(), 100)};
  EXPECT_TRUE(ferry::wait_all(some, std::chrono::hours::max()));
  const std::vector<ferry::future<int>> more{pool.submit(test_tasks::sleep_ms(), 100)};
  EXPECT_EQ(ferry::wait_any(more, std::chrono::nanoseconds::max()), std::optional<std::size_t>(0));
  const std::vector<ferry::future<int>> last{pool.submit(test_tasks::sleep_ms(), 100)};
  EXPECT_EQ(ferry::wait_all_or_first_exception(last, std::chrono::hours::max()), std::optional<std::size_t>(1));
  auto floating = pool.submit(test_tasks::sleep_ms(), 100);  // as std::future::wait_for takes
  EXPECT_EQ(floating.wait_for(std::chrono::duration<double>(30.0)), std::future_status::ready);

  auto running = pool.submit(test_tasks::sleep_ms(), 300);
  std::this_thread::sleep_for(100ms);
  (void)running.cancel(longest_ms);  // asks it to stop: it ends in its grace, with its value
  EXPECT_GT(get_within(running), 0) << "a task asked to stop with the longest grace was killed";

  const auto doubled = pool.map(test_tasks::scale(2), std::views::iota(0, 4), {.timeout = longest_ms});
  EXPECT_EQ(doubled, (std::vector<int>{0, 2, 4, 6}));
  const auto again = pool.map(test_tasks::scale(2), std::views::iota(0, 4), 1, std::chrono::hours::max());
  EXPECT_EQ(again, (std::vector<int>{0, 2, 4, 6}));
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_LONG_DURATIONS_H_
