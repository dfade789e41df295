// Copyright ferry authors.
//
// How a ferry::process_pool starts and runs its workers.
#ifndef FERRY_EXECUTOR_POOL_OPTIONS_H_
#define FERRY_EXECUTOR_POOL_OPTIONS_H_

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "executor/cpu_count.h"
#include "executor/events.h"
#include "executor/start_method.h"
#include "serialize/function.h"

namespace ferry {

struct pool_options {
  // Most workers alive at once; 0 means cpu_count() (executor/cpu_count.h).
  std::size_t max_workers = 0;
  start_method start = start_method::spawn;
  // A worker idle this long exits; the pool starts new ones on demand.
  // Idle means nothing to run: while tasks wait, none is retired.
  std::chrono::milliseconds idle_timeout = std::chrono::seconds(300);
  // A worker that has run this many tasks is replaced; 0 means never.
  std::size_t max_tasks_per_worker = 0;
  // A task running longer has its worker killed (and replaced) and fails
  // with ferry::task_timeout_error. Set, it must be more than 0 ms: the
  // pool's constructor throws ferry::error otherwise.
  std::optional<std::chrono::milliseconds> task_timeout{};
  // How many times a task is sent again, to a new worker, after the worker
  // running it died; a task's own ferry::task_options::retries overrides it.
  unsigned task_retries = 0;
  // Run once in each new worker before its first task. If it throws, the
  // worker does not start and the pending tasks fail with
  // ferry::worker_start_error.
  function<void()> initializer{};
  // A worker whose resident memory is above this many bytes after a task
  // delivers that task's result and then exits (the pool starts another
  // when needed); 0 means no limit. A task that alone (its growth while it
  // runs, sampled every 10 ms) uses more than this is stopped, and fails
  // with ferry::worker_died_error saying so.
  std::size_t max_worker_memory = 0;
  // Environment variables set in each worker before the initializer. A
  // name must be non-empty and hold no '=' or NUL, and a value no NUL: the
  // pool's constructor throws ferry::error otherwise.
  std::map<std::string, std::string> env{};
  // Environment variables a worker does not inherit from the pool's
  // process; a name ending in '*' removes every variable it is a prefix of,
  // e.g. "OMPI_*". Applied when the worker starts, before anything of it
  // runs (spawn, plugin) or right after fork; env is applied after it. A
  // name no variable can have (empty, or with '=' or NUL) is refused:
  // the constructor throws ferry::error.
  std::vector<std::string> unset_env{};
  // The threads each worker's OpenMP and BLAS libraries may start, so that
  // a pool of N workers on C CPUs does not run N x C of them. Unset: C / N
  // (at least 1), C being cpu_count() where the workers run. 0: the pool
  // sets nothing. Each worker starts with OMP_NUM_THREADS,
  // OPENBLAS_NUM_THREADS, MKL_NUM_THREADS, BLIS_NUM_THREADS,
  // VECLIB_MAXIMUM_THREADS and NUMEXPR_NUM_THREADS set to it, except those
  // that env sets or that the pool's process passes on from its own
  // environment: the user's choice stands.
  std::optional<std::size_t> inner_threads{};
  // A message between pool and worker larger than this is not sent: a
  // task's fails with ferry::error, a result's with
  // ferry::serialization_error (the worker goes on). A worker that sends
  // one anyway is killed and replaced.
  std::size_t max_message_size = std::size_t{1} << 32;
  // Arguments and results larger than this travel through shared memory
  // (a memfd each worker connection reuses, else a sealed one) rather than
  // through the socket.
  std::size_t shared_memory_threshold = std::size_t{1} << 20;
  // The low-latency mode: how long the pool's manager thread and each
  // worker poll for the next message before they sleep. 0, the default:
  // they sleep at once. A side spins only while its previous wait ended
  // within twice this time, so an idle pool burns nothing, and it yields the
  // CPU between polls, so a loaded machine's other threads still run.
  // docs/performance.md says what it gains and costs.
  std::chrono::microseconds spin = std::chrono::microseconds(0);
  // Told of each task's and worker's events (executor/events.h); unset,
  // nothing is made or called for them. An exception it throws is
  // dropped, and said once on stderr.
  std::shared_ptr<pool_observer> observer{};
  // Where workers' stdout and stderr go (executor/events.h): as they are,
  // or captured and written line by line, each line prefixed with its
  // worker and task. Lines are never cut or mixed with other lines (one
  // longer than 64 KiB comes in pieces); what a worker wrote before dying
  // arrives.
  output_mode worker_output = output_mode::inherit;
  // When set, workers' output is captured and every line handed here
  // instead, on the pool's manager thread (keep it short; an exception it
  // throws is dropped, and said once on stderr). process_pool
  // only: an mpi_pool's workers are on other hosts, and its constructor
  // refuses it (use local.worker_output).
  std::function<void(const output_line&)> on_output{};
  // Records every task's span on the worker that ran it and, when the pool
  // has shut down, writes them to this file as a Chrome trace (Perfetto,
  // chrome://tracing) and beside it, with the extension .html, a page
  // drawing the timeline. Empty: $FERRY_TRACE if set, else nothing. The
  // file's directory is made with the pool; the pool's constructor throws
  // ferry::error if it cannot be (for $FERRY_TRACE: a line on stderr, and
  // no timeline). A relative path is taken from the directory the program
  // is in when it makes the pool.
  std::filesystem::path trace{};
  // For start_method::plugin: the worker program. Empty: $FERRY_WORKER, else
  // `ferry-worker` next to the ferry_executor library.
  std::filesystem::path worker_program{};
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_POOL_OPTIONS_H_
