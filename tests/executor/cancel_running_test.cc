// Copyright ferry authors.
//
// future::cancel(grace): a task that was sent is asked to stop
// (ferry::this_task), and killed with its worker if it has not ended
// within its grace; nothing else is lost. Run under every start method.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "event_recorder.h"
#include "test_harness.h"

namespace {

using namespace std::chrono_literals;
using CancelRunning = ferry_test::ExecutorTest;
using ferry_test::expect_error;
using ferry_test::get_within;

// Gives the task just submitted time to start on its worker. A test that
// sleeps only this long holds whichever way it went: a task not yet sent is
// cancelled at once.
void let_it_start() { std::this_thread::sleep_for(200ms); }

// A pool of one worker whose events say when a task was sent to it, for
// the tests whose outcome needs their task running when they cancel it: a
// sanitized worker can take longer to start than any fixed sleep (under
// TSan a task was still queued after 200 ms, and was cancelled before it
// started).
struct watched_pool {
  std::shared_ptr<ferry_test::event_recorder> seen = std::make_shared<ferry_test::event_recorder>();
  ferry::process_pool pool{[this] {
    ferry::pool_options o = ferry_test::options(1);
    o.observer = seen;
    return o;
  }()};
  // Waits (10 s at most) until `n` tasks have started on a worker.
  void wait_until_started(int n = 1) {
    ASSERT_TRUE(seen->wait_for([n](const auto& tasks, const auto&) {
      return ferry_test::count(tasks, ferry::task_event::kind::started) >= n;
    })) << "fewer than " << n << " tasks started within 10 s";
  }
};

TEST_F(CancelRunning, ATaskPollingStopRequestedStopsAndKeepsItsOutcome) {
  watched_pool watched;
  ferry::process_pool& pool = watched.pool;
  auto f = pool.submit(test_tasks::poll_until_stopped(), 20'000);
  watched.wait_until_started();
  const std::vector<int> before = pool.worker_pids();
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_TRUE(f.cancel(10s));
  EXPECT_EQ(get_within(f), 1) << "it saw the request";
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 5s);
  EXPECT_EQ(pool.worker_pids(), before) << "a task that stops in time keeps its worker";
  auto next = pool.submit(test_tasks::poll_until_stopped(), 10);
  EXPECT_EQ(get_within(next), 0) << "the next task on that worker is not stopped";
}

TEST_F(CancelRunning, AStopCallbackOnTheTaskTokenRuns) {
  watched_pool watched;
  ferry::process_pool& pool = watched.pool;
  auto f = pool.submit(test_tasks::wait_for_stop_callback(), 20'000);
  watched.wait_until_started();
  EXPECT_TRUE(f.cancel(10s));
  EXPECT_EQ(get_within(f), 1);
}

TEST_F(CancelRunning, ASleepingTaskIsKilledAfterItsGraceAndSaysItWasRunning) {
  watched_pool watched;
  ferry::process_pool& pool = watched.pool;
  auto f = pool.submit(test_tasks::sleep_ms(), 20'000);
  watched.wait_until_started();
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_TRUE(f.cancel(100ms));
  const auto e = expect_error<ferry::cancelled_error>([&] { get_within(f); });
  EXPECT_NE(std::string(e.what()).find("while it was running"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("100 ms"), std::string::npos) << e.what();
  const auto took = std::chrono::steady_clock::now() - asked;
  EXPECT_GE(took, 100ms);
  EXPECT_LT(took, 10s);
  ferry_test::expect_pool_serves(pool);
}

TEST_F(CancelRunning, ABusyLoopIsKilledAfterItsGrace) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::spin_forever());
  let_it_start();
  EXPECT_TRUE(f.cancel(50ms));
  expect_error<ferry::cancelled_error>([&] { get_within(f); });
  ferry_test::expect_pool_serves(pool);
}

// The task queued behind the cancelled one in its worker (pipelined) never
// started: it runs on the next worker, and is not failed.
TEST_F(CancelRunning, NoOtherTaskIsLostWhenTheWorkerIsKilled) {
  ferry::process_pool pool(ferry_test::options(1));
  auto stuck = pool.submit(test_tasks::spin_forever());
  std::vector<ferry::future<int>> others;
  for (int i = 0; i < 5; ++i) others.push_back(pool.submit(test_tasks::add(), i, 1));
  let_it_start();
  EXPECT_TRUE(stuck.cancel(0ms));
  expect_error<ferry::cancelled_error>([&] { get_within(stuck); });
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get_within(others[i]), i + 1);
}

// A task asked to stop before it began (queued behind another in its
// worker) sees the request as it starts.
TEST_F(CancelRunning, ATaskAskedBeforeItStartsSeesTheRequestAtOnce) {
  ferry::process_pool pool(ferry_test::options(1));
  auto first = pool.submit(test_tasks::sleep_ms(), 300);
  auto second = pool.submit(test_tasks::poll_until_stopped(), 20'000);
  let_it_start();
  second.cancel(10s);
  EXPECT_GT(get_within(first), 0);  // unaffected: its worker's pid
  // Sent behind the first (and asked while there), or still queued in the
  // pool (and cancelled there): either way it does not run its 20 s.
  try {
    EXPECT_EQ(get_within(second), 1);
  } catch (const ferry::cancelled_error&) {
  }
}

TEST_F(CancelRunning, ATaskNotYetSentIsCancelledAtOnce) {
  ferry::process_pool pool(ferry_test::options(1));
  auto busy = pool.submit(test_tasks::sleep_ms(), 300);
  std::vector<ferry::future<int>> queued;
  for (int i = 0; i < 4; ++i) queued.push_back(pool.submit(test_tasks::sleep_ms(), 300));
  EXPECT_TRUE(queued.back().cancel(1s));
  EXPECT_TRUE(queued.back().ready());
  expect_error<ferry::cancelled_error>([&] { get_within(queued.back()); });
  get_within(busy);
}

// However the request and the task's end interleave, a value that was
// delivered stays: the future holds the value, or the request came first
// and it was cancelled; never both, never neither.
TEST_F(CancelRunning, ACancelRacingTheTasksEndNeverLosesADeliveredValue) {
  ferry::process_pool pool(ferry_test::options(2));
  ferry_test::expect_cancels_racing_the_ends_to_keep_delivered_values(pool, 200);
  ferry_test::expect_pool_serves(pool);
}

// A request to a worker that has just died (killed from outside, not yet
// reaped) must not raise SIGPIPE in this program: the task fails as its
// worker's death says, or as cancelled. The first task must be running when
// its worker is killed: one still queued is cancelled at once, and the
// second then goes to the worker just killed, whose socket lives until it
// has exited; as that worker's first task it may have begun, and fails with
// its death (seen under TSan, whose workers can take over 100 ms to start).
// So each round waits until its first task has started (the rounds before
// started two tasks each).
TEST_F(CancelRunning, ACancelRacingItsWorkersDeathEndsTheTaskAndNotTheProgram) {
  watched_pool watched;
  ferry::process_pool& pool = watched.pool;
  for (int i = 0; i < 10; ++i) {
    auto f = pool.submit(test_tasks::sleep_ms(), 20'000);
    auto pid = pool.submit(test_tasks::pid());  // queued behind it: runs after the kill
    watched.wait_until_started(2 * i + 1);
    const std::vector<int> pids = pool.worker_pids();
    ASSERT_EQ(pids.size(), 1u);
    ::kill(pids[0], SIGKILL);
    f.cancel(0ms);
    try {
      get_within(f);
      ADD_FAILURE() << "a task whose worker was killed ended with a value";
    } catch (const ferry::worker_died_error&) {
    } catch (const ferry::cancelled_error&) {
    }
    EXPECT_GT(get_within(pid), 0);
  }
}

TEST_F(CancelRunning, AFinishedTaskCannotBeCancelled) {
  ferry::process_pool pool(ferry_test::options(1));
  auto f = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(f), 3);
  EXPECT_FALSE(f.cancel(0ms));
  EXPECT_EQ(get_within(f), 3);
}

TEST_F(CancelRunning, ATaskWithOptionsIsStoppedAndNotRetried) {
  {
    watched_pool watched;
    ferry::process_pool& pool = watched.pool;
    auto f = pool.submit({.retries = 3}, test_tasks::sleep_ms(), 20'000);
    watched.wait_until_started();
    EXPECT_TRUE(f.cancel(50ms));
    const auto e = expect_error<ferry::cancelled_error>([&] { get_within(f); });
    ferry_test::expect_message(e, "after an attempt of it had started");
    ferry_test::expect_pool_serves(pool);
  }
  // The task's retries hold the pool until its stopped attempt has ended,
  // which the continuation thread learns after the future failed: the last
  // handle may go first (it did under load), and the pool then goes on a
  // thread of ferry's own, its workers with it.
  EXPECT_TRUE(ferry_test::workers_gone_within(30s)) << "a worker outlived its pool";
}

// cancel() without a grace: the attempt that runs is not stopped, its
// result is dropped, and the error does not say "before it started".
TEST_F(CancelRunning, ATaskWithOptionsCancelledWhileItsAttemptRunsSaysItHadStarted) {
  {
    watched_pool watched;
    ferry::process_pool& pool = watched.pool;
    auto f = pool.submit({.retries = 2}, test_tasks::sleep_ms(), 300);
    watched.wait_until_started();
    EXPECT_TRUE(f.cancel());
    const auto e = expect_error<ferry::cancelled_error>([&] { get_within(f); });
    ferry_test::expect_message(e, "after an attempt of it had started");
    ferry_test::expect_pool_serves(pool);
  }
  EXPECT_TRUE(ferry_test::workers_gone_within(30s)) << "a worker outlived its pool";
}

TEST_F(CancelRunning, OutsideATaskNothingIsEverAskedToStop) {
  EXPECT_FALSE(ferry::this_task::stop_requested());
  EXPECT_FALSE(ferry::this_task::get_stop_token().stop_possible());
}

}  // namespace
