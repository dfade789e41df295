// Copyright ferry authors.
//
// src/executor/maps/result_items.cc: how the typed templates of future.h
// read a finished task's state, an untyped body in protocol.h's layout.
// Bodies are written here with protocol's result_writer, as a worker's
// task server writes them, so each case is exactly one shape of result.
#include <executor/internal/result_items.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include <executor/errors.h>
#include "executor/wire/message_io.h"
#include "executor/wire/protocol.h"

namespace {

using ferry::detail::future_state;
using ferry::detail::protocol::exception_kind;
using ferry::detail::protocol::exception_record;
using ferry::detail::protocol::result_writer;

// One item per entry: a value (an int32) when the entry is >= 0, else a
// std::runtime_error the task threw.
std::string result_of(std::initializer_list<int> entries) {
  result_writer w(static_cast<std::uint32_t>(entries.size()));
  for (const int v : entries) {
    ferry::output_archive& ar = w.begin_value();
    if (v >= 0)
      ar(std::int32_t{v});
    else
      w.fail({.kind = exception_kind::runtime_error, .type_name = "std::runtime_error", .what = "bad input"});
    w.end_item();
  }
  return w.finish();
}

std::shared_ptr<future_state> finished_with(std::string body) {
  auto state = ferry::detail::make_future_state();
  state->finish(ferry::detail::make_message_body(std::move(body)));
  return state;
}

TEST(ResultItems, EachItemsValueIsReadBack) {
  const auto state = finished_with(result_of({4, 0, 17}));
  const auto items = ferry::detail::result_items(*state, 3);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(ferry::detail::read_item<std::int32_t>(items[0]), 4);
  EXPECT_EQ(ferry::detail::read_item<std::int32_t>(items[1]), 0);
  EXPECT_EQ(ferry::detail::read_item<std::int32_t>(items[2]), 17);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 3), 0u);
}

TEST(ResultItems, AnItemThatThrewRethrowsItsExceptionAndOnlyIt) {
  const auto state = finished_with(result_of({1, -1, 3}));
  const auto items = ferry::detail::result_items(*state, 3);
  EXPECT_EQ(ferry::detail::read_item<std::int32_t>(items[0]), 1);
  EXPECT_THROW(
      {
        try {
          ferry::detail::read_item<std::int32_t>(items[1]);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "bad input");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(ferry::detail::read_item<std::int32_t>(items[2]), 3);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 3), 1u);
}

TEST(ResultItems, HasExceptionLooksAtTheOneItemOfATask) {
  EXPECT_TRUE(ferry::detail::has_exception(*finished_with(result_of({-1}))));
  EXPECT_FALSE(ferry::detail::has_exception(*finished_with(result_of({9}))));
}

TEST(ResultItems, AWholeFailureIsThrownForEveryItem) {
  const auto state = finished_with(ferry::detail::protocol::encode_whole_failure(
      {.kind = exception_kind::task_timeout, .type_name = "ferry::task_timeout_error", .what = "ran 2 s, longer than its 1 s"}));
  EXPECT_THROW(ferry::detail::result_items(*state, 2), ferry::task_timeout_error);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 2), 2u);
  EXPECT_TRUE(ferry::detail::has_exception(*state));
}

TEST(ResultItems, AStatesErrorIsRethrownAndCountsForEveryItem) {
  auto state = ferry::detail::make_future_state();
  state->fail(std::make_exception_ptr(ferry::worker_died_error(42, "was killed by signal 9 (SIGKILL)")));
  EXPECT_THROW(ferry::detail::result_items(*state, 1), ferry::worker_died_error);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 5), 5u);
  EXPECT_TRUE(ferry::detail::has_exception(*state));
}

TEST(ResultItems, AResultOfAnotherItemCountIsAnErrorNotAWrongRead) {
  const auto state = finished_with(result_of({1, 2}));
  EXPECT_THROW(ferry::detail::result_items(*state, 3), ferry::error);
  // Then each of the three reads as failed, rather than two of them as values.
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 3), 3u);
}

TEST(ResultItems, ATruncatedResultIsAnErrorForEveryItem) {
  std::string body = result_of({1, 2});
  body.resize(body.size() - 3);
  const auto state = finished_with(body);
  EXPECT_THROW(ferry::detail::result_items(*state, 2), ferry::error);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 2), 2u);
}

TEST(ResultItems, AStateStillRunningHasNoExceptionYet) {
  auto state = ferry::detail::make_future_state();
  EXPECT_FALSE(ferry::detail::has_exception(*state));
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 4), 0u);
}

TEST(ResultItems, ALocalValueIsReadWithoutABody) {
  auto state = ferry::detail::make_future_state();
  state->finish_local(std::make_shared<const int>(23));
  EXPECT_EQ(*static_cast<const int*>(ferry::detail::local_result(*state)), 23);
  EXPECT_EQ(ferry::detail::items_that_threw(*state, 1), 0u);
}

TEST(ResultItems, AValueThatCannotBeLoadedIsASerializationErrorOfTheResult) {
  // An item of two bytes read as an int32.
  result_writer w(1);
  w.begin_value()(std::uint16_t{7});
  w.end_item();
  const auto state = finished_with(w.finish());
  const auto items = ferry::detail::result_items(*state, 1);
  try {
    ferry::detail::read_item<std::int32_t>(items[0]);
    ADD_FAILURE() << "a short value was read";
  } catch (const ferry::serialization_error& e) {
    EXPECT_EQ(e.where(), ferry::serialization_error::phase::loading_result);
  }
}

}  // namespace
