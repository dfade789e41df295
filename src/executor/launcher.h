// Copyright ferry authors. Internal: starting worker processes, one function
// per start method.
#ifndef FERRY_SRC_EXECUTOR_LAUNCHER_H_
#define FERRY_SRC_EXECUTOR_LAUNCHER_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "executor/errors.h"
#include "executor/start_method.h"

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

struct launched_worker {
  pid_t pid;
  int socket;  // the pool's end, non-blocking, close-on-exec
  int pidfd;   // readable when the worker exits
};

// Starts a worker. `program` is used by spawn (normally /proc/self/exe) and
// plugin (the ferry-worker program). A forked child closes
// `close_in_child` (the pool's other descriptors) before serving. Throws
// launch_error.
launched_worker launch_worker(start_method method, const std::string& program,
                              const std::vector<int>& close_in_child);

// The ferry-worker program for start_method::plugin when the options name
// none: $FERRY_WORKER, else ferry-worker beside this library.
std::string default_worker_program();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_LAUNCHER_H_
