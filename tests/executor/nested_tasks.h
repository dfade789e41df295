// Copyright ferry authors.
//
// Tasks that submit tasks (ferry::this_task::pool()), for the process
// pool's and the MPI pool's tests alike: a recursion deeper than the pool
// has workers finishes, a nested task's failure is its parent's exception,
// a nested map streams, and a worker killed while its task waits fails
// that task and nothing else.
#ifndef FERRY_TESTS_EXECUTOR_NESTED_TASKS_H_
#define FERRY_TESTS_EXECUTOR_NESTED_TASKS_H_

#include <gtest/gtest.h>

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

namespace ferry_test {

// fib(20) by one nested task per call: 21 891 tasks, each waiting for two
// others, on a pool whose few workers all wait at once.
template <class Pool>
void expect_fib_of_20_by_nested_tasks(Pool& pool) {
  auto f = pool.submit(test_tasks::nested_fib(), 20);
  EXPECT_EQ(get_within(f, std::chrono::seconds(90)), 6765);
}

template <class Pool>
void expect_a_nested_failure_to_reach_its_parent_as_an_exception(Pool& pool) {
  auto caught = pool.submit(test_tasks::nested_catch(), std::string("runtime_error"));
  EXPECT_EQ(get_within(caught), "caught rt");
  auto let_out = pool.submit(test_tasks::nested_rethrow(), std::string("out_of_range"));
  const auto e = expect_error<std::out_of_range>([&] { get_within(let_out); });
  EXPECT_STREQ(e.what(), "oor");
  // A nested result is read in the worker: a type registered there arrives.
  auto registered = pool.submit(test_tasks::nested_registered_catch(), 7);
  EXPECT_EQ(get_within(registered), "parse_error: line 7");
}

template <class Pool>
void expect_a_nested_map_to_return_every_result(Pool& pool) {
  auto f = pool.submit(test_tasks::nested_sum_of_squares(), 50);
  EXPECT_EQ(get_within(f), 50L * 51 * 101 / 6);
  // A nested map over two ranges zips them, as on the pool itself: the
  // sum of i * (51 - i) for i in 1..50.
  auto zipped = pool.submit(test_tasks::nested_zipped_products(), 50);
  EXPECT_EQ(get_within(zipped), 51L * (50 * 51 / 2) - 50L * 51 * 101 / 6);
}

// The pid a task wrote to `path`, waited for at most 30 s; 0 if none.
inline int wait_for_pid_file(const std::string& path) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    std::ifstream in(path);
    int pid = 0;
    if (in >> pid) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// The worker of a task waiting for a nested task is killed: that task
// fails with worker_died_error; a task beside it and the pool go on.
template <class Pool>
void expect_a_worker_killed_while_its_task_waits_to_fail_only_that_task(Pool& pool) {
  char dir[] = "/tmp/ferry-nested-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string pid_file = std::string(dir) + "/pid";
  auto beside = pool.submit(test_tasks::sleep_ms(), 300);
  auto waiting = pool.submit(test_tasks::wait_on_sleeper(), pid_file, 2'000);
  const int pid = wait_for_pid_file(pid_file);
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into its wait
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  expect_error<ferry::worker_died_error>([&] { get_within(waiting); });
  EXPECT_GT(get_within(beside), 0);
  auto after = pool.submit(test_tasks::nested_fib(), 5);
  EXPECT_EQ(get_within(after), 5);
  std::remove(pid_file.c_str());
  ::rmdir(dir);
}

}  // namespace ferry_test

#endif  // FERRY_TESTS_EXECUTOR_NESTED_TASKS_H_
