// Copyright ferry authors.
//
// The pool's manager (src/executor/pool/pool_core.h), driven turn by turn
// through its local_pool face (what an MPI agent runs), so that each rule
// is seen at the turn it acts: nothing happens between turns, a turn ends
// as soon as a worker answers, workers start as the queue needs them, and
// crashes, timers and shutdown are handled inside turns. process_pool runs
// the same core on its own thread (the executor tests); the last tests here
// are of its fast path, where a submitting or waiting thread runs a pass.
// Run once per start method, as executor_test is.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "executor/core/local_pool.h"
#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

namespace {

using ferry::detail::local_pool;
using ferry_test::children;
using ferry_test::expect_error;
using ferry_test::get_within;
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



// The fast path (pool_core.h): a task submitted to a pool whose workers
// are all idle leaves from the submitting thread, and the thread waiting
// for it reads its result, the manager left asleep. What holds whoever
// sends and reads.

// Records the threads the pool tells its tasks' starts and finishes on.
class thread_log final : public ferry::pool_observer {
 public:
  void on_task(const ferry::task_event& e) override {
    std::lock_guard lock(mu_);
    if (e.what == ferry::task_event::kind::started) started_.push_back(std::this_thread::get_id());
    if (e.what == ferry::task_event::kind::finished) finished_.push_back(std::this_thread::get_id());
  }
  std::size_t started_on(std::thread::id id) const { return count(started_, id); }
  std::size_t finished_on(std::thread::id id) const { return count(finished_, id); }
  std::size_t started() const {
    std::lock_guard lock(mu_);
    return started_.size();
  }

 private:
  std::size_t count(const std::vector<std::thread::id>& v, std::thread::id id) const {
    std::lock_guard lock(mu_);
    return static_cast<std::size_t>(std::count(v.begin(), v.end(), id));
  }
  mutable std::mutex mu_;
  std::vector<std::thread::id> started_, finished_;
};

TEST_F(PoolCore, ATaskWaitedForAtOnceIsSentAndReadByTheWaitingThread) {
  auto log = std::make_shared<thread_log>();
  ferry::pool_options o = options(1);
  o.observer = log;
  ferry::process_pool pool(o);
  // The first starts the worker, which only the manager does; a later one
  // may find the manager in the middle of a pass, or its result may come
  // after the waiting thread's 50 us of polling, when the manager reads it
  // (under ASan on a loaded machine, every one of 50 in two runs of six).
  // Most do not: rounds of 50 until the waiting thread has read one, at
  // most 20.
  const auto me = std::this_thread::get_id();
  std::size_t tasks = 0;
  for (int round = 0; round < 20 && log->finished_on(me) == 0; ++round)
    for (int i = 0; i < 50; ++i, ++tasks) EXPECT_EQ(pool.submit(test_tasks::add(), i, 1).get(), i + 1);
  EXPECT_GT(log->started_on(me), 0u) << "no task left from the submitting thread";
  EXPECT_GT(log->finished_on(me), 0u) << "no result was read by the waiting thread in " << tasks << " tasks";
  EXPECT_EQ(log->started(), tasks) << "a task's start was told twice or not at all";
}

TEST_F(PoolCore, AFastPathTaskFinishesForEveryKindOfWait) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);  // the worker is up and idle
  // Nobody polls: a continuation, and a plain callback.
  auto then = pool.submit(test_tasks::add(), 2, 2).then([](const ferry::future<int>& f) { return f.get() * 10; });
  EXPECT_EQ(get_within(then), 40);
  std::promise<int> called;
  pool.submit(test_tasks::add(), 3, 3).on_done([&called](const ferry::future<int>& f) { called.set_value(f.get()); });
  auto from_callback = called.get_future();
  ASSERT_EQ(from_callback.wait_for(30s), std::future_status::ready) << "on_done never ran";
  EXPECT_EQ(from_callback.get(), 6);
  // Polling with ready() and with wait_for(0).
  auto polled = pool.submit(test_tasks::sleep_ms(), 20);
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!polled.ready() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(polled.ready());
  auto zero = pool.submit(test_tasks::sleep_ms(), 20);
  while (zero.wait_for(0ms) != std::future_status::ready && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(zero.wait_for(0ms), std::future_status::ready);
  // Waited for longer than the yields before blocking: the manager reads it.
  auto slow = pool.submit(test_tasks::sleep_ms(), 300);
  EXPECT_GT(get_within(slow), 0);
  // when_any, as nobody polls its inputs either.
  std::vector<ferry::future<int>> one;
  one.push_back(pool.submit(test_tasks::add(), 4, 4));
  auto any = ferry::when_any(one);
  EXPECT_EQ(get_within(any).index, 0u);
}

TEST_F(PoolCore, AFastPathTaskIsStillStoppedAtItsTimeout) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);  // idle worker: the next goes the fast path
  const auto started = std::chrono::steady_clock::now();
  auto f = pool.submit(ferry::task_options{.timeout = 300ms}, test_tasks::spin_forever());
  expect_error<ferry::task_timeout_error>([&] { get_within(f); });
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  EXPECT_EQ(pool.submit(test_tasks::add(), 20, 22).get(), 42);
}

TEST_F(PoolCore, ASubmitToAStoppedIdleWorkerReturnsAtOnceWhateverTheTasksSize) {
  ferry::pool_options o = options(1);
  o.shared_memory_threshold = o.max_message_size;  // inline: a large body would fill the socket
  ferry::process_pool pool(o);
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  const int pid = pool.worker_pids().at(0);
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  const auto before = std::chrono::steady_clock::now();
  auto small = pool.submit(test_tasks::add(), 2, 3);
  auto large = pool.submit(test_tasks::length(), std::string(4u << 20, 'x'));
  EXPECT_LT(std::chrono::steady_clock::now() - before, 5s) << "a submit waited for a stopped worker";
  EXPECT_EQ(small.wait_for(200ms), std::future_status::timeout);
  ASSERT_EQ(::kill(pid, SIGCONT), 0);
  EXPECT_EQ(get_within(small), 5);
  EXPECT_EQ(get_within(large), std::size_t{4} << 20);
}

}  // namespace

// A callback that shuts its pool down, run by a thread that polls for the
// future (the pass it runs in holds the loop's lock): shutdown() waited for
// the manager, which waited for that lock, for ever. It returns, and the
// loop finishes the shutdown once the callback is done.
TEST_F(PoolCore, ACallbackOnAPollingThreadMayShutItsPoolDown) {
  ferry_test::finishes_within(60s, [] {
    for (int i = 0; i < 10; ++i) {
      ferry::process_pool pool(options(1));
      EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
      ferry_test::shut_down_by_a_callback(pool, i);
    }
  }, "shutdown() from a callback on a polling thread");
}

// A callback holding a copy of the pool's handle outlives the user's own:
// the last handle then goes where the callback is destroyed, on the pool's
// manager thread or a polling thread. Deleting the pool there joined the
// manager from itself (std::terminate). Another thread deletes it: the
// task's value arrives, and no worker is left.
TEST_F(PoolCore, APoolsLastHandleMayGoWithACallbackOnThePoolsOwnThreads) {
  ferry_test::finishes_within(60s, [] {
    for (int i = 0; i < 10; ++i) {
      auto f = ferry_test::dropped_by_a_callback<ferry::process_pool>(options(1), i, i % 2 == 0);
      EXPECT_EQ(get_within(f), i + 2);
    }
  }, "the last handle dropped on the pool's own thread");
  // The pools' deleting threads join their managers; their workers then
  // exit.
  EXPECT_TRUE(ferry_test::workers_gone_within(30s)) << "a worker outlived its pool";
}
