// Copyright ferry authors.
//
// The worker's handling of task messages (run_task), on the internal code
// itself. Regressions found by tests/fuzz/fuzz_worker live here too.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <executor/executor.h>

#include "worker_main.h"

namespace {

std::string body_of(const ferry::function<int(int)>& fn, std::uint32_t count, const std::string& args) {
  std::string message(ferry::detail::message_header_room, '\0');
  {
    ferry::output_archive ar(message);
    ar(fn, count);
  }
  return message.substr(ferry::detail::message_header_room) + args;
}

// The whole-task failure record of a result, if it is one.
bool whole_task_failed(const std::string& result, std::string* text) {
  const std::string_view r = std::string_view(result).substr(ferry::detail::message_header_room);
  if (r.empty() || r[0] != 1) return false;
  *text = std::string(r);
  return true;
}

}  // namespace

TEST(WorkerTask, RunsEachItem) {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  std::string args;
  for (int v : {1, 2, 3}) args.append(reinterpret_cast<const char*>(&v), sizeof v);
  const std::string result = ferry::detail::run_task(body_of(twice, 3, args));
  std::string text;
  EXPECT_FALSE(whole_task_failed(result, &text));
}

// Found by fuzz_worker: a huge item count whose arguments cannot be read
// made the worker replicate the failure record once per announced item,
// allocating gigabytes. The count is now checked against the bytes present.
TEST(WorkerTask, ItemCountBeyondTheArgumentsIsRefused) {
  ferry::function<int(int)> twice = [](int x) { return 2 * x; };
  const std::string result = ferry::detail::run_task(body_of(twice, 0xC0000000u, "\x01"));
  std::string text;
  ASSERT_TRUE(whole_task_failed(result, &text));
  EXPECT_NE(text.find("announces 3221225472 items"), std::string::npos);
  EXPECT_LT(result.size(), 4096u);
}
