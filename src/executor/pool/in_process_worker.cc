// Copyright ferry authors.
#include "executor/pool/in_process_worker.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <system_error>

#include "executor/worker/worker_loop.h"

namespace ferry::detail {

in_process_worker::in_process_worker(unique_fd tasks, unique_fd results) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  exit_read_ = unique_fd(fds[0]);
  auto exit_write = std::make_shared<unique_fd>(fds[1]);
  std::promise<pid_t> started;
  std::future<pid_t> tid = started.get_future();
  // The sockets move into the thread's function: if no thread starts,
  // they close with it.
  thread_ = std::thread([this, in = std::move(tasks), out = std::move(results), exit_write,
                         started = std::move(started)]() mutable {
    started.set_value(::gettid());
    status_ = worker_loop(in.release(), out.release(), worker_home::pool_process);
    exit_write->reset();  // the pool's poll sees the end of file: this worker has ended
  });
  tid_ = tid.get();
}

in_process_worker::~in_process_worker() { join(); }

int in_process_worker::join() {
  if (thread_.joinable()) thread_.join();
  return W_EXITCODE(status_, 0);
}

}  // namespace ferry::detail
