// Copyright ferry authors.
//
// src/executor/worker/memory_watch.cc: a task that alone grows the worker
// past pool_options::max_worker_memory ends the worker with
// protocol::task_memory_status; growth outside a task is not its. The case
// that ends a process runs in a forked child; those that must not end one
// run here, where a wrong exit would end the test program itself.
#include "executor/worker/memory_watch.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <thread>
#include <vector>

#include "executor/wire/protocol.h"

#include "../child_exit.h"

namespace {

using namespace std::chrono_literals;
constexpr std::uint64_t mib = 1024 * 1024;

// `bytes` of memory, every page written, so that it is resident. Sizes
// above malloc's largest mmap threshold (32 MiB) are fresh pages, never a
// reused part of the heap that was resident already.
std::vector<char> touched(std::uint64_t bytes) { return std::vector<char>(bytes, 1); }

TEST(MemoryWatch, ATaskThatGrowsPastTheLimitEndsTheWorkerWithItsStatus) {
#if defined(FERRY_UNDER_TSAN)
  GTEST_SKIP() << "ThreadSanitizer does not start threads in a forked child";
#endif
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ferry::detail::memory_watch watch(8 * mib);
    watch.task_started();
    const std::vector<char> grown = touched(40 * mib);
    std::this_thread::sleep_for(5s);  // the watch samples every 10 ms
    ::_exit(grown.back() == 1 ? 0 : 1);
  }
  const std::optional<int> status = ferry_test::wait_status_within(child, 20s);
  ASSERT_TRUE(status) << "the child never ended";
  ASSERT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), ferry::detail::protocol::task_memory_status);
}

TEST(MemoryWatch, GrowthWithinTheLimitLeavesTheTaskRunning) {
  ferry::detail::memory_watch watch(512 * mib);
  watch.task_started();
  const std::vector<char> grown = touched(8 * mib);
  std::this_thread::sleep_for(60ms);
  watch.task_finished();
  EXPECT_EQ(grown.back(), 1);  // still here
}

TEST(MemoryWatch, WhatTheWorkerHeldBeforeTheTaskIsNotTheTasks) {
  // Larger than the limit, but held before the task started: the worker's
  // growth across tasks is retired between tasks, not killed in one.
  const std::vector<char> before = touched(40 * mib);
  ferry::detail::memory_watch watch(8 * mib);
  watch.task_started();
  std::this_thread::sleep_for(60ms);
  watch.task_finished();
  EXPECT_EQ(before.back(), 1);
}

TEST(MemoryWatch, GrowthAfterTheTaskFinishedIsNotWatched) {
  ferry::detail::memory_watch watch(8 * mib);
  watch.task_started();
  watch.task_finished();
  const std::vector<char> after = touched(40 * mib);
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(after.back(), 1);
}

TEST(MemoryWatch, WithoutALimitNothingIsWatched) {
  ferry::detail::memory_watch watch(0);
  watch.task_started();
  const std::vector<char> grown = touched(40 * mib);
  std::this_thread::sleep_for(30ms);
  watch.task_finished();
  EXPECT_EQ(grown.back(), 1);
}

}  // namespace
