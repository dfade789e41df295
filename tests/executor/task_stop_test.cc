// Copyright ferry authors.
//
// src/executor/worker/task_stop.cc: a worker's side of stopping a running
// task. The test plays the pool, writing 8-byte task ids to the pipe whose
// read end the task_stop holds, and the worker's thread, beginning and
// ending tasks; what a task would see is asked through this_task.
#include "executor/worker/task_stop.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <stop_token>
#include <thread>

#include <executor/this_task.h>

namespace {

using ferry::detail::task_stop;
using ferry::detail::unique_fd;
using namespace std::chrono_literals;

// The pool's end of the stop pipe, and a task_stop reading the other.
struct stop_pipe {
  stop_pipe() {
    int p[2];
    EXPECT_EQ(::pipe2(p, O_CLOEXEC), 0);
    pool = unique_fd(p[1]);
    stop.emplace(unique_fd(p[0]));
  }
  void ask(std::uint64_t id) const { ASSERT_EQ(::write(pool.get(), &id, sizeof id), static_cast<ssize_t>(sizeof id)); }

  unique_fd pool;
  std::optional<task_stop> stop;
};

// Whether the running task sees a request within `within` (it drains the
// pipe at most once a millisecond).
bool sees_stop(task_stop& s, std::chrono::milliseconds within = 2000ms) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < deadline) {
    if (s.stop_requested()) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

TEST(TaskStop, ARequestForTheRunningTaskIsSeenWhenItAsks) {
  stop_pipe p;
  p.stop->begin(7);
  EXPECT_FALSE(p.stop->stop_requested());
  p.ask(7);
  EXPECT_TRUE(sees_stop(*p.stop));
  p.stop->end();
}

TEST(TaskStop, ARequestForAnotherTaskIsNotTheRunningOnes) {
  stop_pipe p;
  p.stop->begin(7);
  p.ask(8);
  EXPECT_FALSE(sees_stop(*p.stop, 20ms));
  p.stop->end();
}

TEST(TaskStop, ATaskAskedBeforeItBeganIsStoppedFromItsStart) {
  stop_pipe p;
  p.stop->begin(1);
  p.ask(2);  // read while task 1 runs, kept for task 2
  EXPECT_FALSE(sees_stop(*p.stop, 20ms));
  p.stop->end();
  p.stop->begin(2);
  EXPECT_TRUE(p.stop->stop_requested());
  p.stop->end();
  p.stop->begin(3);
  EXPECT_FALSE(p.stop->stop_requested()) << "a request outlived its task";
  p.stop->end();
}

TEST(TaskStop, ATaskBegunOnTopOfAnotherIsNotStoppedForItButTheOneBelowIs) {
  // A task waiting for a nested task runs that task on top of itself.
  stop_pipe p;
  p.stop->begin(10);
  p.stop->begin(11);
  p.ask(10);
  EXPECT_FALSE(sees_stop(*p.stop, 20ms)) << "the nested task was stopped for its parent";
  p.stop->end();
  EXPECT_TRUE(p.stop->stop_requested()) << "the parent's request was lost while it was set aside";
  p.stop->end();
}

TEST(TaskStop, WithoutAPipeATaskIsNeverAsked) {
  task_stop s{unique_fd()};
  s.begin(1);
  EXPECT_FALSE(sees_stop(s, 10ms));
  EXPECT_FALSE(s.token().stop_requested());
  s.end();
}

TEST(TaskStop, AStopCallbackRunsUnaskedWhenThePoolAsks) {
  stop_pipe p;
  p.stop->begin(5);
  const std::stop_token token = p.stop->token();
  std::promise<std::thread::id> ran;
  std::stop_callback callback(token, [&] { ran.set_value(std::this_thread::get_id()); });
  p.ask(5);
  auto f = ran.get_future();
  ASSERT_EQ(f.wait_for(5s), std::future_status::ready) << "the callback never ran";
  EXPECT_NE(f.get(), std::this_thread::get_id()) << "run by the task's own thread, which was not asking";
  EXPECT_TRUE(p.stop->stop_requested());
  p.stop->end();
}

TEST(TaskStop, ATokenTakenAfterTheRequestIsAlreadyStopped) {
  stop_pipe p;
  p.stop->begin(5);
  p.ask(5);
  EXPECT_TRUE(p.stop->token().stop_requested());
  p.stop->end();
}

TEST(TaskStop, ThisTaskAsksTheStopOfItsThreadAndOutsideAWorkerNothing) {
  EXPECT_FALSE(ferry::this_task::stop_requested());
  EXPECT_FALSE(ferry::this_task::get_stop_token().stop_possible());
  stop_pipe p;
  ferry::detail::set_thread_task_stop(&*p.stop);
  p.stop->begin(3);
  p.ask(3);
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    seen = ferry::this_task::stop_requested();
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(seen);
  EXPECT_TRUE(ferry::this_task::get_stop_token().stop_requested());
  p.stop->end();
  ferry::detail::set_thread_task_stop(nullptr);
}

}  // namespace
