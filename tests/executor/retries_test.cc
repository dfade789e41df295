// Copyright ferry authors.
//
// src/executor/front/retries.cc, without a pool: run_with_retries is given
// a queue that only observes and a sender that hands the test each
// attempt's state, which the test then ends as a pool would (a result, a
// dead worker, a timeout). What the front decides is then visible alone:
// whether another attempt is sent, and what the task's own future holds.
#include <executor/internal/retries.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <executor/errors.h>
#include <executor/events.h>
#include <executor/internal/continuation.h>
#include <executor/internal/result_items.h>
#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"
#include "../error_message.h"

namespace {

using ferry::detail::future_state;
using ferry::detail::protocol::exception_kind;
using namespace std::chrono_literals;

// Keeps the retried events it is told of.
class retried_events final : public ferry::pool_observer {
 public:
  void on_task(const ferry::task_event& e) override {
    std::lock_guard lock(mu_);
    if (e.what == ferry::task_event::kind::retried) errors_.emplace_back(e.error);
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> errors_;
};

// The queue run_with_retries holds: nothing is submitted through it (the
// sender below stands for submit_encoded), only its observer is read.
class observing_queue final : public ferry::detail::task_queue {
 public:
  std::shared_ptr<future_state> submit_task(const ferry::detail::task_writer&, std::uint32_t) override {
    throw std::logic_error("the test's sender submits");
  }
  void shutdown(ferry::shutdown_options) override {}
  bool is_shutdown() const override { return false; }
  unsigned task_retries() const override { return 0; }
  std::size_t max_workers() const override { return 1; }
  ferry::pool_observer* observer() const override { return &events; }

  mutable retried_events events;
};

// Each attempt's state, in the order sent; the sender may be told to throw
// from some attempt on, as a pool shut down meanwhile does.
class attempts {
 public:
  ferry::detail::send_attempt sender() {
    return [this](ferry::detail::task_queue&) {
      std::lock_guard lock(mu_);
      if (sent_.size() >= refuse_from_)
        throw ferry::pool_shutdown_error("ferry: submit after the pool was shut down");
      sent_.push_back(ferry::detail::make_future_state());
      cv_.notify_all();
      return sent_.back();
    };
  }
  // The n-th attempt (from 1), once sent; fails the test after 10 s.
  std::shared_ptr<future_state> nth(std::size_t n) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, 10s, [&] { return sent_.size() >= n; })) {
      ADD_FAILURE() << "attempt " << n << " was never sent";
      return ferry::detail::make_future_state();
    }
    return sent_[n - 1];
  }
  std::size_t count() {
    std::lock_guard lock(mu_);
    return sent_.size();
  }
  void refuse_from(std::size_t n) {
    std::lock_guard lock(mu_);
    refuse_from_ = n;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::shared_ptr<future_state>> sent_;
  std::size_t refuse_from_ = SIZE_MAX;
};

// Waits until what the continuation thread had queued has run, and what
// that queued in turn: an attempt's end, and the sending of the next.
void settle() {
  auto done = std::make_shared<std::promise<void>>();
  ferry::detail::run_continuation(
      [done] { ferry::detail::run_continuation([done] { done->set_value(); }); });
  ASSERT_EQ(done->get_future().wait_for(10s), std::future_status::ready);
}

void die(future_state& attempt, int pid) {
  attempt.fail(std::make_exception_ptr(ferry::worker_died_error(pid, "was killed by signal 9 (SIGKILL)")));
}

// A result of one item: the int32 `value`, or a std::runtime_error thrown.
std::shared_ptr<const ferry::detail::message_body> result(int value, bool threw = false) {
  ferry::detail::protocol::result_writer w(1);
  w.begin_value()(std::int32_t{value});
  if (threw) w.fail({.kind = exception_kind::runtime_error, .type_name = "std::runtime_error", .what = "flaky"});
  w.end_item();
  return ferry::detail::make_message_body(w.finish());
}

int value_of(const future_state& task) {
  return ferry::detail::read_item<std::int32_t>(ferry::detail::result_items(task, 1).front());
}

template <class E>
E error_of(const future_state& task) {
  EXPECT_TRUE(task.wait_until(std::chrono::steady_clock::now() + 10s));
  return ferry_test::caught_as<E>(task.error());
}

