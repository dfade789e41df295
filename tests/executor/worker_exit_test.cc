// Copyright ferry authors.
//
// Why a worker ended (src/executor/pool/worker_exit.h), one cause per test: what
// its running task fails with, and why a worker that was starting could not
// start and whether the next start would fail the same way.
#include "executor/pool/worker_exit.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <csignal>
#include <cstring>
#include <string>

#include <executor/errors.h>

#include "executor/wire/protocol.h"

#include "../error_message.h"

namespace {

using ferry::detail::exit_facts;
using ferry::detail::running_task_error;
using ferry::detail::why_not_started;
using ferry_test::message_of;

// Wait statuses as waitpid reports them.
int exited(int code) { return (code & 0xff) << 8; }
int killed_by(int sig) { return sig & 0x7f; }

exit_facts facts(int status) {
  exit_facts f;
  f.pid = 1234;
  f.status = status;
  return f;
}

ferry::pool_options limits() {
  ferry::pool_options o;
  o.task_timeout = std::chrono::milliseconds(250);
  o.max_worker_memory = 1 << 20;
  return o;
}

TEST(WorkerExit, TheWaitStatusesAreStatedAsUsersReadThem) {
  ASSERT_TRUE(WIFEXITED(exited(3)));
  ASSERT_TRUE(WIFSIGNALED(killed_by(SIGSEGV)));
  EXPECT_EQ(ferry::detail::describe_status(exited(3)), "exited with code 3");
  EXPECT_EQ(ferry::detail::describe_status(killed_by(SIGSEGV)), "was killed by signal 11 (SIGSEGV)");
}

// A worker whose socket was closed by code run in it (a task, the
// initializer) says so wherever its end is told: a task's failure, a start
// that failed.
TEST(WorkerExit, ASocketClosedInTheWorkerIsSaidSoForATaskAndForAStart) {
  const int closed = exited(ferry::detail::protocol::connection_closed_status);
  EXPECT_NE(ferry::detail::describe_status(closed).find("its socket to the pool was closed in the worker"),
            std::string::npos);
  EXPECT_NE(message_of<ferry::worker_died_error>(running_task_error(facts(closed), limits()))
                .find("must not close descriptors it did not open"),
            std::string::npos);
  exit_facts starting = facts(closed);
  starting.was_starting = true;
  const auto why = why_not_started(starting);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->why.find("its socket to the pool was closed in the worker"), std::string::npos) << why->why;
}

TEST(WorkerExit, AShutdownWithKillRunningFailsTheTaskAsStoppedByShutdown) {
  exit_facts f = facts(killed_by(SIGKILL));
  f.stopped_by_shutdown = true;
  f.timed_out = true;  // shutdown wins: the user asked for it
  EXPECT_NE(message_of<ferry::pool_shutdown_error>(running_task_error(f, limits())).find("kill_running"),
            std::string::npos);
}

TEST(WorkerExit, ATimedOutTaskFailsWithTaskTimeoutErrorQuotingTheLimit) {
  exit_facts f = facts(killed_by(SIGKILL));
  f.timed_out = true;
  EXPECT_NE(message_of<ferry::task_timeout_error>(running_task_error(f, limits())).find("250 ms"),
            std::string::npos);
}

TEST(WorkerExit, AWorkerThatRejectedAForgedMessageBlamesTheChannelNotTheTask) {
  const std::string m = message_of<ferry::worker_died_error>(
      running_task_error(facts(exited(ferry::detail::protocol::authentication_status)), limits()));
  EXPECT_NE(m.find("failed authentication"), std::string::npos) << m;
}

TEST(WorkerExit, ATaskOverTheMemoryLimitIsToldSoWithTheLimit) {
  const std::string m = message_of<ferry::worker_died_error>(
      running_task_error(facts(exited(ferry::detail::protocol::task_memory_status)), limits()));
  EXPECT_NE(m.find("max_worker_memory (1048576 bytes)"), std::string::npos) << m;
}

