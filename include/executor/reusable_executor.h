// Copyright ferry authors.
//
// ferry::get_reusable_executor: one process-wide pool, reused across calls,
// like loky's get_reusable_executor.
//
//   auto f = ferry::get_reusable_executor({.max_workers = 4}).submit(task);
//
// Thread-safety: may be called from any thread.
#ifndef FERRY_EXECUTOR_REUSABLE_EXECUTOR_H_
#define FERRY_EXECUTOR_REUSABLE_EXECUTOR_H_

#include "executor/internal/config.h"
#include "executor/pool_options.h"
#include "executor/process_pool.h"

namespace ferry {

// The process-wide pool, made on first use (no new workers when called
// again with the same options). A different max_workers resizes it; other
// different options (start, env, timeouts, max_tasks_per_worker,
// max_message_size, worker_program), a pool that was shut down, or one
// made before fork() in the calling child's parent, give a fresh pool;
// handles to the old one stay valid until released. At exit the
// pool is shut down with its pending tasks cancelled. Throws what
// process_pool's constructor throws.
FERRY_EXECUTOR_EXPORT process_pool get_reusable_executor(const pool_options& options = {});

}  // namespace ferry

#endif  // FERRY_EXECUTOR_REUSABLE_EXECUTOR_H_
