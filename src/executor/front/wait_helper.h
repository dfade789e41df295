// Copyright ferry authors. Internal: a thread that must go on serving
// while it waits for a future. A worker's task that waits for a task it
// submitted to its own pool (ferry::this_task::pool()) cannot block: the
// result comes in on the worker's connection, which that same thread
// reads, and the pool may send it other tasks to run meanwhile. So while
// such a thread runs a task it sets a helper, and future_state's waits
// (and finish_queue's, for wait_any and as_completed) hand the wait to it.
//
// Thread-safety: the helper is the calling thread's own.
#ifndef FERRY_SRC_EXECUTOR_FRONT_WAIT_HELPER_H_
#define FERRY_SRC_EXECUTOR_FRONT_WAIT_HELPER_H_

#include <chrono>

#include <functional>

namespace ferry::detail {

class wait_helper {
 public:
  // Serves until done() or the deadline; whether done() became true.
  // done() is called on this thread, between what the helper serves.
  virtual bool help_until(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline) = 0;

 protected:
  ~wait_helper() = default;
};

// This thread's helper, or null; set by the worker around each task.
void set_thread_wait_helper(wait_helper* helper) noexcept;
wait_helper* thread_wait_helper() noexcept;

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_FRONT_WAIT_HELPER_H_
