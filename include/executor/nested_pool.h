// Copyright ferry authors.
//
// Tasks that submit tasks: a task running in a worker submits to the pool
// it runs in through ferry::this_task::pool(), and waits for the results:
//
//   long fib(int n) {
//     if (n < 2) return n;
//     ferry::nested_pool pool = ferry::this_task::pool();
//     auto a = pool.submit(fib, n - 1);
//     auto b = pool.submit(fib, n - 2);
//     return a.get() + b.get();
//   }
//   pool.submit(fib, 20).get();  // 6765, on any number of workers
//
// A task that waits for a nested task does not hold its worker idle: the
// worker runs the waiting task's children (the tasks it submitted) on top
// of it, on the same thread, until what it waits for is ready, so a pool
// whose every worker waits still finishes, with no process added. The
// bound and the rest: docs/api/executor.md, "Tasks that submit tasks".
#ifndef FERRY_EXECUTOR_NESTED_POOL_H_
#define FERRY_EXECUTOR_NESTED_POOL_H_

#include <cstddef>
#include <memory>

#include "executor/internal/config.h"
#include "executor/internal/pool_front.h"
#include "executor/internal/refused.h"

namespace ferry {

class nested_pool;

namespace this_task {
// The pool the running task runs in. Throws ferry::error outside a task
// (a thread that is not running one on a worker).
FERRY_EXECUTOR_EXPORT nested_pool pool();
}  // namespace this_task

// The pool a running task runs in, as that task may use it: submit, map,
// map_ordered and map_unordered as on process_pool and mpi_pool
// (executor/internal/pool_front.h documents them), each task queued in the
// pool with the rest. Use it, and wait for its futures, on the thread that
// runs the task (another thread's call throws ferry::error); a future
// waited for there lets the worker run other tasks meanwhile. A nested
// task's failure, a worker's death included, is its future's exception.
// A copy refers to the same pool. It cannot shut the pool down.
class FERRY_EXECUTOR_EXPORT nested_pool : public detail::pool_front {
 public:
  ~nested_pool();
  nested_pool(const nested_pool&);
  nested_pool& operator=(const nested_pool&);

  // Neither compiles, saying why (a private member would say only that it
  // is inaccessible). Actors are made and called from outside the workers:
  // a task's own submissions do not carry an actor's route.
  template <class T, class... Args>
  auto make_actor(Args&&...) {  // auto: deduced at once, so this message comes first
    static_assert(sizeof(T*) == 0,
                  "ferry: a task cannot make an actor through this_task::pool(): actors are made, and "
                  "called, by the program that holds the pool; make it there and have the task return "
                  "what the actor needs");
    return detail::refused{};
  }
  template <class... Args>
  void shutdown(Args&&...) {
    static_assert(sizeof...(Args) == std::size_t(-1),
                  "ferry: a task cannot shut down the pool it runs in through this_task::pool(): the "
                  "program that holds the pool shuts it down; return, or throw, to end the task");
  }

 private:
  friend nested_pool this_task::pool();
  explicit nested_pool(std::shared_ptr<detail::task_queue> queue);
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_NESTED_POOL_H_
