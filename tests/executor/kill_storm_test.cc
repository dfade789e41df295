// Copyright ferry authors.
//
// A storm of kills: while four threads submit small tasks to a pool of
// three workers, a random live worker (starting, idle or busy) is SIGKILLed
// every 3 to 10 ms, or as often as a worker starts on this machine if that
// takes longer (ferry_test::storm_pauses says why). Every future must end with its value or with
// ferry::worker_died_error, at most one failed task per kill, and the pool
// must serve afterwards: a worker that dies before it is ready is a failed
// start, not a verdict on the queue. Run once per start method;
// FERRY_STORM_TASKS (per thread) sizes it, scripts/load_run.sh runs a long
// one.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <utility>

#include <executor/executor.h>

#include "kill_storm.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;
using KillStorm = ferry_test::ExecutorTest;

namespace {

// A sanitizer's runtime makes everything slower, a worker's start most of
// all (its shadow memory is set up before main): kills as frequent as in
// the plain build would leave no start time to succeed, which the pool
// rightly reports as hopeless after 30 s.
constexpr int slowdown = ferry_test::under_sanitizer ? 10 : 1;

int tasks_per_thread() {
  const char* n = std::getenv("FERRY_STORM_TASKS");
  return n != nullptr ? std::atoi(n) : 10000 / slowdown;
}

// Under ctest's timeout of 120 s for the suite's size; longer for a load
// run's (scripts/load_run.sh).
std::chrono::seconds limit() { return std::chrono::seconds(std::max(100, tasks_per_thread() / 100)); }

// A worker's start on this machine now, for the storm's pace
// (ferry_test::storm_pauses): the pool's first task, which starts it.
std::pair<int, int> pauses(ferry::process_pool& pool) {
  const auto start = ferry_test::time_of([&] { (void)pool.submit(test_tasks::pid()).get(); });
  return ferry_test::storm_pauses(start, 3 * slowdown, 10 * slowdown);
}

}  // namespace

TEST_F(KillStorm, EveryFutureEndsWithItsValueOrItsWorkersDeath) {
  ferry::process_pool pool(ferry_test::options(3));
  const auto [min_pause, max_pause] = pauses(pool);
  const auto storm = ferry_test::kill_storm(
      [&](int i, int t) { return pool.submit(test_tasks::add(), i, t); }, [&] { return pool.worker_pids(); },
      4, tasks_per_thread(), min_pause, max_pause, limit());
  EXPECT_LE(storm.died, storm.kills) << "more failed tasks than kills";
  EXPECT_GT(storm.values, 0);
  ferry_test::expect_pool_serves(pool);
}

// With retries, a task whose worker is killed is sent again: every future
// ends with its value.
TEST_F(KillStorm, WithRetriesEveryFutureEndsWithItsValue) {
  ferry::pool_options o = ferry_test::options(3);
  o.task_retries = 1000;
  ferry::process_pool pool(o);
  const auto [min_pause, max_pause] = pauses(pool);
  const auto storm = ferry_test::kill_storm(
      [&](int i, int t) { return pool.submit(test_tasks::add(), i, t); }, [&] { return pool.worker_pids(); },
      4, tasks_per_thread() / 4, min_pause, max_pause, limit());
  EXPECT_EQ(storm.died, 0);
  EXPECT_GT(storm.kills, 0);
}
