// Copyright ferry authors. Internal: why a pool's worker ended, from its
// wait status and what the pool knew of it, as a pure function (no system
// call), so that each cause is a unit test (worker_exit_test.cc).
#ifndef FERRY_SRC_EXECUTOR_POOL_WORKER_EXIT_H_
#define FERRY_SRC_EXECUTOR_POOL_WORKER_EXIT_H_

#include <sys/types.h>

#include <chrono>
#include <exception>
#include <optional>
#include <string>

#include <executor/errors.h>
#include <executor/pool_options.h>

namespace ferry::detail {

// What the pool knew of a worker when it was reaped.
struct exit_facts {
  pid_t pid = 0;
  // waitpid's; nullopt when something else in this process reaped it and
  // the kernel keeps no record (process_linux.h, reap_child).
  std::optional<int> status = 0;
  bool was_starting = false;  // it had not said ready
  bool timed_out = false;     // the pool killed it for task_timeout
  bool stopped_by_shutdown = false;  // the pool killed it for shutdown's kill_running
  // The pool killed it because its task, asked to stop, ran past this grace.
  std::optional<std::chrono::milliseconds> cancelled_after{};
  std::string failure;        // why the pool killed it otherwise, if it did
  std::string start_failure;  // its start_failed message (its initializer threw)
  std::optional<std::chrono::milliseconds> task_timeout;  // the running task's own, if any
  std::optional<crash_report> crash{};  // what it wrote as a signal killed it, if it could
};

// "exited with code 3", "was killed by signal 9 (SIGKILL)", or, for no
// status, that something else reaped the worker and what to do.
std::string describe_status(std::optional<int> status);

// What the task a worker was running when it ended fails with:
// ferry::pool_shutdown_error (stopped by shutdown), ferry::task_timeout_error,
// or ferry::worker_died_error saying why (a forged message, the task's
// memory, the pool's reason, or the wait status). `limits`: the pool's
// options, which the messages quote.
std::exception_ptr running_task_error(const exit_facts& facts, const pool_options& limits);

// Why a worker that ended before it was ready could not start, and whether
// that lasts (a next start would fail the same way: it exited by itself,
// crashed, its initializer threw, its program lacks serve_if_worker);
// nullopt for a worker that had started.
struct start_failure {
  std::string why;
  bool lasting;
};
std::optional<start_failure> why_not_started(const exit_facts& facts);

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_WORKER_EXIT_H_
