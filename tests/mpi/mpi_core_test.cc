// Copyright ferry authors.
//
// Rank 0's core (src/mpi/mpi_core.h) under `mpirun -n 3`: the pools it
// refuses to make, and the window of tasks it sends an agent ahead, which
// follows their rate. Run as mpi_pool_test.cc is, one MPI job per test.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>
#include <executor/mpi_pool.h>

#include "../executor/event_recorder.h"
#include "../executor/test_harness.h"
#include "../executor/test_tasks.h"
#include "mpi_test_options.h"

using namespace std::chrono_literals;
using ferry_test::expect_error;
using ferry_test::get_within;
using mpi_test::observed;
using mpi_test::options;

TEST(MpiCore, AnOutputCallbackIsRefusedForItWouldRunOnOtherHosts) {
  auto o = options();
  o.local.on_output = [](const ferry::output_line&) {};
  const auto e = expect_error<ferry::error>([&] { ferry::mpi_pool pool(o); });
  EXPECT_NE(std::string(e.what()).find("local.worker_output"), std::string::npos) << e.what();
}

TEST(MpiCore, RefusesForkInProcessWorkersAndASecondPoolWhileOneRuns) {
  ferry::mpi_pool_options o = options();
  o.local.start = ferry::start_method::fork;
  EXPECT_THROW(ferry::mpi_pool{o}, ferry::error);
  o.local.start = ferry::start_method::in_process;
  const auto e = expect_error<ferry::error>([&] { ferry::mpi_pool pool(o); });
  EXPECT_NE(std::string(e.what()).find("use a process_pool"), std::string::npos) << e.what();
  ferry::mpi_pool pool(options());
  const auto second = expect_error<ferry::error>([&] { ferry::mpi_pool another(options()); });
  EXPECT_NE(std::string(second.what()).find("still running"), std::string::npos) << second.what();
  // The refusals cost the running pool nothing.
  auto f = pool.submit(test_tasks::add(), 2, 3);
  EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(f.get(), 5);
}

