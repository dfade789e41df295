// Copyright ferry authors.
//
// Failures reach the one future they belong to: exceptions keep their types,
// a crash, a kill or an exit fails only its task, and tasks that never ran
// are run elsewhere.
// Run once per start method (FERRY_TEST_START), and again at -O0.
#include <dirent.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <executor/executor.h>

#include "test_harness.h"
#include "test_tasks.h"

using namespace std::chrono_literals;

using ferry_test::method;
using ferry_test::expect_error;
using ferry_test::options;
using Failures = ferry_test::ExecutorTest;

TEST_F(Failures, StdExceptionsKeepTheirType) {
  ferry::process_pool pool(options());
  auto run = [&](const char* kind) { return pool.submit(test_tasks::throw_std(), std::string(kind)); };
  EXPECT_THROW(run("runtime_error").get(), std::runtime_error);
  EXPECT_THROW(run("invalid_argument").get(), std::invalid_argument);
  EXPECT_THROW(run("out_of_range").get(), std::out_of_range);
  EXPECT_THROW(run("overflow_error").get(), std::overflow_error);
  EXPECT_THROW(run("bad_alloc").get(), std::bad_alloc);
  try {
    run("logic_error").get();
    FAIL();
  } catch (const std::logic_error& e) {
    EXPECT_EQ(typeid(e), typeid(std::logic_error));
    EXPECT_STREQ(e.what(), "lg");
  }
}

TEST_F(Failures, SystemAndFilesystemErrorsArriveWithTheirCodesAndPaths) {
  ferry::process_pool pool(options());
  EXPECT_EQ(test_tasks::standard_error_differences(pool),
            (std::vector<std::string>{"", "", "", "", "", "", "", "", "8 compared"}));
}

TEST_F(Failures, ARegisteredExceptionTypeArrivesAsItselfAndOnlyThatExactType) {
  ferry::process_pool pool(options());
  EXPECT_EQ(test_tasks::registered_exception_outcomes(pool),
            (std::vector<std::string>{"ferry::task_error test_tasks::parse_error: line 3", "test_tasks::parse_error: line 4",
                                      "ferry::task_error test_tasks::(anonymous namespace)::late_parse_error: line 5"}));
}

TEST_F(Failures, OtherExceptionsAreTaskErrors) {
  ferry::process_pool pool(options());
  auto custom = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_custom()).get(); });
  EXPECT_EQ(custom.type_name(), "test_tasks::(anonymous namespace)::custom_error");
  EXPECT_EQ(custom.message(), "custom failure");
  auto thrown_int = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_int()).get(); });
  EXPECT_EQ(thrown_int.type_name(), "int");
}

TEST_F(Failures, NestedExceptionsKeepTheInnerMessage) {
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::task_error>([&] { pool.submit(test_tasks::throw_nested()).get(); });
  EXPECT_EQ(e.type_name(), "std::runtime_error");
  EXPECT_EQ(e.message(), "outer: inner cause");
}

TEST_F(Failures, CrashesFailOnlyTheirTask) {
  ferry::process_pool pool(options());
  const std::pair<const char*, const char*> crashes[] = {
      {"abort", "signal 6 (SIGABRT)"}, {"segv", "signal 11 (SIGSEGV)"}, {"exit3", "exited with code 3"}};
  for (const auto& [how, cause] : crashes) {
    auto slow = pool.submit(test_tasks::sleep_ms(), 200);
    auto e = expect_error<ferry::worker_died_error>(
        [&] { pool.submit(test_tasks::crash(), std::string(how)).get(); });
    EXPECT_NE(std::string(e.what()).find(cause), std::string::npos) << e.what();
    EXPECT_GT(slow.get(), 0);                              // the other task completed
    EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);  // and the pool serves
  }
}

