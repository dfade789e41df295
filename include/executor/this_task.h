// Copyright ferry authors.
//
// ferry::this_task: what a running task may ask of the worker running it.
// A task stops early, when its future's cancel(grace) asks, by looking:
//
//   pool.submit([](int n) {
//     for (int i = 0; i < n && !ferry::this_task::stop_requested(); ++i) step(i);
//   }, 1000000);
//
// or by registering a std::stop_callback on get_stop_token(). A task
// submits tasks to its own pool through this_task::pool()
// (executor/nested_pool.h).
#ifndef FERRY_EXECUTOR_THIS_TASK_H_
#define FERRY_EXECUTOR_THIS_TASK_H_

#include <stop_token>

#include "executor/internal/config.h"

namespace ferry::this_task {

// Whether the running task was asked to stop. False outside a task (a
// thread that is not running one on a worker). Cheap enough for a loop: an
// atomic load, a clock read, and at most once a millisecond a read of the
// pool's request pipe that does not block.
FERRY_EXECUTOR_EXPORT bool stop_requested() noexcept;

// A token that is stopped when the running task is asked to stop; valid
// for that task only. The first call in a worker starts a thread there
// that waits for requests, so that the token's callbacks run unasked.
// Outside a task, a token that never stops (stop_possible() is false).
// Throws std::bad_alloc or std::system_error.
FERRY_EXECUTOR_EXPORT std::stop_token get_stop_token();

}  // namespace ferry::this_task

#endif  // FERRY_EXECUTOR_THIS_TASK_H_
