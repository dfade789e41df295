// Copyright ferry authors.
//
// task_options::priority and map_options::priority, for the process pool's
// and the MPI pool's tests alike (both queue through task_intake). The
// pool's workers are first kept busy; what is queued behind them is then
// overtaken by more urgent work, except what was already sent to a worker
// (pipelined behind its running task), which is never taken back.
#ifndef FERRY_TESTS_EXECUTOR_PRIORITIES_H_
#define FERRY_TESTS_EXECUTOR_PRIORITIES_H_

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// Each of the pool's `workers` busy for 400 ms with a task of its own,
// returned once every one of them is running (each marks a file; waited
// for at most 30 s).
template <class Pool>
std::vector<ferry::future<std::int64_t>> occupy(Pool& pool, std::size_t workers) {
  char dir[] = "/tmp/ferry-priorities-XXXXXX";
  EXPECT_NE(::mkdtemp(dir), nullptr);
  std::vector<ferry::future<std::int64_t>> busy;
  std::vector<std::string> marks;
  for (std::size_t i = 0; i < workers; ++i) {
    marks.push_back(std::string(dir) + "/" + std::to_string(i));
    busy.push_back(pool.submit(test_tasks::mark_then_sleep(), marks.back(), 400));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (const std::string& m : marks) {
    while (::access(m.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(::unlink(m.c_str()), 0) << "a busy task never started";
  }
  ::rmdir(dir);
  return busy;
}

// The queued work of the tests below: tasks of 100 ms, long beside a
// worker's delays in starting one (tens of milliseconds under a sanitizer
// with every CPU busy), so that while an urgent task waits behind the one
// sent ahead to its worker, each other worker starts at most one more.
// Ten of them keep each test under a second.
constexpr int queued_tasks = 10;
constexpr int queued_task_ms = 100;

// How many of `tasks` started before `t`.
inline std::size_t started_before(std::vector<ferry::future<std::int64_t>>& tasks, std::int64_t t) {
  return static_cast<std::size_t>(std::count_if(tasks.begin(), tasks.end(), [&](auto& f) { return get_within(f) < t; }));
}

// Ten tasks of the default priority queued behind busy workers, then
// one of priority 10: it starts before all but at most `most_sent` of them:
// those already sent to a worker (one ahead of each running task; an MPI
// agent may also hold some in its own queue, which its own order then
// serves), and those the other workers start while it waits behind the one
// its worker was sent ahead.
template <class Pool>
void expect_an_urgent_task_to_overtake_queued_work(Pool& pool, std::size_t workers, std::size_t most_sent) {
  auto busy = occupy(pool, workers);
  std::vector<ferry::future<std::int64_t>> low;
  for (int i = 0; i < queued_tasks; ++i) low.push_back(pool.submit(test_tasks::started_at(), queued_task_ms));
  auto urgent = pool.submit({.priority = 10}, test_tasks::started_at(), 0);
  const std::int64_t t = get_within(urgent);
  EXPECT_LE(started_before(low, t), most_sent) << "of " << queued_tasks << " tasks queued before it";
  for (auto& f : busy) EXPECT_LT(get_within(f), t);
}

// With one worker that is sent nothing ahead (its output captured: see
// pool_core::place): tasks of one priority start in the order submitted,
// those of a higher one submitted later before them, a lower one after all.
template <class Pool>
void expect_first_come_first_served_within_a_priority(Pool& pool) {
  auto busy = occupy(pool, 1);
  std::vector<ferry::future<std::int64_t>> low, high;
  auto last = pool.submit({.priority = -1}, test_tasks::started_at(), 0);
  for (int i = 0; i < 4; ++i) {
    low.push_back(pool.submit(test_tasks::started_at(), 10));
    high.push_back(pool.submit({.priority = 5}, test_tasks::started_at(), 10));
  }
  std::vector<std::int64_t> low_t, high_t;
  for (auto& f : low) low_t.push_back(get_within(f));
  for (auto& f : high) high_t.push_back(get_within(f));
  EXPECT_TRUE(std::is_sorted(low_t.begin(), low_t.end()));
  EXPECT_TRUE(std::is_sorted(high_t.begin(), high_t.end()));
  EXPECT_LT(high_t.back(), low_t.front());
  EXPECT_GT(get_within(last), low_t.back());
  EXPECT_GT(get_within(last), high_t.back());
  EXPECT_LT(get_within(busy[0]), high_t.front());
}

// A map of priority -1 is overtaken by a task of the default priority
// submitted while its chunks wait: it starts before all but at most
// `most_sent` of them, counted as for the urgent task above (those sent
// ahead, and those the other workers start while it waits behind one).
template <class Pool>
void expect_a_low_priority_map_to_give_way(Pool& pool, std::size_t workers, std::size_t most_sent) {
  auto busy = occupy(pool, workers);
  const std::vector<int> inputs(queued_tasks, queued_task_ms);
  // The map queues its window of chunks when it is made: here all of them.
  auto results = pool.map_unordered(test_tasks::started_at(), inputs,
                                    {.chunksize = 1, .max_chunks_in_flight = queued_tasks, .priority = -1});
  auto urgent = pool.submit(test_tasks::started_at(), 0);
  const std::int64_t t = get_within(urgent);
  std::size_t before = 0;
  for (const auto& r : results) before += r.value < t ? 1 : 0;
  EXPECT_LE(before, most_sent) << "of the map's " << queued_tasks << " chunks";
  for (auto& f : busy) EXPECT_LT(get_within(f), t);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_PRIORITIES_H_
