// Copyright ferry authors.
//
// ferry::process_pool runs shippable callables (serialize/function.h) in
// worker processes and returns ferry::futures.
//
//   int main(int argc, char** argv) {
//     ferry::serve_if_worker(argc, argv);  // first: see executor/worker.h
//     ferry::process_pool pool({.max_workers = 4});
//     auto f = pool.submit([](int a, int b) { return a + b; }, 2, 3);
//     std::vector<int> squares = pool.map([](int x) { return x * x; }, std::vector{1, 2, 3});
//     f.get();  // 5
//   }
//
// Data flow (docs/design.md draws it): submit() serializes the callable and
// its arguments on the calling thread into one message and queues it; the
// pool's manager thread hands queued messages to idle workers over a socket
// per worker, starting workers on demand up to max_workers (when all are
// busy, each is also sent its next small task to start as soon as it
// answers); workers run one task at a time and send results back; the
// manager completes the futures. A task submitted while every worker is
// idle goes from the submitting thread, and a thread waiting for it reads
// its result, the manager left asleep (submit(f).get() costs the worker's
// wake-up alone). A worker that dies fails only the task it was running;
// the pool replaces it and goes on.
//
// process_pool is a handle: copies refer to the same pool, which shuts down
// and joins when shutdown() is called or the last handle is destroyed; no
// worker process outlives it. All members may be called from any thread.
// A pool lives in the process that made it: in a child of fork(), submit
// and map, and waiting for or continuing a future not yet finished, throw
// ferry::error (its manager and workers stayed in the parent); make a new
// pool there.
#ifndef FERRY_EXECUTOR_PROCESS_POOL_H_
#define FERRY_EXECUTOR_PROCESS_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "executor/internal/config.h"
#include "executor/errors.h"
#include "executor/future.h"
#include "executor/internal/pool_front.h"
#include "executor/ordered_results.h"
#include "executor/pool_options.h"
#include "executor/shutdown_options.h"

namespace ferry {

namespace detail {
class pool_core;
}

// submit, map, map_ordered, shutdown and is_shutdown are pool_front's
// (executor/internal/pool_front.h documents them), shared with mpi_pool.
class FERRY_EXECUTOR_EXPORT process_pool : public detail::pool_front {
 public:
  // Starts the manager thread; workers start on demand. Throws ferry::error
  // when called inside a worker process (pools do not nest; a task submits
  // to the pool it runs in through ferry::this_task::pool()), for a
  // task_timeout of 0 ms or less, for an env name that is no name, and
  // when this process has no descriptor to spare (RLIMIT_NOFILE reached:
  // the message says which limit and what to do).
  explicit process_pool(pool_options options = {});
  // process_pool(pool_options{.max_workers = max_workers}), as
  // ProcessPoolExecutor(4) reads: 0 is cpu_count(). Throws ferry::error
  // for a negative count, and as above.
  explicit process_pool(int max_workers);
  ~process_pool();
  process_pool(const process_pool&);
  process_pool& operator=(const process_pool&);
  // A handle moved from has no pool: every call on it but == and
  // assignment throws ferry::error naming the call.
  process_pool(process_pool&&) noexcept;
  process_pool& operator=(process_pool&&) noexcept;

  std::size_t max_workers() const;
  // Changes max_workers (0: cpu_count(), as pool_options::max_workers);
  // surplus idle workers exit, busy ones finish first.
  // Only workers that are ready count as surplus: a worker still starting
  // exits once ready if the pool is still over its size, never one that
  // could serve the queue meanwhile.
  void resize(std::size_t max_workers);
  // Process ids of the live workers.
  std::vector<int> worker_pids() const;
  const pool_options& options() const;

  // Whether both handles refer to the same pool, like std::shared_ptr.
  friend bool operator==(const process_pool& a, const process_pool& b) noexcept {
    return a.core_ == b.core_;
  }

 private:
  explicit process_pool(std::shared_ptr<detail::pool_core> core);
  std::shared_ptr<detail::pool_core> core_;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_PROCESS_POOL_H_
