// Copyright ferry authors.
#include "executor/front/continuation_thread.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <thread>
#include <utility>

#include <executor/internal/continuation.h>
#include "internal/mutex.h"

namespace ferry::detail {
namespace {

thread_local bool is_continuation_thread = false;

class continuation_runner {
 public:
  void push(std::function<void()> fn) ABSL_LOCKS_EXCLUDED(mu_) {
    mutex_lock lock(mu_);
    queue_.push_back(std::move(fn));
    if (!started_) {
      started_ = true;
      // Detached and never destroyed, like the runner: a continuation may
      // be queued by exit-time code, and a process ends with it.
      std::thread([this] { serve(); }).detach();
    }
    cv_.notify_one();
  }

  bool run_one() ABSL_LOCKS_EXCLUDED(mu_) {
    std::function<void()> fn;
    {
      mutex_lock lock(mu_);
      if (queue_.empty()) return false;
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
    return true;
  }

 private:
  void serve() ABSL_LOCKS_EXCLUDED(mu_) {
    is_continuation_thread = true;
    for (;;) {
      {
        mutex_lock lock(mu_);
        while (queue_.empty()) cv_.wait(lock.native());
      }
      run_one();
    }
  }

  mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
};

continuation_runner* runner = nullptr;

continuation_runner& the_runner() {
  static const bool made = [] {
    runner = new continuation_runner;  // never destroyed: see push
    // A forked child has no continuation thread and perhaps a runner whose
    // lock was held at the fork: it starts afresh, leaving the copy.
    ::pthread_atfork(nullptr, nullptr, [] { runner = new continuation_runner; });
    return true;
  }();
  static_cast<void>(made);
  return *runner;
}

}  // namespace

void run_continuation(std::function<void()> fn) { the_runner().push(std::move(fn)); }

bool on_continuation_thread() { return is_continuation_thread; }

bool run_one_continuation() { return is_continuation_thread && the_runner().run_one(); }

}  // namespace ferry::detail
