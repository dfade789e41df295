// Copyright ferry authors. Internal: a worker's side of the connection: read
// the hello (key, environment, allowed modules, initializer), say ready,
// then run tasks until told to exit or the pool's end of the socket closes.
// A task's code may live in a module this process loads on demand.
#ifndef FERRY_SRC_EXECUTOR_WORKER_WORKER_LOOP_H_
#define FERRY_SRC_EXECUTOR_WORKER_WORKER_LOOP_H_

namespace ferry::detail {

// Where a worker runs: a process of its own, or a thread of the pool's
// process (start_method::in_process), which leaves the process's
// environment, module policy, allocator and memory alone: they are the
// pool's.
enum class worker_home { own_process, pool_process };

// Serves the pool on the socket fd, which it owns from now on (reading
// tasks there, and writing results to `results_fd` where that is not -1,
// owned too), and returns
// the exit status the process should end with, one of protocol.h's:
// served_status when told to exit or when the pool is gone after its
// hello, start_failed_status when the initializer failed,
// protocol_error_status when no readable hello came first or after a
// protocol error, connection_closed_status when something in this process
// (a task) closed the socket, and authentication_status after a message
// that did not verify (tests/executor/worker_loop_test.cc has each).
int worker_loop(int fd, int results_fd = -1, worker_home home = worker_home::own_process);

// Turns this process into a worker serving on fd, then ends it with
// worker_loop's status (never returns). The sockets become close-on-exec
// first, so that programs a task runs do not hold the pool's channel.
// `crash_fd`: the write end of the crash pipe (crash_report.h); -1: none.
[[noreturn]] void serve(int fd, int results_fd = -1, int crash_fd = -1);

// Whether serve() was called in this process, or this thread serves as an
// in-process worker.
bool serving() noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_WORKER_LOOP_H_
