// Copyright ferry authors.
#include "executor/pool/worker_exit.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>

#include <executor/errors.h>
#include "executor/wire/protocol.h"
#include "executor/core/task_intake.h"

namespace ferry::detail {

std::string describe_status(std::optional<int> known) {
  if (!known)
    return "ended, its exit status unknown: something else in this process reaped it (SIGCHLD set to "
           "SIG_IGN, or a SIGCHLD handler calling waitpid(-1)); wait for your own children by their pids";
  const int status = *known;
  // Said here, for every path that tells of a worker's end (a task's
  // failure, a start that failed, an actor lost, the worker events).
  if (WIFEXITED(status) && WEXITSTATUS(status) == protocol::connection_closed_status)
    return "exited because its socket to the pool was closed in the worker, by a task or the initializer: "
           "code run there must not close descriptors it did not open";
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) +
           (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : std::string());
  }
  return "ended with wait status " + std::to_string(status);
}

namespace {
bool exited_with_code(const std::optional<int>& status, int code) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}
// By itself, with `code`: not killed by the pool for a reason of its own.
bool exited_with(const exit_facts& f, int code) { return exited_with_code(f.status, code) && f.failure.empty(); }

// A signal the process raises on itself by what its code does: a crash
// (a bad address, a bad instruction, a division by zero, a forbidden
// system call, a trap) or abort(), as a failed assert calls it. Another
// process's signal (SIGKILL from the OOM killer, SIGTERM) says nothing
// about the next start.
bool crashed(const std::optional<int>& status) {
  if (!status || !WIFSIGNALED(*status)) return false;
  switch (WTERMSIG(*status)) {
    case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGABRT: case SIGSYS: case SIGTRAP:
      return true;
    default:
      return false;
  }
}
}  // namespace

std::exception_ptr running_task_error(const exit_facts& f, const pool_options& limits) {
  if (f.stopped_by_shutdown) return stopped_by_shutdown();
  if (f.cancelled_after) {
    return std::make_exception_ptr(cancelled_error(
        "ferry: the task was cancelled while it was running: it did not stop within " +
        std::to_string(f.cancelled_after->count()) + " ms of being asked, and its worker was killed"));
  }
  if (f.timed_out) {
    const auto timeout = f.task_timeout ? f.task_timeout : limits.task_timeout;
    return std::make_exception_ptr(task_timeout_error(
        std::string("ferry: the task ran longer than ") + (f.task_timeout ? "its timeout" : "the task_timeout") +
        " of " + std::to_string(timeout ? timeout->count() : 0) + " ms; its worker was killed"));
  }
  if (exited_with(f, protocol::authentication_status)) {
    return std::make_exception_ptr(worker_died_error(
        f.pid, "exited because a message it received from the pool failed authentication "
               "(forged, changed or replayed on the way)"));
  }
  if (exited_with(f, protocol::task_memory_status)) {
    return std::make_exception_ptr(worker_died_error(
        f.pid, "was stopped because the task alone used more than max_worker_memory (" +
                   std::to_string(limits.max_worker_memory) + " bytes)"));
  }
  return std::make_exception_ptr(
      worker_died_error(f.pid, f.failure.empty() ? describe_status(f.status) : f.failure, f.crash));
}

std::optional<start_failure> why_not_started(const exit_facts& f) {
  if (!f.was_starting) return std::nullopt;
  // One killed by another's signal before it was ready may start next
  // time; one that exited by itself, crashed (its initializer, say, calling
  // abort), or whose initializer threw, will most likely end the same way:
  // retrying it for start_retry::start_timeout kept each task waiting that
  // long for an error.
  if (exited_with_code(f.status, protocol::no_entry_point_status))
    return start_failure{"the program does not call ferry::serve_if_worker(argc, argv) at the top of main", true};
  if (!f.start_failure.empty()) return start_failure{"its initializer failed: " + f.start_failure, true};
  if (!f.failure.empty()) return start_failure{"it " + f.failure, true};
  // Without a status, as for one that exited by itself: the next start
  // would most likely end the same way, and nothing says otherwise.
  return start_failure{"it " + describe_status(f.status) + " before it was ready",
                       !f.status || WIFEXITED(*f.status) || crashed(f.status)};
}

}  // namespace ferry::detail
