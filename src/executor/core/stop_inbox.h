// Copyright ferry authors. Internal: where a pool receives requests to stop
// tasks it has sent (future::cancel(grace)), from any thread, for its
// manager to act on; the stop_target of each of its tasks' futures (both
// pools). It outlives its pool if a future does: once closed it drops what
// comes.
//
// Thread-safety: every member may be called from any thread.
#ifndef FERRY_SRC_EXECUTOR_CORE_STOP_INBOX_H_
#define FERRY_SRC_EXECUTOR_CORE_STOP_INBOX_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <executor/internal/future_state.h>
#include "internal/mutex.h"

namespace ferry::detail {

class stop_inbox final : public stop_target {
 public:
  struct request {
    std::uint64_t id;
    std::chrono::milliseconds grace;
  };

  // `wake` tells the pool's manager that a request came; it is called with
  // the inbox's lock held, never after close().
  explicit stop_inbox(std::function<void()> wake) : wake_(std::move(wake)) {}

  void request_stop(std::uint64_t id, std::chrono::milliseconds grace) override {
    mutex_lock lock(mu_);
    if (!wake_) return;
    requests_.push_back({id, grace});
    any_.store(true, std::memory_order_release);
    wake_();
  }
  // What came since the last call. Without a lock when nothing came: the
  // manager asks on every pass.
  std::vector<request> take() {
    if (!any_.load(std::memory_order_acquire)) return {};
    mutex_lock lock(mu_);
    any_.store(false, std::memory_order_relaxed);
    return std::exchange(requests_, {});
  }
  // The pool is going: nothing more is taken or woken for.
  void close() {
    mutex_lock lock(mu_);
    wake_ = nullptr;
    requests_.clear();
  }

 private:
  mutex mu_;
  std::atomic<bool> any_{false};  // requests_ is not empty
  std::function<void()> wake_ ABSL_GUARDED_BY(mu_);
  std::vector<request> requests_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_STOP_INBOX_H_
