// Copyright ferry authors. Internal: a worker that is a thread of the pool's
// own process (start_method::in_process), for debugging a task where it is
// submitted. It serves the same socket protocol as a worker process
// (worker_loop), so a task is encoded, sent, decoded, run and its result
// encoded and decoded exactly as under spawn; only isolation is missing.
//
// In place of a process's exit it has an exit descriptor (a pipe's read
// end, readable once the thread has ended) and join(); in place of SIGKILL,
// the pool shuts its own ends of the sockets, which ends the thread once its
// running task, if any, returns.
#ifndef FERRY_SRC_EXECUTOR_POOL_IN_PROCESS_WORKER_H_
#define FERRY_SRC_EXECUTOR_POOL_IN_PROCESS_WORKER_H_

#include <sys/types.h>

#include <memory>
#include <thread>

#include "internal/unique_fd.h"

namespace ferry::detail {

class in_process_worker {
 public:
  // Starts the thread reading tasks on `tasks` and writing results to
  // `results` (the worker's ends, owned from now on). Throws
  // std::system_error if no thread can start.
  in_process_worker(unique_fd tasks, unique_fd results);
  // Joins the thread: the pool's ends of the sockets must be closed or shut
  // first, and a running task must return.
  ~in_process_worker();
  in_process_worker(const in_process_worker&) = delete;
  in_process_worker& operator=(const in_process_worker&) = delete;

  // The thread's id (gettid), which the pool shows where a process's pid
  // would be.
  pid_t tid() const { return tid_; }
  // Readable (end of file) once the thread has ended; the caller owns it.
  unique_fd take_exit_fd() { return std::move(exit_read_); }
  // Waits for the thread and returns its wait status, as waitpid gives a
  // process's: it "exited" with worker_loop's status.
  int join();

 private:
  unique_fd exit_read_;
  pid_t tid_ = 0;
  int status_ = 0;
  std::thread thread_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_IN_PROCESS_WORKER_H_
