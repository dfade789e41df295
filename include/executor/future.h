// Copyright ferry authors.
//
// ferry::future<T>: the result of a task submitted to a process_pool.
//
//   ferry::future<int> f = pool.submit([](int x) { return x * 2; }, 21);
//   f.get();  // 42, or the task's exception
//
// A future is a shared handle, like std::shared_future: copies refer to the
// same result and every copy may call get(). All members may be called from
// any thread. get() decodes the result each time it is called; T must be
// default-constructible and cereal-serializable (or void).
#ifndef FERRY_EXECUTOR_FUTURE_H_
#define FERRY_EXECUTOR_FUTURE_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "executor/errors.h"
#include "executor/internal/future_state.h"
#include "executor/internal/result_items.h"

namespace ferry {

template <class T>
class future {
 public:
  // An invalid future; only valid() may be called.
  future() = default;
  explicit future(std::shared_ptr<detail::future_state> state) : state_(std::move(state)) {}

  bool valid() const noexcept { return state_ != nullptr; }

  // Waits, then returns the result or throws the task's exception (see
  // executor/errors.h), ferry::worker_died_error, ferry::task_timeout_error,
  // ferry::cancelled_error, ferry::pool_shutdown_error, or the error that
  // kept the task from being sent (ferry::not_shippable_error, ...).
  T get() const { return detail::read_item<T>(detail::result_items(*state_, 1).front()); }

  void wait() const { state_->wait(); }

  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    return state_->wait_until(std::chrono::steady_clock::now() + timeout) ? std::future_status::ready
                                                                          : std::future_status::timeout;
  }

  bool ready() const { return state_->ready(); }

  // Cancels the task if it has not been sent to a worker yet; its get()
  // then throws ferry::cancelled_error. Returns whether it was cancelled.
  // When every worker is busy, each may already hold its next (small) task,
  // queued behind the running one: that task is sent, not cancellable.
  bool cancel() { return state_->cancel(); }

  // Calls cb(*this) once the task is finished: at once on this thread if it
  // is, else on the pool's manager thread, which it holds up (keep cb short).
  void on_done(std::function<void(const future&)> cb) const {
    state_->on_done([self = *this, cb = std::move(cb)] { cb(self); });
  }

 private:
  std::shared_ptr<detail::future_state> state_;
};

// Waits until every future is finished.
template <class Futures>
void wait_all(const Futures& futures) {
  for (const auto& f : futures) f.wait();
}

// Waits until every future is finished or the timeout passes; returns
// whether all are finished.
template <class Futures, class Rep, class Period>
bool wait_all(const Futures& futures, const std::chrono::duration<Rep, Period>& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& f : futures)
    if (f.wait_for(deadline - std::chrono::steady_clock::now()) != std::future_status::ready)
      return false;
  return true;
}

namespace detail {
// Pushes each future's index on a finish_queue as it finishes.
template <class Futures>
std::shared_ptr<finish_queue> watch(const Futures& futures) {
  auto q = make_finish_queue();
  std::size_t i = 0;
  for (const auto& f : futures) f.on_done([q, index = i++](const auto&) { q->push(index); });
  return q;
}
}  // namespace detail

namespace detail {
// The index of the first finished future, if any is.
template <class Futures>
std::optional<std::size_t> first_ready(const Futures& futures) {
  std::size_t i = 0;
  for (const auto& f : futures) {
    if (f.ready()) return i;
    ++i;
  }
  return std::nullopt;
}
}  // namespace detail

// Waits until one of the futures is finished and returns its index (the
// lowest-numbered finished one if several are). futures must not be empty.
template <class Futures>
std::size_t wait_any(const Futures& futures) {
  if (const auto ready = detail::first_ready(futures)) return *ready;
  return detail::watch(futures)->pop();
}

// Like wait_any, but gives up after `timeout`: nullopt then.
template <class Futures, class Rep, class Period>
std::optional<std::size_t> wait_any(const Futures& futures,
                                    const std::chrono::duration<Rep, Period>& timeout) {
  if (const auto ready = detail::first_ready(futures)) return ready;
  return detail::watch(futures)->pop_until(std::chrono::steady_clock::now() + timeout);
}

// The futures in the order they finish, lazily: iterating blocks until the
// next one is finished.
//
//   for (ferry::future<int> f : ferry::as_completed(futures)) use(f.get());
template <class T>
class completion_order {
 public:
  explicit completion_order(std::vector<future<T>> futures)
      : futures_(std::move(futures)), finished_(detail::watch(futures_)) {}

  class iterator {
   public:
    using value_type = future<T>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(completion_order* owner) : owner_(owner) { advance(); }
    const future<T>& operator*() const { return current_; }
    iterator& operator++() {
      advance();
      return *this;
    }
    void operator++(int) { advance(); }
    bool operator==(std::default_sentinel_t) const { return owner_ == nullptr; }

   private:
    void advance() {
      if (owner_ == nullptr) return;
      if (owner_->taken_ == owner_->futures_.size()) {
        owner_ = nullptr;
        return;
      }
      current_ = owner_->futures_[owner_->finished_->pop()];
      ++owner_->taken_;
    }
    completion_order* owner_ = nullptr;
    future<T> current_;
  };

  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() { return {}; }

 private:
  std::vector<future<T>> futures_;
  std::shared_ptr<detail::finish_queue> finished_;
  std::size_t taken_ = 0;
};

template <class T>
completion_order<T> as_completed(std::vector<future<T>> futures) {
  return completion_order<T>(std::move(futures));
}

}  // namespace ferry

#endif  // FERRY_EXECUTOR_FUTURE_H_