TEST(WorkerExit, TheReasonThePoolKilledAWorkerForOutranksItsStatus) {
  exit_facts f = facts(exited(ferry::detail::protocol::authentication_status));
  f.failure = "was killed by the pool after a protocol error: bad header";
  const std::string m = message_of<ferry::worker_died_error>(running_task_error(f, limits()));
  EXPECT_NE(m.find("protocol error"), std::string::npos) << m;
  EXPECT_EQ(m.find("authentication"), std::string::npos) << m;
}

TEST(WorkerExit, ACrashIsReportedByItsSignal) {
  const std::string m =
      message_of<ferry::worker_died_error>(running_task_error(facts(killed_by(SIGSEGV)), limits()));
  EXPECT_NE(m.find("SIGSEGV"), std::string::npos) << m;
}

TEST(WorkerExit, AWorkerThatHadStartedHasNoStartFailure) {
  EXPECT_FALSE(why_not_started(facts(killed_by(SIGKILL))).has_value());
}

TEST(WorkerExit, AProgramWithoutServeIfWorkerCanNeverStart) {
  exit_facts f = facts(exited(ferry::detail::protocol::no_entry_point_status));
  f.was_starting = true;
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->lasting);
  EXPECT_NE(why->why.find("serve_if_worker"), std::string::npos) << why->why;
}

TEST(WorkerExit, AFailingInitializerIsALastingStartFailureWithItsMessage) {
  exit_facts f = facts(exited(1));
  f.was_starting = true;
  f.start_failure = "no database";
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->lasting);
  EXPECT_EQ(why->why, "its initializer failed: no database");
}

TEST(WorkerExit, AWorkerThePoolKilledWhileStartingSaysWhy) {
  exit_facts f = facts(killed_by(SIGKILL));
  f.was_starting = true;
  f.failure = "did not become ready within 30 s";
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->lasting);
  EXPECT_EQ(why->why, "it did not become ready within 30 s");
}

TEST(WorkerExit, AWorkerKilledFromOutsideBeforeItWasReadyMayStartNextTime) {
  exit_facts f = facts(killed_by(SIGKILL));
  f.was_starting = true;
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_FALSE(why->lasting) << "an OOM kill or an operator's kill is not the program's fault";
}

// An initializer that called abort() (a failed assert) made every task
// wait start_retry::start_timeout (30 s) for its error, the pool retrying
// the start as if another process had killed it.
TEST(WorkerExit, AWorkerThatCrashedBeforeItWasReadyWillDoSoAgainAndSaysBySignal) {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGTRAP}) {
    exit_facts f = facts(killed_by(sig));
    f.was_starting = true;
    const auto why = why_not_started(f);
    ASSERT_TRUE(why.has_value());
    EXPECT_TRUE(why->lasting) << strsignal(sig);
    EXPECT_NE(why->why.find("killed by signal " + std::to_string(sig)), std::string::npos) << why->why;
  }
  for (int sig : {SIGKILL, SIGTERM, SIGINT, SIGHUP}) {
    exit_facts f = facts(killed_by(sig));
    f.was_starting = true;
    EXPECT_FALSE(why_not_started(f)->lasting) << strsignal(sig) << " comes from another process";
  }
}

TEST(WorkerExit, AWorkerThatExitedByItselfBeforeItWasReadyWillDoSoAgain) {
  exit_facts f = facts(exited(2));
  f.was_starting = true;
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->lasting);
  EXPECT_EQ(why->why, "it exited with code 2 before it was ready");
}

// Something else in the pool's process reaped the worker (SIGCHLD ignored,
// or a handler calling waitpid(-1)) on a kernel that keeps no record: the
// error said "exited with code 0", which was never true.
TEST(WorkerExit, AWorkerReapedByAnotherWithoutARecordIsSaidToHaveAnUnknownStatus) {
  exit_facts f = facts(0);
  f.status.reset();
  const std::string what = message_of<ferry::worker_died_error>(running_task_error(f, limits()));
  EXPECT_NE(what.find("ended, its exit status unknown: something else in this process reaped it"), std::string::npos)
      << what;
  EXPECT_NE(what.find("SIGCHLD set to SIG_IGN"), std::string::npos) << what;
  EXPECT_EQ(what.find("exited with code"), std::string::npos) << what;
  f.was_starting = true;
  const auto why = why_not_started(f);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->lasting);
}

}  // namespace
