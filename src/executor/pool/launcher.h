// Copyright ferry authors. Internal: starting worker processes, one function
// per start method.
#ifndef FERRY_SRC_EXECUTOR_POOL_LAUNCHER_H_
#define FERRY_SRC_EXECUTOR_POOL_LAUNCHER_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <executor/errors.h>
#include <executor/start_method.h>
#include "executor/pool/in_process_worker.h"
#include "internal/unique_fd.h"

namespace ferry::detail {

// A worker that could not be started; lasting() when trying again cannot
// help (the program is missing or cannot be executed).
class launch_error : public worker_start_error {
 public:
  launch_error(const std::string& message, bool lasting);
  ~launch_error() override;
  bool lasting() const noexcept { return lasting_; }

 private:
  bool lasting_;
};

// How a worker's environment differs from the pool's process's.
struct worker_environment {
  std::vector<std::string> unset;            // names, as pool_options::unset_env
  std::map<std::string, std::string> set;    // applied after `unset`
  int directory = -1;  // where it starts (a directory's descriptor); -1: this process's working directory
};

struct launched_worker {
  pid_t pid = -1;                            // under in_process, the thread's id
  // The pool's ends of two socket pairs, one per direction, non-blocking,
  // close-on-exec: the pool reads results (and all else a worker says) on
  // `results` and writes tasks on `tasks`. Two pairs, so that a worker
  // asleep in recvmsg for its next task is not woken each time the pool
  // reads a result (connection.h).
  unique_fd results;
  unique_fd tasks;
  unique_fd pidfd;   // readable when the worker exits
  unique_fd crash;   // the read end of its crash pipe (crash_report.h), non-blocking, close-on-exec
  unique_fd out;     // with capture: the read ends of its stdout and stderr, non-blocking, close-on-exec
  unique_fd err;
  std::unique_ptr<in_process_worker> thread;  // under in_process: the worker; pidfd its exit descriptor
};

// Starts a worker. `program` is used by spawn (normally /proc/self/exe) and
// plugin (the ferry-worker program). The worker's environment is `env`'s
// from before anything of it runs: so is what a library linked into the
// program reads when it loads. A forked child
// closes `close_in_child` (the pool's other descriptors) before serving.
// Every worker process starts with SIGCHLD's default action, whatever this
// process set, and with /dev/null as its stdin. Throws launch_error.
// With `capture_output`, the worker's stdout and stderr are pipes the pool
// reads (not under in_process: a thread writes to this process's own).
launched_worker launch_worker(start_method method, const std::string& program,
                              const worker_environment& env, const std::vector<int>& close_in_child,
                              bool capture_output = false);

// Whether an environment entry "NAME=value" is one `unset_env` names.
bool is_unset(std::string_view entry, const std::vector<std::string>& unset_env);

// The ferry-worker program for start_method::plugin when the options name
// none: $FERRY_WORKER, else ferry-worker beside this library.
std::string default_worker_program();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_LAUNCHER_H_
