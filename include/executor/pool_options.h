// Copyright ferry authors.
//
// How a ferry::process_pool starts and runs its workers.
#ifndef FERRY_EXECUTOR_POOL_OPTIONS_H_
#define FERRY_EXECUTOR_POOL_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "serialize/function.h"

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
};

// "spawn", "fork" or "plugin".
FERRY_EXPORT const char* to_string(start_method method) noexcept;

// The start method named "spawn", "fork" or "plugin". Throws
// std::invalid_argument, listing the valid names, for any other.
FERRY_EXPORT start_method start_method_from_string(std::string_view name);

// The start method named by the environment variable FERRY_START_METHOD, or
// `fallback` when it is unset or empty. Throws like start_method_from_string.
FERRY_EXPORT start_method start_method_from_env(start_method fallback = start_method::spawn);

// How many workers this process can keep busy: the CPUs of its affinity
// mask, lowered to the cgroup CPU quota (cgroup v2 cpu.max, or v1
// cpu.cfs_quota_us / cpu.cfs_period_us) rounded up; at least 1.
FERRY_EXPORT std::size_t cpu_count() noexcept;

struct pool_options {
  // Most workers alive at once; 0 means cpu_count().
  std::size_t max_workers = 0;
  start_method start = start_method::spawn;
  // A worker idle this long exits; the pool starts new ones on demand.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(300);
  // A worker that has run this many tasks is replaced; 0 means never.
  std::size_t max_tasks_per_worker = 0;
  // A task running longer has its worker killed (and replaced) and fails
  // with ferry::task_timeout_error.
  std::optional<std::chrono::milliseconds> task_timeout;
  // Run once in each new worker before its first task. If it throws, the
  // worker does not start and the pending tasks fail with
  // ferry::worker_start_error.
  function<void()> initializer;
  // A worker whose resident memory is above this many bytes after a task
  // delivers that task's result and then exits (the pool starts another
  // when needed); 0 means no limit. A task that alone (its growth while it
  // runs, sampled every 10 ms) uses more than this is stopped, and fails
  // with ferry::worker_died_error saying so.
  std::size_t max_worker_memory = 0;
  // Environment variables set in each worker before the initializer.
  std::map<std::string, std::string> env;
  // A message between pool and worker larger than this is refused: the
  // task fails (or, from a worker, the worker is replaced).
  std::size_t max_message_size = std::size_t{1} << 32;
  // Arguments and results larger than this travel through shared memory
  // (a memfd) rather than through the socket.
  std::size_t shared_memory_threshold = std::size_t{1} << 20;
  // For start_method::plugin: the worker program. Empty: $FERRY_WORKER, else
  // `ferry-worker` next to the ferry_executor library.
  std::filesystem::path worker_program;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_POOL_OPTIONS_H_
