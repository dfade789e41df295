// Copyright ferry authors. Internal: the thread that runs a pool's manager
// loop (pool_core's, mpi_core's), and the wait for it at shutdown.
//
// Thread-safety: join() may be called from any thread, the loop's own
// included (a future's callback that shuts its pool down), where it returns
// at once instead of waiting for itself.
#ifndef FERRY_SRC_EXECUTOR_CORE_MANAGER_THREAD_H_
#define FERRY_SRC_EXECUTOR_CORE_MANAGER_THREAD_H_

#include <atomic>
#include <thread>
#include <utility>

#include "internal/mutex.h"

namespace ferry::detail {

class manager_thread {
 public:
  manager_thread() = default;
  manager_thread(const manager_thread&) = delete;
  manager_thread& operator=(const manager_thread&) = delete;
  ~manager_thread() { join(); }

  template <class Loop>
  void start(Loop&& loop) {
    mutex_lock lock(mu_);
    thread_ = std::thread(std::forward<Loop>(loop));
    id_.store(thread_.get_id());
  }

  // Whether the calling thread is the loop's. Without the lock, which
  // join() holds while it waits.
  bool is_current() const { return id_.load() == std::this_thread::get_id(); }

  // Waits until the loop has returned; at once from the loop's own thread.
  void join() {
    mutex_lock lock(mu_);
    if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) thread_.join();
  }

 private:
  mutex mu_;
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  std::atomic<std::thread::id> id_{};
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_MANAGER_THREAD_H_