TEST(Retries, ATaskWhoseWorkerDiedIsSentAgainUntilItsRetriesAreSpent) {
  auto queue = std::make_shared<observing_queue>();
  attempts sent;
  auto task = ferry::detail::run_with_retries(queue, sent.sender(), {.name = "load"}, 2);
  die(*sent.nth(1), 11);
  die(*sent.nth(2), 12);
  die(*sent.nth(3), 13);
  const auto e = error_of<ferry::worker_died_error>(*task);
  EXPECT_EQ(e.pid(), 13);
  ASSERT_EQ(e.attempts().size(), 3u);
  EXPECT_EQ(e.attempts()[0], "worker 11 was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(e.attempts()[1], "worker 12 was killed by signal 9 (SIGKILL)");
  EXPECT_NE(std::string(e.what()).find("task 'load'"), std::string::npos) << e.what();
  settle();
  EXPECT_EQ(sent.count(), 3u);
  EXPECT_EQ(queue->events.errors().size(), 2u);
}

TEST(Retries, AnAttemptThatSucceedsEndsTheTaskWithItsResult) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  die(*sent.nth(1), 21);
  sent.nth(2)->finish(result(42));
  ASSERT_TRUE(task->wait_until(std::chrono::steady_clock::now() + 10s));
  EXPECT_EQ(value_of(*task), 42);
  settle();
  EXPECT_EQ(sent.count(), 2u);
}

TEST(Retries, WhatATaskThrewIsItsResultUnlessRetryOnExceptionIsSet) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  sent.nth(1)->finish(result(0, /*threw=*/true));
  ASSERT_TRUE(task->wait_until(std::chrono::steady_clock::now() + 10s));
  EXPECT_THROW(value_of(*task), std::runtime_error);
  settle();
  EXPECT_EQ(sent.count(), 1u);
}

TEST(Retries, WithRetryOnExceptionWhatATaskThrewIsRetriedAndNamedInTheEvent) {
  auto queue = std::make_shared<observing_queue>();
  attempts sent;
  auto task = ferry::detail::run_with_retries(queue, sent.sender(), {.retry_on_exception = true}, 3);
  sent.nth(1)->finish(result(0, /*threw=*/true));
  sent.nth(2)->finish(result(5));
  ASSERT_TRUE(task->wait_until(std::chrono::steady_clock::now() + 10s));
  EXPECT_EQ(value_of(*task), 5);
  EXPECT_EQ(queue->events.errors(), std::vector<std::string>{"threw: flaky"});
}

TEST(Retries, ATimeoutIsNotRetriedAndItsErrorNamesTheTask) {
  attempts sent;
  auto task =
      ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {.name = "slow"}, 3);
  sent.nth(1)->fail(std::make_exception_ptr(ferry::task_timeout_error("ran longer than 1 s")));
  const auto e = error_of<ferry::task_timeout_error>(*task);
  EXPECT_STREQ(e.what(), "task 'slow': ran longer than 1 s");
  settle();
  EXPECT_EQ(sent.count(), 1u);
}

TEST(Retries, APoolShutDownBetweenAttemptsFailsTheTaskWithThatError) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  sent.refuse_from(1);
  die(*sent.nth(1), 31);
  error_of<ferry::pool_shutdown_error>(*task);
}

TEST(Retries, ASenderThatRefusesTheFirstAttemptThrowsToTheSubmitter) {
  attempts sent;
  sent.refuse_from(0);
  EXPECT_THROW(ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3),
               ferry::pool_shutdown_error);
}

TEST(Retries, CancellingTheTaskCancelsTheAttemptWaitingInTheQueueAndSendsNoOther) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  const auto first = sent.nth(1);
  EXPECT_TRUE(task->cancel());
  error_of<ferry::cancelled_error>(*first);
  const auto e = error_of<ferry::cancelled_error>(*task);
  EXPECT_NE(std::string(e.what()).find("before it started"), std::string::npos) << e.what();
  settle();
  EXPECT_EQ(sent.count(), 1u);
}

TEST(Retries, CancellingTheTaskAfterItsAttemptStartedSaysSoAndSendsNoOther) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  const auto first = sent.nth(1);
  ASSERT_TRUE(first->start());  // sent to a worker
  EXPECT_TRUE(task->cancel());
  const auto e = error_of<ferry::cancelled_error>(*task);
  EXPECT_NE(std::string(e.what()).find("after an attempt of it had started"), std::string::npos) << e.what();
  die(*first, 41);  // it ends anyway: nothing is sent again
  settle();
  EXPECT_EQ(sent.count(), 1u);
}

TEST(Retries, AStoppedTaskWhoseWorkerThenDiesIsNotSentAgain) {
  attempts sent;
  auto task = ferry::detail::run_with_retries(std::make_shared<observing_queue>(), sent.sender(), {}, 3);
  const auto first = sent.nth(1);
  ASSERT_TRUE(first->start());  // running: only its pool could stop it
  task->request_stop(0ms);
  die(*first, 41);  // as the pool's kill after the grace ends it
  settle();
  EXPECT_EQ(sent.count(), 1u);
  EXPECT_TRUE(task->ready());
}

}  // namespace
