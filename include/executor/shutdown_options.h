// Copyright ferry authors.
#ifndef FERRY_EXECUTOR_SHUTDOWN_OPTIONS_H_
#define FERRY_EXECUTOR_SHUTDOWN_OPTIONS_H_

namespace ferry {

// How a pool's shutdown (process_pool, mpi_pool) stops it; name the fields
// you set:
//   pool.shutdown({.wait = false});
//   pool.shutdown({.cancel_pending = true});
struct shutdown_options {
  // Block until running (and remaining) tasks are done and every worker has
  // exited and been reaped; otherwise that happens in the background and
  // the last handle's destructor waits for it.
  bool wait = true;
  // Tasks not yet sent to a worker fail with ferry::pool_shutdown_error
  // (otherwise they still run).
  bool cancel_pending = false;
  // Also kill the workers running tasks (SIGKILL); those tasks fail with
  // ferry::pool_shutdown_error. Implies cancel_pending.
  bool kill_running = false;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_SHUTDOWN_OPTIONS_H_
