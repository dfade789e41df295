// Copyright ferry authors.
//
// Actors (executor/actor.h) on the process pool, under every start method.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

#include "actors.h"
#include "test_harness.h"

namespace {

using Actors = ferry_test::ExecutorTest;
using ferry_test::get_within;

TEST_F(Actors, ConcurrentCallersFromFourThreadsAreEachCountedOnceInTheirOrder) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_concurrent_callers_each_counted_once(pool);
}

TEST_F(Actors, ACallsExceptionLeavesTheObjectAndAConstructorsFailsEveryCall) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_exceptions_of_calls_and_constructors(pool);
}

TEST_F(Actors, WhenItsWorkerDiesItsRunningAndLaterCallsFailWithWorkerDiedError) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_a_dead_actors_calls_to_fail(pool);
}

TEST_F(Actors, WithARestartItIsMadeAgainFromItsArgumentsAndRunsTheLaterCalls) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_a_restarted_actor_to_run_the_later_calls(pool);
}

TEST_F(Actors, AMemberNamedAsATemplateArgumentIsCalledOnTheObject) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_member_calls_to_run_on_the_object(pool);
}

TEST_F(Actors, TwoActorsLiveInTheirOwnObjectsAndPlainTasksRunBesideThem) {
  ferry::process_pool pool(ferry_test::options(2));
  auto a = test_tasks::make_counter(pool, 0);
  auto b = test_tasks::make_counter(pool, 1000);
  std::vector<ferry::future<int>> plain;
  for (int i = 0; i < 20; ++i) plain.push_back(pool.submit(test_tasks::add(), i, 1));
  for (int i = 0; i < 10; ++i) {
    test_tasks::counter_add(a, 1);
    test_tasks::counter_add(b, 2);
  }
  auto ta = test_tasks::counter_add(a, 0);
  auto tb = test_tasks::counter_add(b, 0);
  EXPECT_EQ(get_within(ta), 10);
  EXPECT_EQ(get_within(tb), 1020);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(get_within(plain[static_cast<std::size_t>(i)]), i + 1);
}

TEST_F(Actors, ItsWorkerIsKeptPastTheIdleTimeoutAndMaxTasksPerWorker) {
  auto options = ferry_test::options(1);
  options.idle_timeout = std::chrono::milliseconds(50);
  options.max_tasks_per_worker = 2;
  ferry::process_pool pool(options);
  auto c = test_tasks::make_counter(pool, 0);
  auto pid = test_tasks::counter_pid(c);
  const int first = get_within(pid);
  for (int i = 1; i <= 5; ++i) {
    auto f = test_tasks::counter_add(c, 1);
    EXPECT_EQ(get_within(f), i);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto later = test_tasks::counter_pid(c);
  EXPECT_EQ(get_within(later), first);
}

TEST_F(Actors, CallsQueuedAtAShutdownThatCancelsArePoolShutdownErrors) {
  ferry::process_pool pool(ferry_test::options(1));
  auto c = test_tasks::make_counter(pool, 0);
  auto made = test_tasks::counter_pid(c);
  get_within(made);
  auto slow = test_tasks::counter_slow_add(c, 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // it runs
  std::vector<ferry::future<int>> queued;
  for (int i = 0; i < 50; ++i) queued.push_back(test_tasks::counter_add(c, 1));
  pool.shutdown({.cancel_pending = true});
  EXPECT_EQ(get_within(slow), 1);
  int cancelled = 0;
  for (auto& f : queued) {
    try {
      get_within(f);
    } catch (const ferry::pool_shutdown_error&) {
      ++cancelled;
    }
  }
  EXPECT_GT(cancelled, 0);
  EXPECT_THROW(test_tasks::counter_add(c, 1), ferry::pool_shutdown_error);
}

TEST_F(Actors, ItsObjectIsDestroyedInItsWorkerOnceTheLastHandleIsGone) {
  ferry::process_pool pool(ferry_test::options(1));
  char dir[] = "/tmp/ferry-actor-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/destroyed";
  {
    auto n = test_tasks::make_noting(pool, path);
    auto copy = n;
    auto touched = test_tasks::noting_touch(copy);
    EXPECT_EQ(get_within(touched), 1);
  }
  std::string said;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (said.empty() && std::chrono::steady_clock::now() < until) {
    std::ifstream(path) >> said;
    if (said.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(said, "destroyed");
  EXPECT_EQ(pool.worker_pids().size(), 1u) << "the worker lives on";
  std::remove(path.c_str());
  ::rmdir(dir);
}

TEST_F(Actors, AHandleOutlivingItsPoolIsHarmless) {
  std::optional<ferry::actor<test_tasks::counter>> kept;
  {
    ferry::process_pool pool(ferry_test::options(1));
    kept = test_tasks::make_counter(pool, 0);
    auto f = test_tasks::counter_add(*kept, 1);
    EXPECT_EQ(get_within(f), 1);
  }
  EXPECT_THROW(test_tasks::counter_add(*kept, 1), ferry::pool_shutdown_error);
}

// A crash would end this process: the death tests stay with the other
// start methods.
TEST_F(Actors, InProcessWorkersHoldActorsAsProcessesDo) {
  auto options = ferry_test::options(2);
  options.start = ferry::start_method::in_process;
  ferry::process_pool pool(options);
  ferry_test::expect_concurrent_callers_each_counted_once(pool);
  ferry_test::expect_exceptions_of_calls_and_constructors(pool);
}

}  // namespace
