// Copyright ferry authors.
//
// What a process pool tells its observer (executor/events.h): each task's
// life in order, with its worker and duration; exceptions and deaths;
// retries; workers started, recycled and exited. Run once per start method.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>

#include <executor/executor.h>

#include "../temp_dir.h"
#include "test_tasks.h"
#include "event_recorder.h"
#include "test_harness.h"

using namespace std::chrono_literals;
using ferry_test::count;
using ferry_test::event_recorder;
using kind = ferry::task_event::kind;
using worker_kind = ferry::worker_event::kind;
using Events = ferry_test::ExecutorTest;

namespace {

ferry::pool_options observed(const std::shared_ptr<event_recorder>& seen, std::size_t workers = 2) {
  ferry::pool_options o = ferry_test::options(workers);
  o.observer = seen;
  return o;
}

}  // namespace

TEST_F(Events, ATasksLifeIsToldInOrderWithItsWorkerAndHowLongItRan) {
  auto seen = std::make_shared<event_recorder>();
  ferry::process_pool pool(observed(seen));
  ferry_test::expect_a_tasks_life_told_in_order(pool, *seen, false);
}

TEST_F(Events, AnExceptionIsAFinishedTaskAndADeathAFailedOne) {
  auto seen = std::make_shared<event_recorder>();
  ferry::process_pool pool(observed(seen, 1));
  ferry_test::expect_exceptions_finished_and_deaths_failed(pool, *seen);
  // The dead worker is told as exited, after it was told as started.
  ASSERT_TRUE(seen->wait_for([](const auto&, const auto& w) {
    for (const auto& e : w)
      if (e.what == worker_kind::exited) return true;
    return false;
  }));
  bool started = false;
  for (const auto& e : seen->workers()) {
    if (e.what == worker_kind::started) started = true;
    if (e.what == worker_kind::exited) {
      EXPECT_TRUE(started) << "exited before started";
      EXPECT_NE(e.why.find("signal 11"), std::string::npos) << e.why;
      break;
    }
  }
}

// Issue: every chunk of more than one input was told as threw (its result
// was read as one item, which failed), and drawn orange on the timeline.
TEST_F(Events, AMapsChunkIsToldAsThrowingOnlyWhenAnInputThrewAndHowMany) {
  auto seen = std::make_shared<event_recorder>();
  const ferry_test::trace_file trace("ferry_events_chunks");
  {
    ferry::pool_options o = observed(seen);
    o.trace = trace.path();
    ferry::process_pool pool(o);
    ferry_test::expect_chunks_told_as_throwing_only_when_an_input_threw(pool, *seen);
  }
  ferry_test::expect_chunk_spans_as_told(trace.read());
}

// Issue: a trace whose directory was not there was lost when the pool
// ended, after the whole run, with a line on stderr. The pool now makes
// the directory (the test above writes into one not yet made) or, where
// it cannot, refuses to start.
TEST_F(Events, APoolWhoseTraceCannotBeWrittenIsRefusedWhenItIsMade) {
  const ferry_test::trace_file trace("ferry_events_refused");
  std::filesystem::create_directories(std::filesystem::path(trace.path()).parent_path());
  const std::string taken = std::filesystem::path(trace.path()).replace_extension("").string();
  std::ofstream(taken) << "a file where a directory would be";
  ferry::pool_options o = ferry_test::options(1);
  o.trace = taken + "/run.json";
  try {
    ferry::process_pool pool(o);
    ADD_FAILURE() << "the pool was made";
  } catch (const ferry::error& e) {
    EXPECT_NE(std::string(e.what()).find("pool_options::trace: the timeline '" + taken + "/run.json'"),
              std::string::npos)
        << e.what();
  }
}

