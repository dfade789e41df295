// Copyright ferry authors.
//
// src/executor/front/future_state.cc: the untyped state a future shares
// with its pool, as one state machine (pending -> running -> finished, or
// pending -> finished), its callbacks, its stop target, its bounded waits,
// a thread's wait helper, and finish_queue. The typed futures on top are
// future_test.cc's.
#include <executor/internal/future_state.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/errors.h>
#include "executor/core/loop_scope.h"
#include "executor/front/wait_helper.h"
#include "executor/wire/message_io.h"
#include "../error_message.h"

namespace {

using ferry::detail::future_state;
using namespace std::chrono_literals;

std::chrono::steady_clock::time_point in(std::chrono::milliseconds ms) {
  return std::chrono::steady_clock::now() + ms;
}

bool cancelled(const future_state& s) {
  try {
    if (s.error()) std::rethrow_exception(s.error());
  } catch (const ferry::cancelled_error&) {
    return true;
  } catch (...) {
  }
  return false;
}

TEST(FutureState, APendingStateCanBeCancelledOnceAndThenNeitherStartsNorFinishes) {
  auto s = ferry::detail::make_future_state();
  EXPECT_FALSE(s->ready());
  EXPECT_TRUE(s->cancel());
  EXPECT_TRUE(s->ready());
  EXPECT_TRUE(cancelled(*s));
  EXPECT_FALSE(s->cancel());
  EXPECT_FALSE(s->start());
  s->finish(ferry::detail::make_message_body("late"));
  EXPECT_EQ(s->result(), nullptr) << "a result after the cancel was kept";
}

TEST(FutureState, ARunningStateCannotBeCancelledOrStartedAgain) {
  auto s = ferry::detail::make_future_state();
  EXPECT_TRUE(s->start());
  EXPECT_FALSE(s->start());
  EXPECT_FALSE(s->cancel());
  EXPECT_FALSE(s->ready());
}

TEST(FutureState, AStateSaysWhetherItWasEverStarted) {
  auto cancelled_first = ferry::detail::make_future_state();
  EXPECT_FALSE(cancelled_first->started());
  EXPECT_TRUE(cancelled_first->cancel());
  EXPECT_FALSE(cancelled_first->started()) << "cancelled while pending: never sent";
  auto sent = ferry::detail::make_future_state();
  ASSERT_TRUE(sent->start());
  EXPECT_TRUE(sent->started());
  sent->finish(ferry::detail::make_message_body("done"));
  EXPECT_TRUE(sent->started()) << "finished, it had still been sent";
}

TEST(FutureState, TheFirstEndIsKeptAndLaterOnesAreIgnored) {
  auto s = ferry::detail::make_future_state();
  ASSERT_TRUE(s->start());
  s->finish(ferry::detail::make_message_body("first"));
  s->fail(std::make_exception_ptr(std::runtime_error("second")));
  s->finish_local(ferry::detail::void_value());
  ASSERT_NE(s->result(), nullptr);
  EXPECT_EQ(s->result()->view(), "first");
  EXPECT_EQ(s->error(), nullptr);
  EXPECT_EQ(s->local_value(), nullptr);
}

TEST(FutureState, ACallbackRunsOnceOnTheThreadThatFinishesIt) {
  auto s = ferry::detail::make_future_state();
  std::atomic<int> runs{0};
  std::thread::id ran_on;
  s->on_done([&] {
    ++runs;
    ran_on = std::this_thread::get_id();
  });
  std::thread finisher([&] { s->fail(std::make_exception_ptr(std::runtime_error("x"))); });
  const std::thread::id finisher_id = finisher.get_id();
  finisher.join();
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(ran_on, finisher_id);
  s->fail(std::make_exception_ptr(std::runtime_error("again")));
  EXPECT_EQ(runs.load(), 1);
}

TEST(FutureState, ACallbackAddedToAFinishedStateRunsAtOnceHere) {
  auto s = ferry::detail::make_future_state();
  s->finish_local(ferry::detail::void_value());
  std::thread::id ran_on;
  s->on_done([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(FutureState, ACallbackMayUseItsStateWithoutDeadlock) {
  // Callbacks run after the state's lock is let go.
  auto s = ferry::detail::make_future_state();
  bool seen_ready = false;
  s->on_done([&] { seen_ready = s->ready() && s->error() == nullptr; });
  s->finish_local(ferry::detail::void_value());
  EXPECT_TRUE(seen_ready);
}

TEST(FutureState, WaitUntilGivesUpAtItsDeadlineAndSeesAFinishFromAnotherThread) {
  auto s = ferry::detail::make_future_state();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(s->wait_until(in(30ms)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
  std::thread finisher([&] {
    std::this_thread::sleep_for(20ms);
    s->finish_local(ferry::detail::void_value());
  });
  EXPECT_TRUE(s->wait_until(in(10000ms)));
  finisher.join();
  s->wait();  // finished: returns at once
}

class recording_target final : public ferry::detail::stop_target {
 public:
  void request_stop(std::uint64_t id, std::chrono::milliseconds grace) override {
    ids.push_back(id);
    graces.push_back(grace);
  }
  std::vector<std::uint64_t> ids;
  std::vector<std::chrono::milliseconds> graces;
};

TEST(FutureState, AStopRequestGoesToItsTargetWithItsIdAndANonNegativeGrace) {
  auto s = ferry::detail::make_future_state();
  auto target = std::make_shared<recording_target>();
  s->set_stop_target(target, 77);
  ASSERT_TRUE(s->start());
  EXPECT_TRUE(s->request_stop(-5ms));  // running: the target alone can stop it
  ASSERT_EQ(target->ids.size(), 1u);
  EXPECT_EQ(target->ids[0], 77u);
  EXPECT_EQ(target->graces[0], 0ms);
  EXPECT_FALSE(s->ready()) << "the pool ends a running task, not the request";
}

TEST(FutureState, AStopRequestCancelsAPendingStateAfterTellingItsTarget) {
  auto s = ferry::detail::make_future_state();
  auto target = std::make_shared<recording_target>();
  s->bind_stop_target(target, 3);
  EXPECT_TRUE(s->request_stop(100ms));
  EXPECT_EQ(target->ids.size(), 1u);
  EXPECT_TRUE(cancelled(*s));
}

// A target that knows why a cancel happens (a front that retries) gives
// the error; others leave cancelled_error's "cancelled before it started".
class explaining_target final : public ferry::detail::stop_target {
 public:
  void request_stop(std::uint64_t, std::chrono::milliseconds) override {}
  std::exception_ptr cancel_error() override {
    return std::make_exception_ptr(ferry::cancelled_error("ferry: cancelled, as the target says"));
  }
};

TEST(FutureState, ACancelFailsWithTheErrorItsTargetGivesOrTheDefault) {
  auto explained = ferry::detail::make_future_state();
  explained->set_stop_target(std::make_shared<explaining_target>(), 1);
  EXPECT_TRUE(explained->cancel());
  EXPECT_EQ(ferry_test::caught_as<ferry::cancelled_error>(explained->error()).what(),
            std::string("ferry: cancelled, as the target says"));
  auto plain = ferry::detail::make_future_state();
  plain->set_stop_target(std::make_shared<recording_target>(), 2);
  EXPECT_TRUE(plain->cancel());
  EXPECT_EQ(ferry_test::caught_as<ferry::cancelled_error>(plain->error()).what(),
            std::string("ferry: the task was cancelled before it started"));
}

TEST(FutureState, AStopRequestWithoutTargetOrAfterTheEndDoesNothing) {
  auto running = ferry::detail::make_future_state();
  ASSERT_TRUE(running->start());
  EXPECT_FALSE(running->request_stop(0ms));
  EXPECT_FALSE(running->ready());
  auto done = ferry::detail::make_future_state();
  auto target = std::make_shared<recording_target>();
  done->set_stop_target(target, 1);
  done->finish_local(ferry::detail::void_value());
  EXPECT_FALSE(done->request_stop(0ms));
  EXPECT_TRUE(target->ids.empty());
}

// Serves "work" (here: finishing the state) while its thread waits.
class finishing_helper final : public ferry::detail::wait_helper {
 public:
  explicit finishing_helper(future_state& s) : s_(s) {}
  bool help_until(const std::function<bool()>& done, std::chrono::steady_clock::time_point) override {
    ++calls;
    s_.finish_local(ferry::detail::void_value());
    return done();
  }
  int calls = 0;

 private:
  future_state& s_;
};

TEST(FutureState, AThreadWithAWaitHelperHandsItTheWaitInsteadOfBlocking) {
  auto s = ferry::detail::make_future_state();
  finishing_helper helper(*s);
  ferry::detail::set_thread_wait_helper(&helper);
  // Blocking here would never end: only the helper finishes the state.
  s->wait();
  ferry::detail::set_thread_wait_helper(nullptr);
  EXPECT_EQ(helper.calls, 1);
  EXPECT_TRUE(s->ready());
  EXPECT_EQ(ferry::detail::thread_wait_helper(), nullptr);
}

TEST(FutureStateFinishQueue, IndicesLeaveInTheOrderPushedAndAnEmptyWaitEndsAtItsDeadline) {
  auto q = ferry::detail::make_finish_queue();
  q->push(4);
  q->push(1);
  EXPECT_EQ(q->pop(), 4u);
  EXPECT_EQ(q->pop_until(in(1000ms)), std::optional<std::size_t>(1));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(q->pop_until(in(30ms)), std::nullopt);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 30ms);
}

TEST(FutureStateFinishQueue, APopWaitsForAPushFromAnotherThread) {
  auto q = ferry::detail::make_finish_queue();
  std::thread pusher([&] {
    std::this_thread::sleep_for(20ms);
    q->push(9);
  });
  EXPECT_EQ(q->pop_until(in(10000ms)), std::optional<std::size_t>(9));
  pusher.join();
}

// Which waits could never end (future_state::finishes_here): a task of
// the pool whose pass this thread runs; a state made from others, when
// those it needs are so (any of when_all's inputs, all of when_any's);
// none outside the pass, and none once finished.
TEST(FutureState, AWaitCouldNeverEndOnlyForWhatThePassItIsInIsToFinish) {
  using ferry::detail::loop_scope;
  using ferry::detail::stop_inbox;
  struct core {};
  const auto here = std::make_shared<stop_inbox>([] {});
  const auto elsewhere = std::make_shared<stop_inbox>([] {});
  const auto task_here = ferry::detail::make_future_state();
  task_here->set_stop_target(here, 1);
  const auto task_elsewhere = ferry::detail::make_future_state();
  task_elsewhere->set_stop_target(elsewhere, 2);
  const auto derived = [](std::vector<std::shared_ptr<future_state>> from, future_state::needs need) {
    auto s = ferry::detail::make_future_state();
    for (const auto& f : from) s->derive_from(f, need);
    return s;
  };
  const auto then_here_first = derived({task_here}, future_state::needs::all);  // held weakly: kept here
  const auto then_here = derived({then_here_first}, future_state::needs::all);
  const auto all_of_both = derived({task_here, task_elsewhere}, future_state::needs::all);
  const auto any_of_both = derived({task_here, task_elsewhere}, future_state::needs::any);
  const auto any_here = derived({task_here}, future_state::needs::any);
  const auto local = ferry::detail::make_future_state();

  EXPECT_FALSE(task_here->finishes_here()) << "outside the pass";
  EXPECT_FALSE(then_here->finishes_here()) << "outside the pass";
  {
    const core c;
    loop_scope<core> pass(&c, here.get());
    EXPECT_TRUE(task_here->finishes_here());
    EXPECT_FALSE(task_elsewhere->finishes_here());
    EXPECT_TRUE(then_here->finishes_here());
    EXPECT_TRUE(all_of_both->finishes_here());
    EXPECT_FALSE(any_of_both->finishes_here());
    EXPECT_TRUE(any_here->finishes_here());
    EXPECT_FALSE(local->finishes_here()) << "a state made from nothing may be finished by anyone";
    EXPECT_THROW(task_here->wait_until(in(1000ms)), ferry::error);
    EXPECT_THROW(then_here->wait(), ferry::error);
    EXPECT_FALSE(task_here->wait_until(in(0ms))) << "a wait whose deadline has passed only asks";
    task_here->fail(std::make_exception_ptr(std::runtime_error("done")));
    EXPECT_FALSE(task_here->finishes_here()) << "finished";
    EXPECT_FALSE(all_of_both->finishes_here());
    EXPECT_TRUE(task_here->wait_until(in(1000ms)));
  }
}

}  // namespace
