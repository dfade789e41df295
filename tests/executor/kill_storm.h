// Copyright ferry authors.
//
// A storm of kills, for the process pool's and the MPI pool's tests: while
// `threads` threads each submit `per_thread` tasks add(i, t), one of the
// processes that victims() lists is SIGKILLed every `pause` (a random span
// of milliseconds in the given range), until every future is finished or
// `limit` passes.
#ifndef FERRY_TESTS_EXECUTOR_KILL_STORM_H_
#define FERRY_TESTS_EXECUTOR_KILL_STORM_H_

#include <signal.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <executor/executor.h>

namespace ferry_test {

struct storm_outcome {
  bool all_finished = false;
  int values = 0;           // futures that got i + t
  int died = 0;             // futures failed with ferry::worker_died_error
  int kills = 0;
  std::vector<int> killed;  // their pids
};

// The pauses between kills, in ms: from min_ms to max_ms, and never shorter
// than `start`, the time a worker took to start on this machine a moment
// ago. A start takes from 2 ms (fork) to tens of ms (spawn, plugin, on a
// loaded machine or under a sanitizer); a storm faster than that kills
// every worker before it is ready, and the pool, seeing only failed starts,
// rightly backs off to a start a second. Kills paced so still land on
// starting, idle and busy workers alike.
inline std::pair<int, int> storm_pauses(std::chrono::milliseconds start, int min_ms, int max_ms) {
  const int ms = static_cast<int>(start.count());
  return {std::max(min_ms, ms), std::max(max_ms, 3 * ms)};
}

// How long f() took.
template <class F>
std::chrono::milliseconds time_of(F&& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t);
}

// submit(i, t) submits add(i, t) and returns its future; victims() the pids
// that may be killed now. Any failure other than a worker's death, and any
// wrong value, fails the test.
template <class Submit, class Victims>
storm_outcome kill_storm(Submit submit, Victims victims, int threads, int per_thread, int min_pause_ms,
                         int max_pause_ms, std::chrono::seconds limit) {
  storm_outcome out;
  std::atomic<bool> stop{false};
  std::thread killer([&] {
    std::mt19937 rng(20261201);
    std::uniform_int_distribution<int> pause(min_pause_ms, max_pause_ms);
    while (!stop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause(rng)));
      const std::vector<int> pids = victims();
      if (pids.empty()) continue;
      const int victim = pids[rng() % pids.size()];
      if (::kill(victim, SIGKILL) == 0) out.killed.push_back(victim);
    }
  });
  std::vector<std::vector<ferry::future<int>>> futures(threads);
  std::vector<std::thread> submitters;
  for (int t = 0; t < threads; ++t)
    submitters.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) futures[t].push_back(submit(i, t));
    });
  for (auto& s : submitters) s.join();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  out.all_finished = true;
  for (const auto& f : futures)
    out.all_finished = out.all_finished &&
                       ferry::wait_all(f, std::chrono::duration_cast<std::chrono::milliseconds>(
                                              deadline - std::chrono::steady_clock::now()));
  stop = true;
  killer.join();
  out.kills = static_cast<int>(out.killed.size());
  if (!out.all_finished) {
    ADD_FAILURE() << "futures still pending after " << limit.count() << " s";
    return out;
  }
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < per_thread; ++i) {
      try {
        EXPECT_EQ(futures[t][i].get(), i + t);
        ++out.values;
      } catch (const ferry::worker_died_error&) {
        ++out.died;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "task " << t << "/" << i << " failed with: " << e.what();
      }
    }
  std::printf("%d values, %d worker deaths, %d kills\n", out.values, out.died, out.kills);
  return out;
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_KILL_STORM_H_
