// Copyright ferry authors.
//
// start_method::in_process: each worker a thread of the test process,
// served through the same socket protocol. Its results, exceptions and
// serialization errors are those of spawn's workers; its tasks run in this
// process (where a debugger's breakpoints and a sanitizer see them); what
// it cannot give (stopping a running task) takes effect when the task
// returns.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "test_harness.h"

namespace {

using namespace std::chrono_literals;
using ferry_test::get_within;

class InProcess : public ferry_test::ExecutorTest {
 protected:
  static ferry::pool_options options(ferry::start_method m, std::size_t workers = 2) {
    ferry::pool_options o = ferry_test::options(workers);
    o.start = m;
    return o;
  }
};

// What a future ended with, as text: its value, or its exception's type and
// message.
template <class T>
std::string outcome(ferry::future<T> f) {
  try {
    if constexpr (std::is_same_v<T, std::string>) {
      return "value " + get_within(f);
    } else if constexpr (std::is_same_v<T, test_tasks::fragile>) {
      return "value " + std::to_string(get_within(f).fail_when);
    } else {
      return "value " + std::to_string(get_within(f));
    }
  } catch (const ferry::serialization_error& e) {
    return std::string("serialization_error ") + std::to_string(static_cast<int>(e.where())) + " " +
           e.type_name() + ": " + e.what();
  } catch (const ferry::error& e) {
    return std::string("ferry::error ") + e.what();
  } catch (const std::exception& e) {
    return std::string("std::exception ") + e.what();
  } catch (...) {
    return "something else";
  }
}

// The same tasks, on a pool of each start method: what each ended with.
std::vector<std::string> outcomes(ferry::start_method m) {
  ferry::pool_options o = ferry_test::options(2);
  o.start = m;
  ferry::process_pool pool(o);
  std::vector<std::string> out;
  out.push_back(outcome(pool.submit(test_tasks::add(), 2, 3)));
  out.push_back(outcome(pool.submit(test_tasks::scale(7), 6)));
  out.push_back(outcome(pool.submit(test_tasks::greet("hello"), std::string("ferry"))));
  out.push_back(outcome(pool.submit(test_tasks::negate_pointer(), 9)));
  out.push_back(outcome(pool.submit(test_tasks::offset_by(100), 1)));
  out.push_back(outcome(pool.submit(&test_tasks::triple, 7)));
  out.push_back(outcome(pool.submit([](int x) { return x * x; }, 12)));
  for (const char* kind : {"runtime_error", "out_of_range", "invalid_argument", "bad_alloc"})
    out.push_back(outcome(pool.submit(test_tasks::throw_std(), std::string(kind))));
  out.push_back(outcome(pool.submit(test_tasks::throw_custom())));
  out.push_back(outcome(pool.submit(test_tasks::throw_int())));
  out.push_back(outcome(pool.submit(test_tasks::throw_nested())));
  // A value that cannot be saved in the pool, loaded in the worker, saved
  // there, or loaded back.
  for (int fail_when = 0; fail_when <= 4; ++fail_when) {
    test_tasks::fragile f;
    f.fail_when = fail_when;
    try {
      out.push_back(outcome(pool.submit(test_tasks::pass_fragile(), f)));
    } catch (const std::exception& e) {
      out.push_back(std::string("at submit: ") + e.what());
    }
  }
  const std::vector<int> inputs{1, 2, 3, 4, 5};
  const std::vector<int> squares = pool.map(test_tasks::scale(3), inputs, 2);
  for (int s : squares) out.push_back("map " + std::to_string(s));
  return out;
}

TEST_F(InProcess, ResultsExceptionsAndSerializationErrorsAreThoseOfSpawn) {
  const std::vector<std::string> spawned = outcomes(ferry::start_method::spawn);
  const std::vector<std::string> in_process = outcomes(ferry::start_method::in_process);
  ASSERT_EQ(in_process.size(), spawned.size());
  for (std::size_t i = 0; i < spawned.size(); ++i) EXPECT_EQ(in_process[i], spawned[i]) << "task " << i;
  // Not alike by accident: each kind of ending is there.
  const auto has = [&](std::string_view start) {
    return std::any_of(spawned.begin(), spawned.end(), [&](const std::string& s) { return s.starts_with(start); });
  };
  EXPECT_TRUE(has("value 5"));
  EXPECT_TRUE(has("std::exception oor"));
  EXPECT_EQ(std::count_if(spawned.begin(), spawned.end(),
                          [](const std::string& s) { return s.starts_with("serialization_error"); }),
            4)
      << "fragile fails in each of its four places";
}

std::atomic<int> ran_here{0};

TEST_F(InProcess, TasksRunOnThreadsOfThisProcessAndNoProcessIsStarted) {
  ferry::process_pool pool(options(ferry::start_method::in_process));
  auto pid = pool.submit(test_tasks::pid());
  EXPECT_EQ(get_within(pid), ::getpid());
  auto worker = pool.submit([] { return ferry::is_worker_process(); });
  EXPECT_TRUE(get_within(worker));
  EXPECT_FALSE(ferry::is_worker_process());
  // This process's own memory: what a debugger stopped in the task would see.
  auto touched = pool.submit([] { return ++ran_here; });
  EXPECT_EQ(get_within(touched), 1);
  EXPECT_EQ(ran_here.load(), 1);
  EXPECT_EQ(ferry_test::children(), std::vector<int>{});
  for (int id : pool.worker_pids()) EXPECT_NE(id, ::getpid()) << "a worker is known by its thread's id";
}

TEST_F(InProcess, ATimeoutFailsTheTaskWhenItReturnsAndTheWorkerIsReplaced) {
  ferry::pool_options o = options(ferry::start_method::in_process, 1);
  o.task_timeout = 50ms;
  ferry::process_pool pool(o);
  const auto started = std::chrono::steady_clock::now();
  auto slow = pool.submit(test_tasks::sleep_ms(), 300);
  ferry_test::expect_error<ferry::task_timeout_error>([&] { get_within(slow); });
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms) << "a thread cannot be stopped";
  auto next = pool.submit(test_tasks::add(), 1, 2);
  EXPECT_EQ(get_within(next), 3);
}

