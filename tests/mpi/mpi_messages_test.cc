// Copyright ferry authors.
//
// The bodies of src/mpi/mpi_messages.h that carry what rank 0 and the
// hosts tell each other of tasks and workers: each round trip, and bytes
// cut short refused with ferry::format_error instead of read past their end.
#include "mpi/mpi_messages.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "serialize/error.h"

namespace ferry::detail::mpi {
namespace {

using namespace std::chrono_literals;

TEST(MpiMessages, ATasksTimeoutAndNameTravelBeforeItsBody) {
  const std::string bytes = with_settings({.timeout = 300ms, .name = "shard 7"}, "the task's body");
  const settled_body s = split_settings(bytes);
  ASSERT_TRUE(s.settings.timeout.has_value());
  EXPECT_EQ(*s.settings.timeout, 300ms);
  EXPECT_EQ(s.settings.name, "shard 7");
  EXPECT_EQ(s.body, "the task's body");
}

TEST(MpiMessages, ANameWithoutATimeoutAndATimeoutOfZeroStayAsTheyWere) {
  const settled_body named = split_settings(with_settings({.timeout = std::nullopt, .name = "greeter"}, "b"));
  EXPECT_FALSE(named.settings.timeout.has_value());
  EXPECT_EQ(named.settings.name, "greeter");
  EXPECT_EQ(named.body, "b");
  const settled_body zero = split_settings(with_settings({.timeout = 0ms, .name = ""}, ""));
  ASSERT_TRUE(zero.settings.timeout.has_value());
  EXPECT_EQ(*zero.settings.timeout, 0ms);
  EXPECT_TRUE(zero.settings.name.empty());
  EXPECT_TRUE(zero.body.empty());
}

TEST(MpiMessages, SettingsCutShortOrANameLongerThanTheBytesAreRefused) {
  const std::string bytes = with_settings({.timeout = 5ms, .name = "a name"}, "");
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(split_settings(std::string_view(bytes).substr(0, n)), format_error) << n << " bytes";
  std::string huge = with_settings({.timeout = std::nullopt, .name = "x"}, "");
  huge[huge.size() - 9] = '\xff';  // the name's length: now far beyond the message
  EXPECT_THROW(split_settings(huge), format_error);
}

TEST(MpiMessages, WorkerEventsTravelInOrderWithTheirKindPidAndWhy) {
  std::string batch;
  append_worker_event(batch, {.what = worker_event::kind::started, .pid = 11});
  append_worker_event(batch, {.what = worker_event::kind::recycled, .pid = 11, .why = "it ran max_tasks_per_worker tasks"});
  append_worker_event(batch, {.what = worker_event::kind::exited, .pid = 12, .why = "was killed by signal 9"});
  const std::vector<worker_news> got = decode_worker_events(batch);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].what, worker_event::kind::started);
  EXPECT_EQ(got[0].pid, 11);
  EXPECT_EQ(got[0].why, "");
  EXPECT_EQ(got[1].what, worker_event::kind::recycled);
  EXPECT_EQ(got[1].why, "it ran max_tasks_per_worker tasks");
  EXPECT_EQ(got[2].what, worker_event::kind::exited);
  EXPECT_EQ(got[2].pid, 12);
  EXPECT_EQ(got[2].why, "was killed by signal 9");
  EXPECT_TRUE(decode_worker_events("").empty());
}

TEST(MpiMessages, AWorkerEventCutShortOrOfAnUnknownKindIsRefused) {
  std::string batch;
  append_worker_event(batch, {.what = worker_event::kind::exited, .pid = 3, .why = "why"});
  for (std::size_t n = 1; n < batch.size(); ++n)
    EXPECT_THROW(decode_worker_events(std::string_view(batch).substr(0, n)), format_error) << n << " bytes";
  batch[0] = 9;
  EXPECT_THROW(decode_worker_events(batch), format_error);
}

}  // namespace
}  // namespace ferry::detail::mpi