TEST(MpiCore, PoolsOneAfterAnotherInOneJobEachRunTasksOnTheSameAgents) {
  std::vector<std::string> first_hosts;
  {
    ferry::mpi_pool pool(options());
    first_hosts = pool.hosts();
    auto f = pool.submit(test_tasks::add(), 1, 2);
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(f.get(), 3);
  }
  ferry::mpi_pool_options o = options();
  o.local.max_workers = 1;  // the next pool's own options reach the agents
  ferry::mpi_pool second(o);
  EXPECT_EQ(second.hosts(), first_hosts);
  EXPECT_EQ(second.max_workers(), first_hosts.size());
  auto g = second.submit(test_tasks::greet("hello"), std::string("again"));
  ASSERT_EQ(g.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(g.get(), "hello, again");
  second.shutdown();
  EXPECT_THROW(second.submit(test_tasks::add(), 1, 1), ferry::pool_shutdown_error);
  // Shut down but still held: the job may have its next pool.
  ferry::mpi_pool third(options());
  auto h = third.submit(test_tasks::add(), 20, 22);
  ASSERT_EQ(h.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(h.get(), 42);
}

namespace {

// Sends n short tasks through the pool, so that the agent's window follows
// their rate, then submits `count` tasks of `ms` each at once, waits for the
// manager to send what it will, and returns how many it held back
// (cancel() succeeds only for a task not sent to an agent yet). The rest
// are waited for.
int long_tasks_held_back(ferry::mpi_pool& pool, int count, int ms) {
  std::vector<int> inputs(2000, 1);
  EXPECT_EQ(pool.map(test_tasks::scale(1), inputs, 1).size(), inputs.size());
  std::vector<ferry::future<int>> tasks;
  for (int i = 0; i < count; ++i) tasks.push_back(pool.submit(test_tasks::sleep_ms(), ms));
  std::this_thread::sleep_for(50ms);
  int held = 0;
  for (auto& f : tasks)
    if (f.cancel()) ++held;
  for (auto& f : tasks) EXPECT_TRUE(f.wait_for(30s) == std::future_status::ready);
  return held;
}

ferry::mpi_pool_options one_worker() {
  ferry::mpi_pool_options o = options();
  o.local.max_workers = 1;
  o.tasks_in_flight_per_worker = 1;
  return o;
}

}  // namespace

// mpi_pool_options::work_ahead: the window follows the recent rate, so long
// tasks right after short ones are sent ahead, and once the long ones have
// made the rate fall, further long tasks wait at rank 0 for the one worker.
TEST(MpiCore, AfterShortTasksTheWindowGrowsAndLongTasksShrinkItToTheFloor) {
  ferry::mpi_pool_options o = one_worker();
  // Longer than the default, so that a loaded machine's slower rate still
  // makes a window of more than one.
  o.work_ahead = 50ms;
  ferry::mpi_pool pool(o);
  EXPECT_LT(long_tasks_held_back(pool, 5, 100), 4);  // sent ahead: the window grew
  auto running = pool.submit(test_tasks::sleep_ms(), 400);
  std::this_thread::sleep_for(150ms);  // nothing answers: the rate falls
  std::vector<ferry::future<int>> later;
  for (int i = 0; i < 3; ++i) later.push_back(pool.submit(test_tasks::sleep_ms(), 100));
  std::this_thread::sleep_for(50ms);
  for (auto& f : later) EXPECT_TRUE(f.cancel()) << "a long task was sent past the floor";
  get_within(running);
}

TEST(MpiCore, AZeroWorkAheadKeepsTheWindowFixed) {
  ferry::mpi_pool_options o = one_worker();
  o.work_ahead = {};
  ferry::mpi_pool pool(o);
  EXPECT_EQ(long_tasks_held_back(pool, 5, 100), 4);  // only the floor of one was sent
}

// A task submitted to a pool with nothing in flight leaves from the
// submitting thread, the manager asleep (src/mpi/mpi_core.h). One nobody
// then waits for is still read by the manager within milliseconds, not at
// its next heartbeat (a second): its finished event says so. Seven tries,
// each once the manager has gone to sleep until its heartbeat (it naps a
// millisecond after the last poll, then sleeps), most of them quick: a
// manager left asleep would be quick only where a try met its wake.
TEST(MpiCore, TheAnswerOfATaskNobodyWaitsForIsReadWithinMilliseconds) {
  auto seen = std::make_shared<ferry_test::event_recorder>();
  ferry::mpi_pool pool(observed(seen));
  auto warm = pool.submit(test_tasks::add(), 1, 1);
  ASSERT_EQ(get_within(warm), 2);
  int quick = 0;
  std::vector<ferry::future<int>> unwatched;
  for (int i = 0; i < 7; ++i) {
    std::this_thread::sleep_for(100ms);  // past the manager's naps: it sleeps until a heartbeat is due
    const auto finished = [](const std::vector<ferry_test::recorded_task>& t) {
      return ferry_test::count(t, ferry::task_event::kind::finished);
    };
    const int before = finished(seen->tasks());
    const auto start = std::chrono::steady_clock::now();
    unwatched.push_back(pool.submit(test_tasks::add(), i, 1));
    ASSERT_TRUE(seen->wait_for([&](const auto& t, const auto&) { return finished(t) > before; }));
    if (std::chrono::steady_clock::now() - start < 200ms) ++quick;
  }
  EXPECT_GE(quick, 5) << "the answers of tasks nobody waited for waited for the manager's heartbeat";
  for (int i = 0; i < 7; ++i) EXPECT_EQ(get_within(unwatched[static_cast<std::size_t>(i)]), i + 1);
}

// Threads that wait at the same time take turns reading the pool's answers
// (help): each gets its own, whether it blocks in get() or polls with
// wait_for(0) and ready().
TEST(MpiCore, ThreadsWaitingAtOnceEachGetTheirOwnAnswers) {
  ferry::mpi_pool pool(options());
  std::atomic<int> wrong{0};
  std::atomic<int> late{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 150; ++i) {
        auto f = pool.submit(test_tasks::add(), t * 1000, i);
        if (i % 3 == 1) {
          const auto deadline = std::chrono::steady_clock::now() + 30s;
          while (f.wait_for(0ms) != std::future_status::ready && std::chrono::steady_clock::now() < deadline) {
          }
        } else if (i % 3 == 2) {
          ferry_test::poll_until_ready(f);
        }
        if (f.wait_for(30s) != std::future_status::ready) {
          ++late;
          continue;
        }
        if (f.get() != t * 1000 + i) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(late.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
}

// A callback run where the answer is read, here by a thread that polls,
// submits to the same pool: it cannot take a turn inside the one it runs
// in, and the task still leaves.
TEST(MpiCore, ACallbackRunByAPollingThreadMaySubmitToThePool) {
  ferry::mpi_pool pool(options());
  std::mutex mu;
  std::optional<ferry::future<int>> second;
  auto first = pool.submit(test_tasks::add(), 1, 2);
  first.on_done([&](const ferry::future<int>& f) {
    auto next = pool.submit(test_tasks::add(), f.get(), 10);
    std::lock_guard lock(mu);
    second = std::move(next);
  });
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (second || std::chrono::steady_clock::now() > deadline) break;
    }
    (void)first.ready();  // polls the pool
    std::this_thread::yield();
  }
  std::lock_guard lock(mu);
  ASSERT_TRUE(second) << "the callback did not run within 30 s";
  EXPECT_EQ(get_within(*second), 13);
}

// shutdown() while threads poll for their answers: their last turns are
// the manager's; every future they got ends with its value.
TEST(MpiCore, ShutdownWhileThreadsPollForTheirAnswersEndsEveryFuture) {
  ferry::mpi_pool pool(options());
  std::atomic<int> wrong{0};
  std::atomic<int> answered{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0;; ++i) {
        std::optional<ferry::future<int>> f;
        try {
          f = pool.submit(test_tasks::add(), i, 1);
        } catch (const ferry::pool_shutdown_error&) {
          return;
        }
        if (f->wait_for(30s) != std::future_status::ready || f->get() != i + 1) ++wrong;
        ++answered;
      }
    });
  }
  std::this_thread::sleep_for(300ms);
  pool.shutdown();
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(answered.load(), 0);
}

