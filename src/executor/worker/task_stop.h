// Copyright ferry authors. Internal: a worker's side of stopping a running
// task (future::cancel(grace), ferry::this_task). The pool writes the id of
// the task to stop, 8 bytes, to a pipe whose read end it passed with the
// hello; a thread of the worker reads it and, if that task is running or
// about to, marks it stopped. The task sees it through this_task, which
// finds the task_stop of its thread (a worker process has one; under
// start_method::in_process, each worker thread its own).
//
// Thread-safety: begin and end on the thread running tasks; request from
// the listening thread; stop_requested and token from the task.
#ifndef FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_
#define FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "internal/mutex.h"
#include "internal/unique_fd.h"

namespace ferry::detail {

class task_stop {
 public:
  // The task `id` starts on this thread: it is stopped at once if asked
  // before it began.
  void begin(std::uint64_t id);
  // The running task has ended.
  void end();
  // The pool asks that task `id` stop.
  void request(std::uint64_t id);

  bool stop_requested() const noexcept { return requested_.load(std::memory_order_relaxed); }
  std::stop_token token();

 private:
  mutable mutex mu_;
  std::uint64_t current_ ABSL_GUARDED_BY(mu_) = 0;  // 0: none running
  std::optional<std::stop_source> source_ ABSL_GUARDED_BY(mu_);  // made when a task asks for a token
  std::vector<std::uint64_t> early_ ABSL_GUARDED_BY(mu_);  // asked before they began (a few at most)
  std::atomic<bool> requested_{false};
};

// Reads stop requests from the pool's pipe on a thread of its own and
// hands them to `stop`, until destroyed (which ends and joins the thread)
// or the pool closes its end.
class stop_listener {
 public:
  stop_listener(unique_fd pipe, task_stop& stop);
  ~stop_listener();
  stop_listener(const stop_listener&) = delete;
  stop_listener& operator=(const stop_listener&) = delete;

 private:
  unique_fd pipe_;
  unique_fd quit_;  // an eventfd the destructor writes
  std::thread thread_;
};

// The thread's task_stop while it serves tasks (this_task reads it).
void set_thread_task_stop(task_stop* stop) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_
