// Copyright ferry authors.
//
// The pool's manager (src/executor/pool/pool_core.h), driven turn by turn
// through its local_pool face (what an MPI agent runs), so that each rule
// is seen at the turn it acts: nothing happens between turns, a turn ends
// as soon as a worker answers, workers start as the queue needs them, and
// crashes, timers and shutdown are handled inside turns. process_pool runs
// the same core on its own thread (the executor tests). Run once per start
// method, as executor_test is.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <executor/executor.h>

#include "executor/core/local_pool.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

namespace {

using ferry::detail::local_pool;
using ferry_test::children;
using ferry_test::expect_error;
using ferry_test::options;

std::shared_ptr<local_pool> caller_driven(ferry::pool_options o = options(1)) {
  return local_pool::create(std::move(o));
}

// The pool's API over a caller-driven core, for typed futures.
struct front : ferry::detail::pool_front {
  explicit front(std::shared_ptr<local_pool> core) : pool_front(std::move(core)) {}
};

// Turns the pool until f is ready; false after 30 s.
template <class Future>
bool turn_until_ready(local_pool& core, const Future& f) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!f.ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    core.turn(10ms);
  }
  return true;
}

using PoolCore = ferry_test::ExecutorTest;

TEST_F(PoolCore, RunsTasksOnlyWhileItsThreadTurns) {
  auto core = caller_driven();
  front pool(core);
  auto f = pool.submit(test_tasks::add(), 2, 3);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(f.ready()) << "a task ran with nobody turning the pool";
  EXPECT_TRUE(core->worker_pids().empty()) << "a worker started with nobody turning the pool";
  ASSERT_TRUE(turn_until_ready(*core, f));
  EXPECT_EQ(f.get(), 5);
}

TEST_F(PoolCore, StartWorkersStartsEveryWorkerBeforeAnyTask) {
  auto core = caller_driven(options(2));
  core->start_workers();
  EXPECT_EQ(core->worker_pids().size(), 2u);
  core->start_workers();  // already at max_workers: starts none
  EXPECT_EQ(core->worker_pids().size(), 2u);
  front pool(core);
  auto f = pool.submit(test_tasks::add(), 2, 3);
  ASSERT_TRUE(turn_until_ready(*core, f));
  EXPECT_EQ(f.get(), 5);
  EXPECT_EQ(core->worker_pids().size(), 2u) << "a task started a worker beyond the two";
}

TEST_F(PoolCore, AQueueOfOneTaskStartsOneWorkerNotAllThePoolMayHave) {
  auto core = caller_driven(options(4));
  front pool(core);
  auto f = pool.submit(test_tasks::add(), 2, 3);
  ASSERT_TRUE(turn_until_ready(*core, f));
  EXPECT_EQ(f.get(), 5);
  EXPECT_EQ(core->worker_pids().size(), 1u);
  // Three at once start the rest they need, and no more than the pool's four.
  auto a = pool.submit(test_tasks::sleep_ms(), 300);
  auto b = pool.submit(test_tasks::sleep_ms(), 300);
  auto c = pool.submit(test_tasks::sleep_ms(), 300);
  core->turn(1ms);
  EXPECT_EQ(core->worker_pids().size(), 3u);
  ASSERT_TRUE(turn_until_ready(*core, a) && turn_until_ready(*core, b) && turn_until_ready(*core, c));
  EXPECT_EQ(core->worker_pids().size(), 3u) << "a worker started that no task needed";
}

TEST_F(PoolCore, AWorkersAnswerEndsALongTurnAtOnce) {
  auto core = caller_driven();
  front pool(core);
  auto warm = pool.submit(test_tasks::add(), 1, 1);
  ASSERT_TRUE(turn_until_ready(*core, warm));
  auto f = pool.submit(test_tasks::sleep_ms(), 50);
  core->turn(0ms);  // sends it
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 && !f.ready(); ++i) core->turn(20s);
  EXPECT_TRUE(f.ready());
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s) << "the turn waited out its timeout";
}

TEST_F(PoolCore, CallbacksRunOnTheTurningThread) {
  auto core = caller_driven();
  int x = 20, y = 22;
  auto encode = [&](ferry::output_archive& ar) { ar(x, y); };
  auto state = ferry::detail::submit_encoded(*core, test_tasks::add(), 1, encode);
  std::thread::id ran_on;
  state->on_done([&] { ran_on = std::this_thread::get_id(); });
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!state->ready() && std::chrono::steady_clock::now() < deadline) core->turn(10ms);
  ASSERT_TRUE(state->ready());
  EXPECT_EQ(state->error(), nullptr);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST_F(PoolCore, ACrashFailsOnlyItsFutureAndThePoolGoesOn) {
  auto core = caller_driven();
  front pool(core);
  auto crashed = pool.submit(test_tasks::crash(), std::string("segv"));
  ASSERT_TRUE(turn_until_ready(*core, crashed));
  expect_error<ferry::worker_died_error>([&] { crashed.get(); });
  auto next = pool.submit(test_tasks::add(), 20, 22);
  ASSERT_TRUE(turn_until_ready(*core, next));
  EXPECT_EQ(next.get(), 42);
}

TEST_F(PoolCore, ATaskTimeoutIsEnforcedWithinTurns) {
  ferry::pool_options o = options(1);
  o.task_timeout = 200ms;
  auto core = caller_driven(o);
  front pool(core);
  auto f = pool.submit(test_tasks::spin_forever());
  ASSERT_TRUE(turn_until_ready(*core, f));
  expect_error<ferry::task_timeout_error>([&] { f.get(); });
}

TEST_F(PoolCore, ShutdownTurnsUntilTheQueueIsDrained) {
  auto core = caller_driven(options(2));
  front pool(core);
  std::vector<ferry::future<int>> futures;
  for (int i = 0; i < 5; ++i) futures.push_back(pool.submit(test_tasks::add(), i, 1));
  pool.shutdown();  // waits: drives the pool from here
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(futures[i].ready());
    EXPECT_EQ(futures[i].get(), i + 1);
  }
  EXPECT_FALSE(core->turn(0ms));
  EXPECT_EQ(children(), std::vector<int>{});
}

TEST_F(PoolCore, ShutdownWithKillRunningStopsARunningTask) {
  auto core = caller_driven();
  front pool(core);
  // A ready worker first (its start takes hundreds of ms under ASan).
  auto warm = pool.submit(test_tasks::pid());
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!warm.ready() && std::chrono::steady_clock::now() < deadline) core->turn(10ms);
  auto f = pool.submit(test_tasks::spin_forever());
  for (int i = 0; i < 10; ++i) core->turn(10ms);  // sent, and running
  pool.shutdown({.kill_running = true});
  ASSERT_TRUE(f.ready());
  const auto e = expect_error<ferry::pool_shutdown_error>([&] { f.get(); });
  ferry_test::expect_message(e, "stopped because the pool was shut down with kill_running");
}

}  // namespace

