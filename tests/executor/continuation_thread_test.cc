// Copyright ferry authors.
//
// src/executor/front/continuation_thread.cc: the one thread per process
// that runs future::then's continuations and resumed coroutines, in the
// order they were queued, never on the thread that queued them, and never
// waiting for itself.
#include "executor/front/continuation_thread.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <executor/internal/continuation.h>

#include "../child_exit.h"

namespace {

using namespace std::chrono_literals;

TEST(ContinuationThread, ContinuationsRunInTheOrderQueuedOnOneOtherThread) {
  auto mu = std::make_shared<std::mutex>();
  auto order = std::make_shared<std::vector<int>>();
  auto threads = std::make_shared<std::vector<std::thread::id>>();
  auto done = std::make_shared<std::promise<void>>();
  for (int i = 0; i < 50; ++i)
    ferry::detail::run_continuation([=] {
      std::lock_guard lock(*mu);
      order->push_back(i);
      threads->push_back(std::this_thread::get_id());
      if (i == 49) done->set_value();
    });
  ASSERT_EQ(done->get_future().wait_for(10s), std::future_status::ready);
  std::lock_guard lock(*mu);
  for (int i = 0; i < 50; ++i) EXPECT_EQ((*order)[static_cast<std::size_t>(i)], i);
  for (const std::thread::id id : *threads) EXPECT_EQ(id, threads->front());
  EXPECT_NE(threads->front(), std::this_thread::get_id());
}

TEST(ContinuationThread, OnlyTheContinuationThreadIsToldItIsIt) {
  EXPECT_FALSE(ferry::detail::on_continuation_thread());
  std::promise<bool> inside;
  ferry::detail::run_continuation([&] { inside.set_value(ferry::detail::on_continuation_thread()); });
  auto f = inside.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(f.get());
}

TEST(ContinuationThread, AnotherThreadCannotRunQueuedContinuations) {
  // Hold the thread busy so that what is queued behind stays queued.
  std::promise<void> release, holding;
  auto released = release.get_future().share();
  ferry::detail::run_continuation([&, released] {
    holding.set_value();
    released.wait_for(10s);
  });
  ASSERT_EQ(holding.get_future().wait_for(10s), std::future_status::ready);
  std::promise<void> ran;
  ferry::detail::run_continuation([&] { ran.set_value(); });
  EXPECT_FALSE(ferry::detail::run_one_continuation());
  auto f = ran.get_future();
  EXPECT_EQ(f.wait_for(0s), std::future_status::timeout);
  release.set_value();
  EXPECT_EQ(f.wait_for(10s), std::future_status::ready);
}

TEST(ContinuationThread, AContinuationWaitingForALaterOneRunsItInsteadOfWaitingForItself) {
  // The first continuation waits for what the second sets; the second is
  // queued behind it, on the same thread: run_one_continuation runs it.
  auto later_ran = std::make_shared<bool>(false);
  std::promise<bool> outcome;
  ferry::detail::run_continuation([&, later_ran] {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!*later_ran && std::chrono::steady_clock::now() < deadline)
      if (!ferry::detail::run_one_continuation()) std::this_thread::sleep_for(1ms);
    outcome.set_value(*later_ran);
  });
  ferry::detail::run_continuation([later_ran] { *later_ran = true; });
  auto f = outcome.get_future();
  ASSERT_EQ(f.wait_for(20s), std::future_status::ready);
  EXPECT_TRUE(f.get());
}

TEST(ContinuationThread, AForkedChildStartsAThreadOfItsOwn) {
#if defined(FERRY_UNDER_TSAN)
  // ThreadSanitizer refuses to start a thread after a multi-threaded fork,
  // which is exactly what this checks.
  GTEST_SKIP() << "ThreadSanitizer does not start threads in a forked child";
#endif
  // Start the parent's thread first, so that the child inherits a runner
  // whose thread it does not have.
  std::promise<void> started;
  ferry::detail::run_continuation([&] { started.set_value(); });
  ASSERT_EQ(started.get_future().wait_for(10s), std::future_status::ready);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::promise<void> ran;
    ferry::detail::run_continuation([&] { ran.set_value(); });
    ::_exit(ran.get_future().wait_for(10s) == std::future_status::ready ? 0 : 3);
  }
  const std::optional<int> status = ferry_test::wait_status_within(child, 20s);
  ASSERT_TRUE(status) << "the child's continuation never ran";
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

}  // namespace
