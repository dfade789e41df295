// Copyright ferry authors.
//
// ferry::task_options: what one task asks of the pool that runs it, given
// as submit's first argument, on process_pool and mpi_pool alike:
//
//   auto f = pool.submit({.retries = 3, .name = "load shard 7"}, load, 7);
#ifndef FERRY_EXECUTOR_TASK_OPTIONS_H_
#define FERRY_EXECUTOR_TASK_OPTIONS_H_

#include <chrono>
#include <optional>
#include <string>

namespace ferry {

struct task_options {
  // How many times the task is sent again, to a new worker, after the
  // worker running it died (ferry::worker_died_error). Unset:
  // pool_options::task_retries. Only that task is sent again; a task that
  // ran past its timeout or was stopped by a shutdown is not.
  std::optional<unsigned> retries{};
  // Also send it again, within `retries`, when it throws.
  bool retry_on_exception = false;
  // A task running longer has its worker killed (and replaced) and fails
  // with ferry::task_timeout_error; each attempt has this long. Unset:
  // pool_options::task_timeout. Set, more than 0 ms: submit throws
  // ferry::error otherwise.
  std::optional<std::chrono::milliseconds> timeout{};
  // Named in the errors the pool makes for this task (worker_died_error,
  // task_timeout_error, ...), so that a log says which task failed.
  std::string name{};
  // Among the tasks not yet sent to a worker, those of a higher priority
  // are sent first; within one priority, in the order submitted. A task
  // already sent, running or queued in a worker behind a running one, is
  // never taken back for a more urgent one.
  int priority = 0;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_TASK_OPTIONS_H_
