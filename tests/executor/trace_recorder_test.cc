// Copyright ferry authors.
//
// The timeline a pool records (src/executor/observe/trace_recorder.cc), on
// events made here: its spans, rows and lanes, what it escapes, what it
// forwards, and the two files it writes. tests/executor/timeline_test.py
// draws a real pool's page in Chromium.
#include "executor/observe/trace_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "../error_message.h"
#include "../temp_dir.h"

namespace {

using ferry::task_event;
using ferry::detail::trace_recorder;
using namespace std::chrono_literals;
using kind = task_event::kind;

const auto t0 = std::chrono::steady_clock::now();

task_event event(kind what, std::uint64_t task, std::chrono::milliseconds at, int worker = 1234,
                 std::string_view host = {}) {
  task_event e;
  e.what = what;
  e.task = task;
  e.worker = worker;
  e.host = host;
  e.at = t0 + at;
  return e;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The trace a recorder writes, read back.
std::string trace_of(const trace_recorder& r, const ferry_test::temp_dir& dir) {
  r.write();
  return read_file(dir.path() / "trace.json");
}

// A task that ran on worker 1234 from `start` to `end` and finished.
void ran(trace_recorder& r, std::uint64_t task, std::chrono::milliseconds start, std::chrono::milliseconds end,
         std::string_view name = {}) {
  r.on_task(event(kind::started, task, start));
  auto finished = event(kind::finished, task, end);
  finished.name = name;
  r.on_task(finished);
}

struct counting_observer : ferry::pool_observer {
  int tasks = 0, workers = 0;
  void on_task(const task_event&) override { ++tasks; }
  void on_worker(const ferry::worker_event&) override { ++workers; }
};

}  // namespace

TEST(TraceRecorder, AFinishedTaskIsASpanOnItsWorkersRowLastingFromStartToEnd) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  ran(r, 1, 10ms, 15ms, "load");
  const std::string trace = trace_of(r, dir);
  EXPECT_NE(trace.find("\"name\":\"load\",\"cat\":\"task\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"dur\":5000.000"), std::string::npos) << trace;
  EXPECT_NE(trace.find("\"status\":\"ok\""), std::string::npos) << trace;
  EXPECT_NE(trace.find("{\"name\":\"worker 1234\"}"), std::string::npos) << trace;
}

TEST(TraceRecorder, OverlappingTasksOfOneHostAreDrawnInLanesOfItsRow) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  r.on_task(event(kind::started, 1, 0ms, 0, "a"));
  r.on_task(event(kind::started, 2, 1ms, 0, "a"));
  r.on_task(event(kind::finished, 1, 5ms, 0, "a"));
  r.on_task(event(kind::finished, 2, 6ms, 0, "a"));
  r.on_task(event(kind::started, 3, 7ms, 0, "a"));  // after both: back in the first lane
  r.on_task(event(kind::finished, 3, 8ms, 0, "a"));
  const std::string trace = trace_of(r, dir);
  EXPECT_NE(trace.find("{\"name\":\"host a #1\"}"), std::string::npos) << trace;
  EXPECT_NE(trace.find("{\"name\":\"host a #2\"}"), std::string::npos) << trace;
  EXPECT_EQ(trace.find("host a #3"), std::string::npos) << trace;
}

TEST(TraceRecorder, ATaskThatFailedBeforeItStartedLeavesNoSpan) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  r.on_task(event(kind::failed, 1, 3ms));
  EXPECT_EQ(trace_of(r, dir).find("\"cat\":\"task\""), std::string::npos);
}

TEST(TraceRecorder, AFailedAndAThrowingTaskAreMarkedWithTheirError) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  r.on_task(event(kind::started, 1, 0ms));
  auto failed = event(kind::failed, 1, 2ms);
  failed.error = "the worker died";
  r.on_task(failed);
  r.on_task(event(kind::started, 2, 3ms));
  auto threw = event(kind::finished, 2, 4ms);
  threw.threw = true;
  threw.items_threw = 1;
  r.on_task(threw);
  const std::string trace = trace_of(r, dir);
  EXPECT_NE(trace.find("\"status\":\"failed\",\"error\":\"the worker died\"},\"cname\":\"terrible\""),
            std::string::npos) << trace;
  EXPECT_NE(trace.find("\"threw\":1,\"status\":\"threw\""), std::string::npos) << trace;
}

// A task's name and error end up inside a JSON string, itself inside the
// page's <script> element.
TEST(TraceRecorder, NamesAndErrorsAreEscapedForJsonAndForThePagesScript) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  ran(r, 1, 0ms, 1ms, "say \"hi\"\n</script>\x01\\");
  const std::string trace = trace_of(r, dir);
  EXPECT_NE(trace.find(R"("name":"say \"hi\"\n\u003c/script>\u0001\\")"), std::string::npos) << trace;
  EXPECT_EQ(read_file(dir.path() / "trace.html").find("</script>\x01"), std::string::npos);
}

