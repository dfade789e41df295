// Copyright ferry authors. Internal: starting worker processes, one function
// per start method.
#ifndef FERRY_SRC_EXECUTOR_LAUNCHER_H_
#define FERRY_SRC_EXECUTOR_LAUNCHER_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "executor/pool_options.h"

namespace ferry::detail {

struct launched_worker {
  pid_t pid;
  int socket;  // the pool's end, non-blocking, close-on-exec
  int pidfd;   // readable when the worker exits
};

// Starts a worker. `program` is used by spawn (normally /proc/self/exe) and
// plugin (the ferry-worker program). A forked child closes
// `close_in_child` (the pool's other descriptors) before serving. Throws
// ferry::worker_start_error.
launched_worker launch_worker(start_method method, const std::string& program,
                              const std::vector<int>& close_in_child);

// The ferry-worker program for start_method::plugin when the options name
// none: $FERRY_WORKER, else ferry-worker beside this library.
std::string default_worker_program();

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_LAUNCHER_H_
