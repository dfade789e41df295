// Copyright ferry authors.
//
// ferry::start_method: how a process_pool makes its worker processes, and
// the names that select one from a string or the environment.
#ifndef FERRY_EXECUTOR_START_METHOD_H_
#define FERRY_EXECUTOR_START_METHOD_H_

#include <string_view>

#include "executor/internal/config.h"

namespace ferry {

// How worker processes are made. docs/api/executor.md compares them.
enum class start_method {
  // Re-execute this program (/proc/self/exe). main() must call
  // ferry::serve_if_worker(argc, argv) first. Safe with threads; the
  // default.
  spawn,
  // fork() this process. Fastest; the child inherits a copy of everything,
  // and only the forking thread: locks held by other threads at that moment
  // (outside ferry's own) stay locked in the child, and thread pools
  // (OpenMP, TBB) are gone.
  fork,
  // Run the generic `ferry-worker` program, which loads the shared objects
  // holding the tasks' code on demand, under the module policy. Code in the
  // main executable cannot run there.
  plugin,
  // For debugging: each worker is a thread of this process, sent each task
  // through a socket exactly as a worker process is (encoded, decoded, run,
  // the result encoded and decoded), so that serialization errors show as
  // they would, a debugger's breakpoints in the task are hit and sanitizers
  // see it. No isolation: a crash ends this process; a task cannot be
  // stopped (a timeout or kill_running takes effect when it returns). The
  // pool's env, unset_env, inner_threads and max_worker_memory do not
  // apply, nor output capture. process_pool only.
  in_process,
};

// "spawn", "fork", "plugin" or "in_process".
FERRY_EXECUTOR_EXPORT const char* to_string(start_method method) noexcept;

// The start method named "spawn", "fork", "plugin" or "in_process". Throws
// ferry::error, listing the valid names, for any other.
FERRY_EXECUTOR_EXPORT start_method start_method_from_string(std::string_view name);

// The start method named by the environment variable FERRY_START_METHOD, or
// `fallback` when it is unset or empty. Throws like start_method_from_string.
FERRY_EXECUTOR_EXPORT start_method start_method_from_env(start_method fallback = start_method::spawn);

}  // namespace ferry

#endif  // FERRY_EXECUTOR_START_METHOD_H_
