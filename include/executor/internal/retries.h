// Copyright ferry authors. Internal: a task submitted with task_options,
// for pool_front.h. The template part encodes and queues one attempt; the
// library (src/executor/front/retries.cc) decides, as each attempt ends, whether
// to send another, and what the task's future finally holds. The same for
// both pools, as it sits above their queues.
#ifndef FERRY_EXECUTOR_INTERNAL_RETRIES_H_
#define FERRY_EXECUTOR_INTERNAL_RETRIES_H_

#include <functional>
#include <memory>

#include "executor/internal/config.h"
#include "executor/internal/future_state.h"
#include "executor/internal/submit.h"
#include "executor/task_options.h"

namespace ferry::detail {

// Encodes the task and queues it once: submit_encoded's state. Throws what
// submit_task throws (ferry::pool_shutdown_error).
using send_attempt = std::function<std::shared_ptr<future_state>(task_queue&)>;

// Sends the first attempt now (throwing what `send` throws, and
// ferry::error for a timeout of 0 ms or less), and another,
// from the continuation thread, each time one ends as `options` and
// `retries` allow. Returns the state the task's future reads: the last
// attempt's result, or its error, naming the task and listing how earlier
// attempts ended. The queue is held until the last attempt ends.
FERRY_EXECUTOR_EXPORT std::shared_ptr<future_state> run_with_retries(std::shared_ptr<task_queue> queue,
                                                                     send_attempt send,
                                                                     const task_options& options,
                                                                     unsigned retries);

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_RETRIES_H_
