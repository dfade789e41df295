// Copyright ferry authors. Internal: where a pool receives requests to stop
// tasks it has sent (future::cancel(grace)), from any thread, for its
// manager to act on; the stop_target of each of its tasks' futures (both
// pools), which also passes a waiting thread's polls on to the pool
// (loop_helper). It outlives its pool if a future does: once closed it
// drops what comes.
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

// What a pool does for a thread that waits for one of its futures
// (stop_target::help_wait, announce_wait). Neither may block.
class loop_helper {
 public:
  virtual void help() = 0;
  virtual void announce() = 0;

 protected:
  ~loop_helper() = default;
};

class stop_inbox final : public stop_target {
 public:
  struct request {
    std::uint64_t id;
    std::chrono::milliseconds grace;
  };

  // `wake` tells the pool's manager that a request came; it is called with
  // the inbox's lock held, never after close().
  explicit stop_inbox(std::function<void()> wake) : wake_(std::move(wake)) {}
  // `helper` must outlive this inbox or its close(). Once.
  void set_helper(loop_helper* helper) {
    mutex_lock lock(help_mu_);
    helper_ = helper;
  }
  // One thread at a time polls; the others go on at once.
  void help_wait() override {
    if (!help_mu_.try_lock()) return;
    polling_ = this;
    if (helper_ != nullptr) helper_->help();
    polling_ = nullptr;
    help_mu_.unlock();
  }
  // Never skipped, unlike help_wait, as the thread that waits relies on it;
  // but from within this inbox's own poll (a callback registered there),
  // whose pass wakes the manager as it needs.
  void announce_wait() override {
    if (polling_ == this) return;
    mutex_lock lock(help_mu_);
    if (helper_ != nullptr) helper_->announce();
  }

  // Marks the thread, while it lives, as running a pass of this inbox's
  // pool, whose futures it therefore cannot wait for.
  class pass_mark {
   public:
    explicit pass_mark(const stop_inbox* inbox) noexcept : outer_(passing_) {
      passing_ = inbox;
      enter_pool_pass();
    }
    ~pass_mark() {
      leave_pool_pass();
      passing_ = outer_;
    }
    pass_mark(const pass_mark&) = delete;
    pass_mark& operator=(const pass_mark&) = delete;

   private:
    const stop_inbox* outer_;
  };
  bool finishes_here() const override { return passing_ == this; }

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
    {
      mutex_lock lock(help_mu_);  // waits for a poll under way
      helper_ = nullptr;
    }
    mutex_lock lock(mu_);
    wake_ = nullptr;
    requests_.clear();
  }

 private:
  mutex mu_;
  std::atomic<bool> any_{false};  // requests_ is not empty
  std::function<void()> wake_ ABSL_GUARDED_BY(mu_);
  std::vector<request> requests_ ABSL_GUARDED_BY(mu_);
  mutex help_mu_;
  loop_helper* helper_ ABSL_GUARDED_BY(help_mu_) = nullptr;
  static inline thread_local const stop_inbox* polling_ = nullptr;  // whose help_wait this thread runs
  static inline thread_local const stop_inbox* passing_ = nullptr;  // whose pool's pass this thread runs
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_STOP_INBOX_H_
