// Copyright ferry authors.
//
// ferry::serve_if_worker(argc, argv) turns this process into a pool worker
// when it was started as one, and returns at once otherwise. Call it first
// in main():
//
//   int main(int argc, char** argv) {
//     ferry::serve_if_worker(argc, argv);
//     ...  // the program's own logic: never reached in a worker
//   }
//
// Why: start_method::spawn starts workers by running this same program again
// (like MPI_Init, or Python's `if __name__ == "__main__"`). The worker must
// not run the program's logic, and it must have registered every closure
// type the program can ship, including the executable's own; shared
// libraries are initialized before the executable, so no library
// initializer could serve as the entry point. A spawned program that does
// not call it stops before main with a message saying to add it, and the
// pool reports ferry::worker_start_error; nothing of main runs.
#ifndef FERRY_EXECUTOR_WORKER_H_
#define FERRY_EXECUTOR_WORKER_H_

#include "executor/internal/config.h"

namespace ferry {

// In a worker: serves tasks until the pool says stop, then exits the process
// (never returns). Elsewhere: returns. argc and argv are not used today.
FERRY_EXECUTOR_EXPORT void serve_if_worker(int argc, char** argv);

// Whether this process is a pool worker, or the calling thread one of its
// own pool's workers (start_method::in_process): true wherever a task runs.
FERRY_EXECUTOR_EXPORT bool is_worker_process() noexcept;

}  // namespace ferry

#endif  // FERRY_EXECUTOR_WORKER_H_
