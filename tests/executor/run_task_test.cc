// Copyright ferry authors.
//
// The worker's handling of task messages (run_task), on the internal code
// itself. Regressions found by tests/fuzz/fuzz_worker live here too.
#include "executor/worker/run_task.h"

#include <gtest/gtest.h>

#include <string>

#include <executor/executor.h>

#include "executor/wire/protocol.h"

namespace protocol = ferry::detail::protocol;

namespace {

std::string body_of(const ferry::function<int(int)>& fn, std::uint32_t count, const std::string& args) {
  std::string body;
  ferry::output_archive ar(body);
  ar(fn, count);
  return body + args;
}

std::string ints(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

int value_of(std::string_view item) {
  const protocol::decoded_item d = protocol::decode_item(item);
  EXPECT_FALSE(d.failed) << d.failure.what;
  int v = 0;
  ferry::input_archive ar(d.value);
  ar(v);
  return v;
}

}  // namespace

TEST(RunTask, RunsEachItemInOrder) {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  const std::string result = ferry::detail::run_task(body_of(twice, 3, ints({1, 2, 3})));
  const protocol::decoded_result r = protocol::decode_result(result, 3);
  ASSERT_FALSE(r.whole_failed) << r.failure.what;
  EXPECT_EQ(value_of(r.items[0]), 2);
  EXPECT_EQ(value_of(r.items[1]), 4);
  EXPECT_EQ(value_of(r.items[2]), 6);
}

TEST(RunTask, AThrowingItemFailsOnlyItself) {
  ferry::function<int(int)> picky = [](int x) {
    if (x == 2) throw std::out_of_range("two");
    return x;
  };
  const std::string result = ferry::detail::run_task(body_of(picky, 3, ints({1, 2, 3})));
  const protocol::decoded_result r = protocol::decode_result(result, 3);
  ASSERT_FALSE(r.whole_failed);
  EXPECT_EQ(value_of(r.items[0]), 1);
  const protocol::decoded_item failed = protocol::decode_item(r.items[1]);
  ASSERT_TRUE(failed.failed);
  EXPECT_EQ(failed.failure.kind, protocol::exception_kind::out_of_range);
  EXPECT_EQ(failed.failure.what, "two");
  EXPECT_EQ(value_of(r.items[2]), 3);
}

TEST(RunTask, ArgumentsThatCannotBeReadFailEveryItemFromThere) {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  // Two whole ints, then one byte of the third.
  const std::string result = ferry::detail::run_task(body_of(twice, 3, ints({1, 2}) + "\x01"));
  const protocol::decoded_result r = protocol::decode_result(result, 3);
  ASSERT_FALSE(r.whole_failed);
  EXPECT_EQ(value_of(r.items[0]), 2);
  EXPECT_EQ(value_of(r.items[1]), 4);
  const protocol::decoded_item third = protocol::decode_item(r.items[2]);
  ASSERT_TRUE(third.failed);
  EXPECT_EQ(third.failure.kind, protocol::exception_kind::serialization);
  EXPECT_EQ(third.failure.phase, ferry::serialization_error::phase::loading_task);
}

TEST(RunTask, UnreadableFunctionFailsTheWholeTask) {
  const std::string result = ferry::detail::run_task("\x07 not a function");
  const protocol::decoded_result r = protocol::decode_result(result, 1);
  ASSERT_TRUE(r.whole_failed);
  EXPECT_EQ(r.failure.phase, ferry::serialization_error::phase::loading_task);
  EXPECT_NE(r.failure.what.find("unknown function tag 7"), std::string::npos) << r.failure.what;
}

// Found by fuzz_worker: a huge item count whose arguments cannot be read
// made the worker replicate the failure record once per announced item,
// allocating gigabytes. The count is now checked against the bytes present.
TEST(RunTask, ItemCountBeyondTheArgumentsIsRefused) {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  const std::string result = ferry::detail::run_task(body_of(twice, 0xC0000000u, "\x01"));
  const protocol::decoded_result r = protocol::decode_result(result, 0xC0000000u);
  ASSERT_TRUE(r.whole_failed);
  EXPECT_NE(r.failure.what.find("announces 3221225472 items"), std::string::npos) << r.failure.what;
  EXPECT_LT(result.size(), 4096u);
}
