// Copyright ferry authors. Internal: a worker's watch over the memory of the
// task it runs (pool_options::max_worker_memory).
#ifndef FERRY_SRC_EXECUTOR_WORKER_MEMORY_WATCH_H_
#define FERRY_SRC_EXECUTOR_WORKER_MEMORY_WATCH_H_

#include <condition_variable>
#include <cstdint>
#include <thread>

#include "internal/mutex.h"

namespace ferry::detail {

// A task that alone (its growth from the worker's size when it started)
// uses more than the limit ends the worker with
// protocol::task_memory_status; sampled every 10 ms on a thread of its own,
// which runs only with a limit. Growth across tasks is handled between
// tasks instead (the flag_retiring result).
class memory_watch {
 public:
  explicit memory_watch(std::uint64_t limit);  // 0: no limit, no thread
  ~memory_watch();
  memory_watch(const memory_watch&) = delete;
  memory_watch& operator=(const memory_watch&) = delete;

  void task_started();
  void task_finished();

 private:
  void watch() ABSL_LOCKS_EXCLUDED(mu_);

  const std::uint64_t limit_;
  mutex mu_;
  std::condition_variable cv_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::uint64_t start_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_WORKER_MEMORY_WATCH_H_