// The pool gives up on the worker thread whose task ran past its timeout,
// or that shutdown stopped, by closing its sockets; the thread finds that
// out when it sends the result. It said so on stderr ("ferry worker PID:
// ferry: sending a message: Broken pipe", PID the program's own), as if
// something had gone wrong; it now ends quietly, as a worker process
// whose pool is gone does.
TEST_F(InProcess, AWorkerThreadGivenUpEndsWithoutAWordOnStderr) {
  ::testing::internal::CaptureStderr();
  {
    ferry::pool_options o = options(ferry::start_method::in_process, 1);
    o.task_timeout = 50ms;
    ferry::process_pool pool(o);
    auto slow = pool.submit(test_tasks::sleep_ms(), 200);
    ferry_test::expect_error<ferry::task_timeout_error>([&] { get_within(slow); });
    auto running = pool.submit(test_tasks::sleep_ms(), 40);
    std::this_thread::sleep_for(10ms);
    pool.shutdown({.kill_running = true});
    ferry_test::expect_error<ferry::pool_shutdown_error>([&] { get_within(running); });
  }  // every worker thread joined
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.find("ferry worker"), std::string::npos) << said;
}

TEST_F(InProcess, ShutdownWithKillRunningFailsTheRunningTaskOnceItReturns) {
  ferry::process_pool pool(options(ferry::start_method::in_process, 1));
  auto running = pool.submit(test_tasks::sleep_ms(), 200);
  auto queued = pool.submit(test_tasks::add(), 1, 2);
  std::this_thread::sleep_for(50ms);
  pool.shutdown({.kill_running = true});
  ferry_test::expect_error<ferry::pool_shutdown_error>([&] { get_within(running); });
  ferry_test::expect_error<ferry::pool_shutdown_error>([&] { get_within(queued); });
}

// Each worker thread has its own running task to stop.
TEST_F(InProcess, ACancelledTaskOnAWorkerThreadSeesItsStopRequest) {
  ferry::process_pool pool(options(ferry::start_method::in_process, 2));
  auto polling = pool.submit(test_tasks::poll_until_stopped(), 20'000);
  auto waiting = pool.submit(test_tasks::wait_for_stop_callback(), 20'000);
  auto other = pool.submit(test_tasks::poll_until_stopped(), 300);
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(polling.cancel(10s));
  EXPECT_TRUE(waiting.cancel(10s));
  EXPECT_EQ(get_within(polling), 1);
  EXPECT_EQ(get_within(waiting), 1);
  EXPECT_EQ(get_within(other), 0) << "not asked";
  EXPECT_FALSE(ferry::this_task::stop_requested()) << "this thread runs no task";
}

TEST_F(InProcess, ManyTasksOnSeveralThreadsAllArrive) {
  ferry::process_pool pool(options(ferry::start_method::in_process, 3));
  std::vector<int> inputs(500);
  for (int i = 0; i < 500; ++i) inputs[i] = i;
  const std::vector<int> out = pool.map(test_tasks::scale(2), inputs, 7);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(out[i], 2 * i);
}

TEST_F(InProcess, ItsNameSelectsIt) {
  EXPECT_EQ(ferry::start_method_from_string("in_process"), ferry::start_method::in_process);
  EXPECT_STREQ(ferry::to_string(ferry::start_method::in_process), "in_process");
}

}  // namespace