// Issue: a relative trace path was written when the pool ended, in the
// directory the program had moved to by then.
TEST_F(Events, ARelativeTraceGoesWhereTheProgramWasWhenItMadeThePool) {
  const std::filesystem::path before = std::filesystem::current_path();
  ferry_test::temp_dir made_in, moved_to;
  {
    std::filesystem::current_path(made_in.path());
    ferry::pool_options o = ferry_test::options(1);
    o.trace = "run/trace.json";
    ferry::process_pool pool(o);
    std::filesystem::current_path(moved_to.path());
    auto f = pool.submit(test_tasks::add(), 1, 2);
    EXPECT_EQ(ferry_test::get_within(f), 3);
  }
  std::filesystem::current_path(before);
  EXPECT_TRUE(std::filesystem::exists(made_in.path() / "run" / "trace.json"));
  EXPECT_FALSE(std::filesystem::exists(moved_to.path() / "run")) << "written where the program had moved";
}

// Issue: an observer or an on_output that threw unwound the pool's loop: it
// failed a task with the callback's exception, then ended the program in
// std::terminate. What they throw is now dropped and said once on stderr.
TEST_F(Events, AnObserverOrOnOutputThatThrowsIsDroppedAndThePoolGoesOn) {
  auto seen = std::make_shared<ferry_test::throwing_observer>();
  ferry::pool_options o = observed(nullptr, 1);
  o.observer = seen;
  int lines = 0;
  o.on_output = [&](const ferry::output_line&) {
    ++lines;
    throw std::runtime_error("sink full");
  };
  ::testing::internal::CaptureStderr();
  {
    ferry::process_pool pool(o);
    for (int i = 0; i < 3; ++i) {
      auto f = pool.submit(test_tasks::print(), std::string("hello"), 1);
      EXPECT_NO_THROW(ferry_test::get_within(f)) << "task " << i;
    }
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(lines, 3);
  EXPECT_GE(seen->calls.load(), 9) << "submitted, started and finished, three times";
  // Once per kind of callback in a process: an earlier test may have said it.
  const auto times = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = err.find(what); at != std::string::npos; at = err.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_LE(times("threw (std::runtime_error: sink full)"), 1u) << err;
  EXPECT_LE(times("threw (std::runtime_error: observer full)"), 1u) << err;
}

TEST_F(Events, ARetriedTaskIsToldWithItsNameAndWhyAndItsNextAttemptIsANewTask) {
  auto seen = std::make_shared<event_recorder>();
  ferry::process_pool pool(observed(seen, 1));
  const std::string counter = ::testing::TempDir() + "/ferry_events_runs_" + std::to_string(::getpid());
  std::remove(counter.c_str());
  auto f = pool.submit({.retries = 2, .name = "shard 3"}, test_tasks::fail_first(), counter, 1, 0);
  EXPECT_EQ(ferry_test::get_within(f), 2);
  std::remove(counter.c_str());
  ASSERT_TRUE(seen->wait_for([](const auto& t, const auto&) { return count(t, kind::finished) >= 1; }));
  const auto all = seen->tasks();
  EXPECT_EQ(count(all, kind::submitted), 2);
  EXPECT_EQ(count(all, kind::failed), 1);
  EXPECT_EQ(count(all, kind::retried), 1);
  for (const auto& e : all) {
    EXPECT_EQ(e.name, "shard 3");
    if (e.what == kind::retried) {
      EXPECT_NE(e.error.find("SIGKILL"), std::string::npos) << e.error;
    }
  }
  EXPECT_NE(all.front().task, all.back().task) << "the second attempt is a task of its own";
}

TEST_F(Events, AWorkerPastMaxTasksPerWorkerIsToldAsRecycledThenExited) {
  auto seen = std::make_shared<event_recorder>();
  ferry::pool_options o = observed(seen, 1);
  o.max_tasks_per_worker = 1;
  ferry::process_pool pool(o);
  const int first = pool.submit(test_tasks::pid()).get();
  const int second = pool.submit(test_tasks::pid()).get();
  EXPECT_NE(first, second);
  ASSERT_TRUE(seen->wait_for([&](const auto&, const auto& w) {
    int recycled = 0, exited = 0;
    for (const auto& e : w) {
      recycled += e.what == worker_kind::recycled && e.pid == first;
      exited += e.what == worker_kind::exited && e.pid == first;
    }
    return recycled == 1 && exited == 1;
  }));
  for (const auto& e : seen->workers())
    if (e.what == worker_kind::recycled) {
      EXPECT_NE(e.why.find("max_tasks_per_worker"), std::string::npos);
    }
}
