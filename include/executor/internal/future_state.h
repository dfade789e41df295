// Copyright ferry authors. Internal: the state a ferry::future shares with
// the pool that completes it. Declared here because future's templates use
// it; users never name it.
//
// Thread-safety: every member may be called from any thread.
#ifndef FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_
#define FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "executor/internal/config.h"

namespace ferry::detail {

// A finished task's result as received (src/executor/message_io.h).
class message_body;

// The untyped state shared by a future and the pool.
class FERRY_EXECUTOR_EXPORT future_state {
 public:
  future_state();
  ~future_state();
  // pending -> running. False if it was cancelled (or failed) before.
  bool start();
  // pending -> finished with ferry::cancelled_error. False once running.
  bool cancel();
  // -> finished with a result body, or with an error; later calls are ignored.
  void finish(std::shared_ptr<const message_body> result);
  void fail(std::exception_ptr error);

  // Both yield for up to 50 us (never past the deadline) before blocking,
  // so that a result about to arrive does not cost a wake-up.
  void wait() const;
  bool wait_until(std::chrono::steady_clock::time_point deadline) const;
  bool ready() const;
  // Runs cb once finished: at once on this thread if it is, else on the
  // thread that finishes it (the pool's manager thread; keep cb short).
  void on_done(std::function<void()> cb);

  // Valid once finished.
  std::exception_ptr error() const;
  std::shared_ptr<const message_body> result() const;

 private:
  void complete(std::unique_lock<std::mutex>& lock);
  // Yields until finished or the spin window or deadline passes; whether
  // it finished.
  bool spin_until(std::chrono::steady_clock::time_point deadline) const;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  enum class phase { pending, running, finished } phase_ = phase::pending;
  std::shared_ptr<const message_body> result_;
  std::exception_ptr error_;
  std::vector<std::function<void()>> callbacks_;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_FUTURE_STATE_H_
