// Copyright ferry authors.
//
// A storm of kills: while four threads submit small tasks to a pool of
// three workers, a random live worker (starting, idle or busy) is SIGKILLed
// every 3 to 10 ms. Every future must end with its value or with
// ferry::worker_died_error, at most one failed task per kill, and the pool
// must serve afterwards: a worker that dies before it is ready is a failed
// start, not a verdict on the queue. Run once per start method;
// FERRY_STORM_TASKS (per thread) sizes it, scripts/load_run.sh runs a long
// one.
#include <signal.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;
using KillStorm = ferry_test::ExecutorTest;

namespace {

#ifdef FERRY_UNDER_SANITIZER
// A sanitizer's runtime makes everything slower, a worker's start most of
// all (its shadow memory is set up before main): kills as frequent as in
// the plain build would leave no start time to succeed, which the pool
// rightly reports as hopeless after 30 s.
constexpr int slowdown = 10;
#else
constexpr int slowdown = 1;
#endif

int tasks_per_thread() {
  const char* n = std::getenv("FERRY_STORM_TASKS");
  return n != nullptr ? std::atoi(n) : 10000 / slowdown;
}

}  // namespace

TEST_F(KillStorm, EveryFutureEndsWithItsValueOrItsWorkersDeath) {
  ferry::process_pool pool(ferry_test::options(3));
  constexpr int threads = 4;
  const int per_thread = tasks_per_thread();

  std::atomic<bool> stop{false};
  std::atomic<int> kills{0};
  std::thread killer([&] {
    std::mt19937 rng(20261201);
    std::uniform_int_distribution<int> pause(3 * slowdown, 10 * slowdown);
    while (!stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause(rng)));
      const std::vector<int> pids = pool.worker_pids();
      if (pids.empty()) continue;
      if (::kill(pids[rng() % pids.size()], SIGKILL) == 0) ++kills;
    }
  });

  std::vector<std::vector<ferry::future<int>>> futures(threads);
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) futures[t].push_back(pool.submit(test_tasks::add(), i, t));
    });
  }
  for (auto& s : submitters) s.join();

  const auto deadline = std::chrono::steady_clock::now() + 300s;
  bool all_finished = true;
  for (const auto& f : futures)
    all_finished = all_finished &&
                   ferry::wait_all(f, std::chrono::duration_cast<std::chrono::milliseconds>(
                                          deadline - std::chrono::steady_clock::now()));
  stop = true;
  killer.join();
  ASSERT_TRUE(all_finished) << "futures still pending after 300 s";

  int values = 0;
  int died = 0;
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < per_thread; ++i) {
      try {
        EXPECT_EQ(futures[t][i].get(), i + t);
        ++values;
      } catch (const ferry::worker_died_error&) {
        ++died;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "task " << t << "/" << i << " failed with: " << e.what();
      }
    }
  }
  std::printf("%d values, %d worker deaths, %d kills\n", values, died, kills.load());
  EXPECT_LE(died, kills.load()) << "more failed tasks than kills";
  EXPECT_GT(values, 0);
  ferry_test::expect_pool_serves(pool);
}


// With retries, a task whose worker is killed is sent again: every future
// ends with its value.
TEST_F(KillStorm, WithRetriesEveryFutureEndsWithItsValue) {
  ferry::pool_options o = ferry_test::options(3);
  o.task_retries = 1000;
  ferry::process_pool pool(o);
  constexpr int threads = 4;
  const int per_thread = tasks_per_thread() / 4;
  std::atomic<bool> stop{false};
  std::atomic<int> kills{0};
  std::thread killer([&] {
    std::mt19937 rng(20261202);
    std::uniform_int_distribution<int> pause(3 * slowdown, 10 * slowdown);
    while (!stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause(rng)));
      const std::vector<int> pids = pool.worker_pids();
      if (pids.empty()) continue;
      if (::kill(pids[rng() % pids.size()], SIGKILL) == 0) ++kills;
    }
  });
  std::vector<std::vector<ferry::future<int>>> futures(threads);
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) futures[t].push_back(pool.submit(test_tasks::add(), i, t));
    });
  for (auto& s : submitters) s.join();
  bool all_finished = true;
  for (const auto& f : futures) all_finished = ferry::wait_all(f, 300s) && all_finished;
  stop = true;
  killer.join();
  ASSERT_TRUE(all_finished) << "futures still pending after 300 s";
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < per_thread; ++i) {
      try {
        EXPECT_EQ(futures[t][i].get(), i + t);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "task " << t << "/" << i << " failed with: " << e.what();
      }
    }
  std::printf("%d tasks, all with their values, through %d kills\n", threads * per_thread, kills.load());
  EXPECT_GT(kills.load(), 0);
}