// A worker that dies by a crash's signal writes a report first: the
// signal, the address, its stack, which the pool symbolizes with the
// modules' symbols (src/executor/pool/crash_report.h). SIGKILL gives none.
TEST_F(Failures, ACrashReportGivesTheSignalTheAddressAndTheTasksStack) {
  SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::crash_reports);
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::worker_died_error>(
      [&] { pool.submit(test_tasks::crash(), std::string("null")).get(); });
  ASSERT_TRUE(e.crash().has_value()) << e.what();
  const ferry::crash_report& crash = *e.crash();
  EXPECT_EQ(crash.signal, SIGSEGV);
  EXPECT_EQ(crash.fault_address, 0u);
  ASSERT_FALSE(crash.frames.empty());
  // The faulting frame comes first: the task's lambda (inlined, at -O2,
  // into ferry's call of it), in the tasks' library.
  EXPECT_NE(crash.frames[0].function.find("test_tasks::crash"), std::string::npos) << e.what();
  EXPECT_NE(crash.frames[0].module.find("libferry_test_tasks"), std::string::npos) << crash.frames[0].module;
  EXPECT_NE(std::string(e.what()).find("its stack:\n  #0 "), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("in libferry_test_tasks"), std::string::npos) << e.what();
  // Whoever called it is there too: ferry's call of the task.
  bool called_by_ferry = false;
  for (const auto& f : crash.frames) called_by_ferry = called_by_ferry || f.function.find("ferry::") != std::string::npos;
  EXPECT_TRUE(called_by_ferry) << e.what();

  auto aborted = expect_error<ferry::worker_died_error>(
      [&] { pool.submit(test_tasks::crash(), std::string("abort")).get(); });
  ASSERT_TRUE(aborted.crash().has_value()) << aborted.what();
  EXPECT_EQ(aborted.crash()->signal, SIGABRT);
  bool in_abort = false;
  for (const auto& f : aborted.crash()->frames) in_abort = in_abort || f.function.find("abort") != std::string::npos;
  EXPECT_TRUE(in_abort) << aborted.what();
}

TEST_F(Failures, AWorkerKilledWithSigkillHasNoCrashReport) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  auto victim = pool.submit(test_tasks::sleep_ms(), 10'000);
  std::this_thread::sleep_for(100ms);
  ::kill(pool.worker_pids().at(0), SIGKILL);
  auto e = expect_error<ferry::worker_died_error>([&] { victim.get(); });
  EXPECT_FALSE(e.crash().has_value());
  EXPECT_EQ(std::string(e.what()).find("its stack"), std::string::npos) << e.what();
}

TEST_F(Failures, WorkerKilledFromOutside) {
  ferry::process_pool pool(options(1));
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  auto victim = pool.submit(test_tasks::sleep_ms(), 10'000);
  std::this_thread::sleep_for(100ms);
  ::kill(pids[0], SIGKILL);
  auto e = expect_error<ferry::worker_died_error>([&] { victim.get(); });
  EXPECT_EQ(e.pid(), pids[0]);
  EXPECT_NE(std::string(e.what()).find("SIGKILL"), std::string::npos) << e.what();
  EXPECT_NE(pool.submit(test_tasks::pid()).get(), pids[0]);
}

TEST_F(Failures, OutOfMemoryWorkerDies) {
  SKIP_UNDER_SANITIZER(ferry_test::sanitizer_skip::memory_limits);
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::exhaust_memory()).get(); });
  EXPECT_NE(std::string(e.what()).find("SIGABRT"), std::string::npos) << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 2, 2).get(), 4);
}

TEST_F(Failures, ExitInATaskIsAWorkerDeath) {
  ferry::process_pool pool(options(1));
  for (auto [how, cause] : {std::pair{"exit0", "exited with code 0"}, std::pair{"_exit0", "exited with code 0"},
                            std::pair{"_exit42", "exited with code 42"}}) {
    auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::exit_with(), std::string(how)).get(); });
    EXPECT_EQ(e.cause(), cause) << how;
    EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
  }
}

// A task that closes every descriptor above 2 closes its worker's socket
// too: the pool said "exited with code 2", a status no task chose.
TEST_F(Failures, ATaskThatClosesItsWorkersSocketIsAWorkerDeathThatSaysSo) {
  ferry::process_pool pool(options(1));
  auto e = expect_error<ferry::worker_died_error>([&] { pool.submit(test_tasks::close_descriptors(), 1).get(); });
  EXPECT_NE(e.cause().find("its socket to the pool was closed in the worker"), std::string::npos) << e.what();
  EXPECT_NE(e.cause().find("must not close descriptors it did not open"), std::string::npos) << e.what();
  EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
}

