// Copyright ferry authors.
//
// The bodies of src/mpi/mpi_messages.h that carry what rank 0 and the
// hosts tell each other of tasks and workers: each round trip, and bytes
// cut short refused with ferry::format_error instead of read past their end.
#include "mpi/mpi_messages.h"

#include <gtest/gtest.h>

#include <boost/pfr/core.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <system_error>

#include <executor/errors.h>
#include "mpi/agent_config_fields.h"
#include "../error_message.h"
#include <serialize/error.h>

namespace ferry::detail::mpi {
namespace {

using namespace std::chrono_literals;

// For each type of a field sent to the agents, a value no default has: a
// sent field of a new type fails to compile here until it has one.
template <class T>
T unlike_default();
template <>
std::size_t unlike_default<std::size_t>() { return 12345; }
template <>
start_method unlike_default<start_method>() { return start_method::plugin; }
template <>
std::chrono::milliseconds unlike_default<std::chrono::milliseconds>() { return 4321ms; }
template <>
std::optional<std::chrono::milliseconds> unlike_default<std::optional<std::chrono::milliseconds>>() { return 777ms; }
template <>
std::optional<std::size_t> unlike_default<std::optional<std::size_t>>() { return 0; }
template <>
std::chrono::microseconds unlike_default<std::chrono::microseconds>() { return 55us; }
template <>
std::map<std::string, std::string> unlike_default<std::map<std::string, std::string>>() {
  return {{"OMP_NUM_THREADS", "1"}, {"EMPTY", ""}};
}
template <>
std::vector<std::string> unlike_default<std::vector<std::string>>() { return {"OMPI_*", "HOME"}; }
template <>
output_mode unlike_default<output_mode>() { return output_mode::prefix; }
template <>
std::filesystem::path unlike_default<std::filesystem::path>() { return "/opt/ferry/libexec/ferry-worker"; }

// Where each field of pool_options lies in it, by PFR's reflection and by
// the lists of agent_config_fields.h.
std::size_t offset_in(const pool_options& o, const void* field) {
  return static_cast<std::size_t>(static_cast<const char*>(field) - reinterpret_cast<const char*>(&o));
}

TEST(MpiMessages, EveryPoolOptionsFieldIsSentOrKeptOnRankZeroExactlyOnce) {
  const pool_options o;
  std::set<std::size_t> fields;
  boost::pfr::for_each_field(o, [&](const auto& f) { fields.insert(offset_in(o, &f)); });
  std::multiset<std::size_t> listed;
  const auto add = [&](auto... field) { (listed.insert(offset_in(o, &(o.*field))), ...); };
  std::apply(add, sent_fields);
  std::apply(add, kept_fields);
  EXPECT_EQ(std::set<std::size_t>(listed.begin(), listed.end()), fields);
  EXPECT_EQ(listed.size(), fields.size()) << "a field is listed twice";
}

TEST(MpiMessages, EverySentFieldOfTheConfigRoundTripsWithTheRest) {
  agent_config c;
  std::apply([&](auto... field) { ((c.local.*field = unlike_default<std::decay_t<decltype(c.local.*field)>>()), ...); },
             sent_fields);
  c.initializer = "an initializer's record";
  c.policy.allowed_modules = {"/opt/lib"};
  c.policy.module_search_paths = {"/opt/lib/modules"};
  c.relay_worker_events = true;
  c.ship_modules = true;
  c.heartbeat = 250ms;
  const agent_config d = decode_config(encode_config(c));
  std::size_t index = 0;
  const auto same = [&](auto field) {
    EXPECT_TRUE(d.local.*field == c.local.*field) << "sent field " << index << " of sent_fields";
    ++index;
  };
  std::apply([&](auto... field) { (same(field), ...); }, sent_fields);
  EXPECT_EQ(d.initializer, c.initializer);
  EXPECT_EQ(d.policy.allowed_modules, c.policy.allowed_modules);
  EXPECT_EQ(d.policy.module_search_paths, c.policy.module_search_paths);
  EXPECT_TRUE(d.relay_worker_events);
  EXPECT_TRUE(d.ship_modules);
  EXPECT_EQ(d.heartbeat, 250ms);
  // An unset timeout stays unset.
  c.local.task_timeout.reset();
  EXPECT_FALSE(decode_config(encode_config(c)).local.task_timeout.has_value());
}

TEST(MpiMessages, AStopRequestsGraceRoundTripsAndABodyOfAnotherSizeIsRefused) {
  EXPECT_EQ(decode_stop_task(encode_stop_task(1500ms)), 1500ms);
  EXPECT_EQ(decode_stop_task(encode_stop_task(0ms)), 0ms);
  const std::string bytes = encode_stop_task(7ms);
  EXPECT_THROW(decode_stop_task(std::string_view(bytes).substr(0, 7)), format_error);
  EXPECT_THROW(decode_stop_task(bytes + "x"), format_error);
}

TEST(MpiMessages, AConfigCutShortWithBytesLeftOrAnUnknownEnumeratorIsRefused) {
  agent_config c;
  c.local.worker_output = output_mode::prefix;
  const std::string bytes = encode_config(c);
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(decode_config(std::string_view(bytes).substr(0, n)), format_error) << n << " bytes";
  EXPECT_THROW(decode_config(bytes + "x"), format_error);
  // start is the second field, after max_workers' 8 bytes.
  std::string unknown = bytes;
  unknown[8] = 9;
  EXPECT_THROW(decode_config(unknown), format_error);
  // A heartbeat of 0 ms (the last 8 bytes) would have the agent send
  // nothing else.
  c.heartbeat = 0ms;
  EXPECT_THROW(decode_config(encode_config(c)), format_error);
}

TEST(MpiMessages, AnAgentsHeartbeatIsASecondOrAQuarterOfAShorterAgentTimeout) {
  EXPECT_EQ(heartbeat_for(30s), 1000ms);
  EXPECT_EQ(heartbeat_for(4s), 1000ms);
  EXPECT_EQ(heartbeat_for(2s), 500ms);
  EXPECT_EQ(heartbeat_for(1s), 250ms);
}

TEST(MpiMessages, ATasksTimeoutNameAndPriorityTravelBeforeItsBody) {
  const std::string bytes =
      settings_prefix({.timeout = 300ms, .name = "shard 7", .priority = -40000}) + "the task's body";
  const settled_body s = split_settings(bytes);
  ASSERT_TRUE(s.settings.timeout.has_value());
  EXPECT_EQ(*s.settings.timeout, 300ms);
  EXPECT_EQ(s.settings.name, "shard 7");
  EXPECT_EQ(s.settings.priority, -40000);
  EXPECT_EQ(s.body, "the task's body");
}

TEST(MpiMessages, AnActorsRouteTravelsWithItsSettingsAndAnUnknownPartIsRefused) {
  using ferry::detail::actor_route;
  const std::string bytes =
      settings_prefix({.actor = {0xfeedface12345678, actor_route::part::make, 3}}) + "make";
  const settled_body s = split_settings(bytes);
  EXPECT_EQ(s.settings.actor.id, 0xfeedface12345678u);
  EXPECT_EQ(s.settings.actor.what, actor_route::part::make);
  EXPECT_EQ(s.settings.actor.max_restarts, 3u);
  EXPECT_EQ(s.body, "make");
  const settled_body plain = split_settings(settings_prefix({.name = "n"}));
  EXPECT_EQ(plain.settings.actor.what, actor_route::part::none);
  EXPECT_EQ(plain.settings.actor.id, 0u);
  // The part's byte follows the bool, the i64 and the i32: 13 bytes in.
  std::string unknown = bytes;
  unknown[13] = 4;
  EXPECT_THROW(split_settings(unknown), ferry::format_error);
}

TEST(MpiMessages, ANameWithoutATimeoutAndATimeoutOfZeroStayAsTheyWere) {
  const settled_body named = split_settings(settings_prefix({.timeout = std::nullopt, .name = "greeter"}) + "b");
  EXPECT_FALSE(named.settings.timeout.has_value());
  EXPECT_EQ(named.settings.name, "greeter");
  EXPECT_EQ(named.body, "b");
  const settled_body zero = split_settings(settings_prefix({.timeout = 0ms, .name = ""}));
  ASSERT_TRUE(zero.settings.timeout.has_value());
  EXPECT_EQ(*zero.settings.timeout, 0ms);
  EXPECT_TRUE(zero.settings.name.empty());
  EXPECT_EQ(zero.settings.priority, 0);
  EXPECT_TRUE(zero.body.empty());
}

TEST(MpiMessages, SettingsCutShortOrANameLongerThanTheBytesAreRefused) {
  const std::string bytes = settings_prefix({.timeout = 5ms, .name = "a name"});
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(split_settings(std::string_view(bytes).substr(0, n)), format_error) << n << " bytes";
  std::string huge = settings_prefix({.timeout = std::nullopt, .name = "x"});
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

// A failure crosses as protocol.h's exception record: each error keeps
// its type and fields, its message gaining where it happened.
template <class E>
E failure_round_trip(const std::exception_ptr& error) {
  const E e = ferry_test::caught_as<E>(decode_failure(encode_failure(error), "on host h, MPI rank 1"));
  EXPECT_NE(std::string(e.what()).find("(on host h, MPI rank 1)"), std::string::npos) << e.what();
  return e;
}

TEST(MpiMessages, AFailureKeepsItsTypeAndFieldsAndNamesWhereItHappened) {
  crash_report crash;
  crash.signal = 11;
  crash.fault_address = 0x10;
  crash.frames = {{0x401000, "/lib/libtasks.so", 0x1000, "crash+0x10"}, {0x402000, "", 0x2000, ""}};
  const auto died = failure_round_trip<worker_died_error>(
      std::make_exception_ptr(worker_died_error(42, "was killed by signal 11 (SIGSEGV)", crash)));
  EXPECT_EQ(died.pid(), 42);
  ASSERT_TRUE(died.crash().has_value());
  EXPECT_EQ(died.crash()->signal, 11);
  EXPECT_EQ(died.crash()->fault_address, 0x10u);
  ASSERT_EQ(died.crash()->frames.size(), 2u);
  EXPECT_EQ(died.crash()->frames[0].function, "crash+0x10");
  EXPECT_EQ(died.crash()->frames[1].offset, 0x2000u);
  EXPECT_FALSE(failure_round_trip<worker_died_error>(std::make_exception_ptr(worker_died_error(7, "exited with 3")))
                   .crash()
                   .has_value());
  failure_round_trip<task_timeout_error>(std::make_exception_ptr(task_timeout_error("past its timeout of 300 ms")));
  const auto stopped = failure_round_trip<cancelled_error>(
      std::make_exception_ptr(cancelled_error("cancelled while it was running: ... killed")));
  EXPECT_NE(std::string(stopped.what()).find("cancelled while it was running"), std::string::npos);
  failure_round_trip<worker_start_error>(std::make_exception_ptr(worker_start_error("no database")));
  failure_round_trip<pool_shutdown_error>(std::make_exception_ptr(pool_shutdown_error("shut down")));
  failure_round_trip<not_shippable_error>(std::make_exception_ptr(not_shippable_error("main program")));
  const auto s = failure_round_trip<serialization_error>(std::make_exception_ptr(
      serialization_error(serialization_error::phase::loading_task, "ferry::format_error", "bad bytes")));
  EXPECT_EQ(s.where(), serialization_error::phase::loading_task);
  EXPECT_EQ(s.type_name(), "ferry::format_error");
  const auto t = failure_round_trip<task_error>(std::make_exception_ptr(task_error("my::error", "boom")));
  EXPECT_EQ(t.type_name(), "my::error");
  failure_round_trip<std::runtime_error>(std::make_exception_ptr(std::runtime_error("plain")));
  const auto other = failure_round_trip<ferry::error>(std::make_exception_ptr(wait_timeout_error("late")));
  EXPECT_NE(std::string(other.what()).find("late"), std::string::npos);
}

// The seeds of tests/fuzz/corpus/mpi_messages that hold such a failure
// are these bytes, after the decoder's byte.
TEST(MpiMessages, AFilesystemErrorFailureKeepsItsCodeAndPathsAndItsBytesAreTheFuzzSeeds) {
  const std::filesystem::filesystem_error copying("copying", "/a", "/b",
                                                  std::make_error_code(std::errc::no_such_file_or_directory));
  const std::string bytes = encode_failure(std::make_exception_ptr(copying));
  const auto e = ferry_test::caught_as<std::filesystem::filesystem_error>(decode_failure(bytes, "h"));
  EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
  EXPECT_EQ(e.path1(), "/a");
  EXPECT_EQ(e.path2(), "/b");
  EXPECT_STREQ(e.what(), std::filesystem::filesystem_error("copying (h)", "/a", "/b", e.code()).what());
  std::ifstream seed(std::string(FERRY_FUZZ_CORPUS) + "/mpi_messages/failure_filesystem_error",
                     std::ios::binary);
  const std::string seeded((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  EXPECT_EQ(seeded, "\x02" + bytes);
  std::ifstream other(std::string(FERRY_FUZZ_CORPUS) + "/mpi_messages/failure_system_error",
                      std::ios::binary);
  const std::string system_seed((std::istreambuf_iterator<char>(other)), std::istreambuf_iterator<char>());
  EXPECT_EQ(system_seed,
            "\x02" + encode_failure(std::make_exception_ptr(
                          std::system_error(EACCES, std::system_category(), "opening"))));
}

TEST(MpiMessages, AFailureCutShortOrWithBytesLeftIsRefused) {
  const std::string bytes = encode_failure(std::make_exception_ptr(worker_died_error(1, "gone", crash_report{6, 0, {}})));
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(decode_failure(std::string_view(bytes).substr(0, n), "h"), ferry::error) << n << " bytes";
  EXPECT_THROW(decode_failure(bytes + "x", "h"), format_error);
}

}  // namespace
}  // namespace ferry::detail::mpi