TEST(TraceRecorder, EveryEventIsPassedOnToTheUsersObserver) {
  ferry_test::temp_dir dir;
  auto next = std::make_shared<counting_observer>();
  trace_recorder r(dir.path() / "trace.json", next);
  r.on_task(event(kind::submitted, 1, 0ms));
  r.on_task(event(kind::started, 1, 1ms));
  r.on_task(event(kind::finished, 1, 2ms));
  r.on_worker(ferry::worker_event{});
  EXPECT_EQ(next->tasks, 3);
  EXPECT_EQ(next->workers, 1);
}

TEST(TraceRecorder, ThePageBesideTheTraceCarriesIt) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "trace.json", nullptr);
  ran(r, 1, 0ms, 1ms);
  const std::string trace = trace_of(r, dir);
  const std::string page = read_file(dir.path() / "trace.html");
  EXPECT_NE(page.find(trace), std::string::npos);
  EXPECT_EQ(page.find("/*ferry:trace*/"), std::string::npos);
  EXPECT_EQ(trace_recorder::html_page(trace), page);
}

TEST(TraceRecorder, AFileThatCannotBeWrittenIsReportedAndNeverThrows) {
  ferry_test::temp_dir dir;
  trace_recorder r(dir.path() / "no such directory" / "trace.json", nullptr);
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(r.write());
  const std::string said = testing::internal::GetCapturedStderr();
  // One line for both files, with the reason (it was two lines, without).
  EXPECT_NE(said.find("could not write the pool's timeline to '"), std::string::npos) << said;
  EXPECT_NE(said.find("trace.json' and '"), std::string::npos) << said;
  EXPECT_NE(said.find("No such file or directory"), std::string::npos) << said;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
}

TEST(TraceRecorder, APoolRecordsOnlyWhereTheOptionOrFerryTraceNamesAFile) {
  ::unsetenv("FERRY_TRACE");
  auto user = std::make_shared<counting_observer>();
  ferry::pool_options options;
  options.observer = user;
  std::shared_ptr<trace_recorder> recorder;
  EXPECT_EQ(trace_recorder::for_pool(options, &recorder), user);
  EXPECT_EQ(recorder, nullptr);

  options.trace = "pool.json";
  EXPECT_NE(trace_recorder::for_pool(options, &recorder), user);
  EXPECT_NE(recorder, nullptr);

  recorder.reset();
  options.trace.clear();
  ::setenv("FERRY_TRACE", "from-env.json", 1);
  EXPECT_EQ(trace_recorder::for_pool(options, &recorder), recorder);
  EXPECT_NE(recorder, nullptr);
  ::unsetenv("FERRY_TRACE");
}

TEST(TraceRecorder, ADirectoryNotYetThereIsMadeWhenThePoolIsAndOneThatCannotBeIsRefusedThen) {
  ::unsetenv("FERRY_TRACE");
  ferry_test::temp_dir dir;
  ferry::pool_options options;
  options.trace = dir.path() / "runs" / "today" / "trace.json";
  std::shared_ptr<trace_recorder> recorder;
  trace_recorder::for_pool(options, &recorder);
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() / "runs" / "today"));
  ASSERT_NE(recorder, nullptr);
  recorder->write();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "runs" / "today" / "trace.html"));

  // A file where the directory would be: known at once, not at the end.
  std::ofstream(dir.path() / "taken") << "a file";
  options.trace = dir.path() / "taken" / "trace.json";
  const std::string what = ferry_test::message_of<ferry::error>(
      ferry_test::thrown_by([&] { trace_recorder::for_pool(options, &recorder); }));
  EXPECT_NE(what.find("pool_options::trace"), std::string::npos) << what;
  EXPECT_NE(what.find((dir.path() / "taken").string() + "' cannot be made or written: Not a directory"),
            std::string::npos)
      << what;
}

TEST(TraceRecorder, FerryTraceNamingADirectoryThatCannotBeMadeIsReportedAndRecordsNothing) {
  ferry_test::temp_dir dir;
  std::ofstream(dir.path() / "taken") << "a file";
  ::setenv("FERRY_TRACE", (dir.path() / "taken" / "trace.json").c_str(), 1);
  auto user = std::make_shared<counting_observer>();
  ferry::pool_options options;
  options.observer = user;
  std::shared_ptr<trace_recorder> recorder;
  testing::internal::CaptureStderr();
  EXPECT_EQ(trace_recorder::for_pool(options, &recorder), user);
  const std::string said = testing::internal::GetCapturedStderr();
  ::unsetenv("FERRY_TRACE");
  EXPECT_EQ(recorder, nullptr);
  EXPECT_NE(said.find("$FERRY_TRACE: the timeline '"), std::string::npos) << said;
  EXPECT_NE(said.find("this pool records no timeline"), std::string::npos) << said;
}