// Whether the kernel keeps a reaped child's wait status for its pidfd
// (PIDFD_INFO_EXIT, Linux 6.15).
bool kernel_keeps_reaped_status() {
  utsname u{};
  int major = 0, minor = 0;
  return ::uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 15));
}

void reap_every_child(int) {
  const int saved = errno;
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  errno = saved;
}

// A program that ignores SIGCHLD, or reaps every child in its handler,
// takes its workers' statuses before the pool can: the pool said "exited
// with code 0" of a worker that exited with 42, and a task's own child
// could not be waited for in a worker that inherited SIG_IGN. The pool now
// reads the status the kernel keeps for the worker's pidfd (or, where it
// keeps none, says the status is unknown and why), and each worker starts
// with SIGCHLD's default action.
TEST_F(Failures, AWorkerReapedByTheProgramsOwnSigchldHandlingIsStillReportedTruly) {
  for (void (*disposition)(int) : {SIG_IGN, &reap_every_child}) {
    struct sigaction chosen {}, before{};
    chosen.sa_handler = disposition;
    ASSERT_EQ(::sigaction(SIGCHLD, &chosen, &before), 0);
    {
      ferry::process_pool pool(options(1));
      auto e = expect_error<ferry::worker_died_error>(
          [&] { pool.submit(test_tasks::exit_with(), std::string("_exit42")).get(); });
      if (kernel_keeps_reaped_status())
        EXPECT_EQ(e.cause(), "exited with code 42");
      else
        EXPECT_NE(e.cause().find("exit status unknown: something else in this process reaped it"), std::string::npos)
            << e.cause();
      auto own_child = pool.submit(test_tasks::child_exit_status(), 7);
      EXPECT_EQ(ferry_test::get_within(own_child), 7);  // the worker's SIGCHLD is the default
      EXPECT_EQ(pool.submit(test_tasks::add(), 1, 1).get(), 2);
    }
    ::sigaction(SIGCHLD, &before, nullptr);
  }
}

// A task queued behind a running one in a worker that dies never started:
// it runs on the replacement, and only the running task fails.
// After short tasks a worker is sent many at once, in one write: a crash in
// the middle of such a batch fails only the task that crashed, and those
// queued behind it, which never ran, run elsewhere.
TEST_F(Failures, ACrashInTheMiddleOfABatchFailsOnlyTheTaskThatCrashed) {
  ferry::process_pool pool(options(2));
  for (int i = 0; i < 50; ++i) {  // short: deep pipelines
    auto warm = pool.submit(test_tasks::scale(3), i);
    EXPECT_EQ(ferry_test::get_within(warm), 3 * i);
  }
  std::vector<ferry::future<int>> results;
  constexpr int n = 600, crashing = 300;
  for (int i = 0; i < n; ++i)
    results.push_back(i == crashing ? pool.submit(test_tasks::crash(), std::string("abort"))
                                    : pool.submit(test_tasks::scale(3), i));
  for (int i = 0; i < n; ++i) {
    if (i == crashing)
      expect_error<ferry::worker_died_error>([&] { ferry_test::get_within(results[i]); });
    else
      EXPECT_EQ(ferry_test::get_within(results[i]), 3 * i) << "task " << i;
  }
}

TEST_F(Failures, TaskQueuedInADyingWorkerRunsElsewhere) {
  ferry::process_pool pool(options(1));
  // A ready worker first: the waits below time the tasks, not a worker's
  // start (hundreds of ms for a spawned test program under ASan).
  EXPECT_GT(pool.submit(test_tasks::pid()).get(), 0);
  auto running = pool.submit(test_tasks::sleep_ms(), 10'000);
  auto queued = pool.submit(test_tasks::pid());  // sent behind it
  std::this_thread::sleep_for(100ms);
  const std::vector<int> pids = pool.worker_pids();
  ASSERT_EQ(pids.size(), 1u);
  ::kill(pids[0], SIGKILL);
  expect_error<ferry::worker_died_error>([&] { running.get(); });
  const int ran_in = queued.get();
  EXPECT_GT(ran_in, 0);
  EXPECT_NE(ran_in, pids[0]);
}

