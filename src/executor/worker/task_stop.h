// Copyright ferry authors. Internal: a worker's side of stopping a running
// task (future::cancel(grace), ferry::this_task). The pool writes the id of
// the task to stop, 8 bytes, to a pipe whose read end it passed with the
// hello. Nothing in the worker waits on that pipe: a worker stays one
// thread, as a second would slow every task (libstdc++ and glibc drop
// their single-thread fast paths once a thread starts). Instead the task
// reads it when it asks: stop_requested() drains the pipe at most once a
// millisecond, without blocking. Only a task that asks for a stop token,
// whose callbacks must run unasked, starts a thread (once per worker) that
// waits on the pipe. The task sees all this through this_task, which finds
// the task_stop of its thread (a worker process has one; under
// start_method::in_process, each worker thread its own).
//
// Thread-safety: begin and end on the thread running tasks, as
// stop_requested and token, which the task calls; the watcher thread
// drains alongside, under mu_.
#ifndef FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_
#define FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_

#include <atomic>
#include <chrono>
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
  // `pipe`: the read end the hello passed, or none (tasks are then never
  // asked, only killed).
  explicit task_stop(unique_fd pipe);
  // Ends and joins the watcher thread, if a task started it.
  ~task_stop();
  task_stop(const task_stop&) = delete;
  task_stop& operator=(const task_stop&) = delete;

  // The task `id` starts on this thread; it is stopped at once if it was
  // asked before it began (its request is read with the next ones). A task
  // may begin while another waits for it (task_server.h): the one below is
  // set aside until this one ends.
  void begin(std::uint64_t id);
  // The running task has ended; the one it was started on top of, if any,
  // runs again (asked to stop if it was meanwhile).
  void end();

  bool stop_requested();
  std::stop_token token();

 private:
  // Reads what the pool wrote; requests for the running task stop it, the
  // others are kept for a task about to begin. The stop source to stop, if
  // any, for the caller to stop once it let go of mu_ (its callbacks are
  // the task's).
  std::optional<std::stop_source> drain() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void drain_and_stop() ABSL_LOCKS_EXCLUDED(mu_);

  unique_fd pipe_;  // non-blocking
  std::atomic<bool> requested_{false};
  std::atomic<bool> watched_{false};  // the watcher thread drains
  std::chrono::steady_clock::time_point next_drain_{};  // the task thread's
  mutex mu_;
  std::uint64_t current_ ABSL_GUARDED_BY(mu_) = 0;  // 0: none running
  std::optional<std::stop_source> source_ ABSL_GUARDED_BY(mu_);  // made when a task asks for a token
  std::vector<std::uint64_t> early_ ABSL_GUARDED_BY(mu_);  // asked before they began (a few at most)
  // Tasks set aside by a task begun on top of them, innermost last.
  struct set_aside {
    std::uint64_t id;
    bool requested;
    std::optional<std::stop_source> source;
  };
  std::vector<set_aside> below_ ABSL_GUARDED_BY(mu_);
  unique_fd quit_;       // an eventfd that ends the watcher
  std::thread watcher_;  // started by the first token()
};

// The thread's task_stop while it serves tasks (this_task reads it).
void set_thread_task_stop(task_stop* stop) noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_TASK_STOP_H_
