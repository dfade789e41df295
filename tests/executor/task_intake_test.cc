// Copyright ferry authors.
//
// The queue both pools share (src/executor/core/task_intake.h): its order
// by priority, first come first served within one, where a task given back
// goes, and submit after close.
#include "executor/core/task_intake.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <executor/internal/future_state.h>

#include "../error_message.h"

namespace ferry::detail {
namespace {

struct test_task {
  std::uint64_t id = 0;
  std::string label;
  int priority = 0;
  std::shared_ptr<future_state> state = make_future_state();
};

std::vector<std::string> labels(task_intake<test_task>& intake) {
  mutex_lock lock(intake.mu);
  std::vector<std::string> out;
  for (const test_task& t : intake.pending) out.push_back(t.label);
  return out;
}

void submit(task_intake<test_task>& intake, std::string label, int priority = 0) {
  intake.submit(nullptr, 1, {}, [&](std::uint64_t id) { return test_task{id, std::move(label), priority}; });
}

TEST(TaskIntake, TasksOfOnePriorityLeaveInTheOrderSubmitted) {
  task_intake<test_task> intake;
  for (const char* l : {"a", "b", "c"}) submit(intake, l);
  EXPECT_EQ(labels(intake), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TaskIntake, AHigherPriorityGoesAheadOfLowerOnesAndBehindItsEquals) {
  task_intake<test_task> intake;
  submit(intake, "low1", -3);
  submit(intake, "mid1");
  submit(intake, "high1", 7);
  submit(intake, "mid2");
  submit(intake, "high2", 7);
  submit(intake, "low2", -3);
  submit(intake, "top", 100);
  EXPECT_EQ(labels(intake),
            (std::vector<std::string>{"top", "high1", "high2", "mid1", "mid2", "low1", "low2"}));
}

TEST(TaskIntake, ATaskGivenBackGoesAheadOfItsPriorityAndBehindHigherOnes) {
  task_intake<test_task> intake;
  submit(intake, "high", 5);
  submit(intake, "mid");
  submit(intake, "low", -1);
  mutex_lock lock(intake.mu);
  intake.put_back(test_task{0, "sent", 0});
  intake.put_back(test_task{0, "sent first", 0});
  intake.put_back(test_task{0, "urgent sent", 9});
  std::vector<std::string> got;
  for (const test_task& t : intake.pending) got.push_back(t.label);
  EXPECT_EQ(got, (std::vector<std::string>{"urgent sent", "high", "sent first", "sent", "mid", "low"}));
}

TEST(TaskIntake, CancelPendingFailsThatTaskAloneAndIgnoresAnUnknownId) {
  task_intake<test_task> intake;
  submit(intake, "a");
  submit(intake, "b");
  std::shared_ptr<future_state> b;
  {
    mutex_lock lock(intake.mu);
    b = intake.pending.back().state;
  }
  intake.cancel_pending(2);
  intake.cancel_pending(99);
  EXPECT_EQ(labels(intake), (std::vector<std::string>{"a"}));
  ASSERT_TRUE(b->ready());
  EXPECT_THROW(std::rethrow_exception(b->error()), cancelled_error);
}

TEST(TaskIntake, SubmitAfterCloseThrowsPoolShutdownError) {
  task_intake<test_task> intake;
  submit(intake, "a");
  std::deque<test_task> cancelled;
  {
    mutex_lock lock(intake.mu);
    cancelled = intake.close({.cancel_pending = true});
  }
  EXPECT_EQ(cancelled.size(), 1u);
  // Maps and actors' calls come here too: the message names no one call.
  const std::string what =
      ferry_test::message_of<pool_shutdown_error>(ferry_test::thrown_by([&] { submit(intake, "b"); }));
  EXPECT_NE(what.find("the pool was shut down: it takes no more tasks"), std::string::npos) << what;
}

}  // namespace
}  // namespace ferry::detail