// As the process pool's (PoolCore.ACallbackOnAPollingThreadMayShutItsPoolDown):
// a callback run by a polling thread's turn shuts the pool down without
// waiting for the manager, which needs the turn that thread is in.
TEST(MpiCore, ACallbackOnAPollingThreadMayShutItsPoolDown) {
  ferry_test::finishes_within(60s, [] {
    for (int i = 0; i < 5; ++i) {
      ferry::mpi_pool pool(options());
      auto warm = pool.submit(test_tasks::add(), 1, 1);
      EXPECT_EQ(get_within(warm), 2);
      ferry_test::shut_down_by_a_callback(pool, i);
    }
  }, "shutdown() from a callback on a polling thread");
}

// As the process pool's: the last handle, held by a callback, goes on the
// manager thread or a polling thread; another thread deletes the pool, and
// the next pool of the job starts once it has.
TEST(MpiCore, APoolsLastHandleMayGoWithACallbackOnThePoolsOwnThreads) {
  ferry_test::finishes_within(90s, [] {
    for (int i = 0; i < 4; ++i) {
      auto f = ferry_test::dropped_by_a_callback<ferry::mpi_pool>(options(), i, i % 2 == 0);
      EXPECT_EQ(get_within(f), i + 2);
      // One pool at a time: the next waits until the last one is gone.
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      for (;;) {
        try {
          ferry::mpi_pool next(options());
          auto g = next.submit(test_tasks::add(), 3, 4);
          EXPECT_EQ(get_within(g), 7);
          break;
        } catch (const ferry::error& e) {
          if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << e.what();
            break;
          }
          std::this_thread::sleep_for(10ms);
        }
      }
    }
  }, "the last handle dropped on the pool's own thread");
}
