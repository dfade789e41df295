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
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "executor/errors.h"
#include "executor/internal/continuation.h"
#include "executor/internal/deadline.h"
#include "executor/internal/future_state.h"
#include "executor/internal/refused.h"
#include "executor/internal/result_items.h"

// A string literal, because static_assert takes nothing else.
#define FERRY_THEN_TAKES_THE_FUTURE                                                              \
  "ferry: then(fn) calls fn with the finished future, not with its value: take "                 \
  "`const ferry::future<T>&` and call get() on it, which gives the value or rethrows the task's " \
  "exception (as Boost.Thread's then does), e.g. "                                                \
  ".then([](const ferry::future<int>& f) { return f.get() * 2; })"

namespace ferry {

namespace detail {
// Marks the futures a pool makes, whose values are a task's encoded result.
struct from_task_t {};
inline constexpr from_task_t from_task{};

template <class T>
T decode_task_result(const future_state& state) {
  std::span<const int> attachments;
  const std::string_view item = result_items(state, 1, &attachments).front();
  return read_item<T>(item, attachments);
}
}  // namespace detail

template <class T>
class future;

namespace detail {
struct future_access {
  template <class T>
  static const std::shared_ptr<future_state>& state(const future<T>& f) {
    return f.state_;
  }
};

template <class T>
inline constexpr bool is_future = false;
template <class T>
inline constexpr bool is_future<future<T>> = true;
}  // namespace detail

template <class T>
class future {
 public:
  // An invalid future: valid() is false, and every other member throws
  // ferry::error, as on a future moved from.
  future() = default;
  // A future of a value made in this process (then, when_all, a coroutine).
  explicit future(std::shared_ptr<detail::future_state> state) : state_(std::move(state)) {}
  // A future of a task's result, which get() decodes.
  future(std::shared_ptr<detail::future_state> state, detail::from_task_t)
      : state_(std::move(state)), decode_(&detail::decode_task_result<T>) {}

  bool valid() const noexcept { return state_ != nullptr; }

  // Waits, then returns the result or throws the task's exception (see
  // executor/errors.h), ferry::worker_died_error, ferry::task_timeout_error,
  // ferry::cancelled_error, ferry::pool_shutdown_error, or the error that
  // kept the task from being sent (ferry::not_shippable_error, ...);
  // ferry::error, if not finished, in a child of fork() (nothing there
  // would finish it). A future made by then(), a coroutine or
  // when_all/when_any holds its value, which get() copies.
  T get() const {
    if (decode_ != nullptr) return decode_(state("future::get()"));  // a task's: its result is bytes
    const void* local = detail::local_result(state("future::get()"));
    if constexpr (std::is_void_v<T>) {
      return;
    } else if constexpr (std::is_copy_constructible_v<T>) {
      return *static_cast<const T*>(local);
    } else {
      throw error("ferry: a value made in this process cannot be of a type that is not copyable");
    }
  }

  // Whether it is finished with an exception, so that get() would throw.
  // False while it is not finished.
  bool has_exception() const { return detail::has_exception(state("future::has_exception()")); }

  void wait() const { state("future::wait()").wait(); }

  // Any duration, a floating one included; one too long to add to the
  // clock's now (milliseconds::max()) waits without limit, as every
  // timeout of ferry's does (executor/internal/deadline.h).
  template <class Rep, class Period>
  std::future_status wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    const bool done = state("future::wait_for()").wait_until(detail::deadline_after(timeout));
    return done ? std::future_status::ready : std::future_status::timeout;
  }

  bool ready() const { return state("future::ready()").ready(); }

  // Cancels the task if it has not been sent to a worker yet; its get()
  // then throws ferry::cancelled_error. Returns whether it was cancelled.
  // When every worker is busy, each may already hold its next (small) task,
  // queued behind the running one: that task is sent, not cancellable.
  bool cancel() { return state("future::cancel()").cancel(); }

  // cancel(), and also stops a task that was sent: it asks the task to stop
  // (ferry::this_task::stop_requested() becomes true where it runs, and its
  // stop token is stopped); if it has not ended `grace` after it started
  // running, its worker is killed and replaced, and get() throws
  // ferry::cancelled_error saying it was running. A task that ends within
  // the grace period, by returning or throwing, keeps its outcome. No other
  // task is affected: those queued behind it in its worker run elsewhere.
  // Returns false when the task has already finished. process_pool and
  // mpi_pool; a future made in this process (then(), when_all) is not a
  // task and is only cancelled as cancel() does.
  bool cancel(std::chrono::milliseconds grace) { return state("future::cancel()").request_stop(grace); }

  // Calls cb(*this) once the task is finished: at once on this thread if it
  // is, else on the thread that reads its result, the pool's manager thread
  // or a thread waiting for one of the pool's futures, which it holds up
  // (keep cb short). An exception cb throws is dropped, and said once on
  // stderr, as Python's add_done_callback does: on the pool's threads it
  // has no caller to reach. A wait in cb for an unfinished task of the
  // same pool, or a future made from one (then(), when_all), by get(),
  // wait(), wait_for with time to wait, wait_any or as_completed, throws
  // ferry::error: that task finishes only once cb returns.
  void on_done(std::function<void(const future&)> cb) const {
    state("future::on_done()").on_done([self = *this, cb = std::move(cb)] {
      try {
        cb(self);
      } catch (...) {
        detail::drop_on_done_exception(std::current_exception());
      }
    });
  }

  // Once this future is finished, calls fn(*this) on ferry's continuation
  // thread (include/executor/internal/continuation.h): never on a pool's
  // manager thread or an MPI progress thread, never on the caller's. The
  // returned future holds what fn returns, or what it throws; fn reads this
  // future's value or exception with get() (an fn taking the value instead
  // fails to compile, saying so). Cancelling the returned future
  // before fn starts keeps fn from running.
  //
  //   ferry::future<std::string> s = pool.submit(square, 7).then(
  //       [](const ferry::future<int>& f) { return std::to_string(f.get()); });
  template <class F>
  auto then(F&& fn) const {
    static_assert(std::is_invocable_v<std::decay_t<F>&, const future&>, FERRY_THEN_TAKES_THE_FUTURE);
    if constexpr (std::is_invocable_v<std::decay_t<F>&, const future&>) {
      // Checked here, so that a future of what cannot be held is never
      // named and only these messages are given.
      using U = std::invoke_result_t<std::decay_t<F>&, const future&>;
      constexpr bool a_value = !std::is_reference_v<U>;
      constexpr bool copyable = std::is_void_v<U> || std::is_copy_constructible_v<U>;
      static_assert(a_value, "ferry: a continuation passed to then() must return a value, not a reference");
      static_assert(!a_value || copyable,
                    "ferry: a continuation's result is copied by get(); return a copyable type");
      if constexpr (a_value && copyable)
        return then_future(std::forward<F>(fn));
      else
        return detail::refused{};
    } else {
      return detail::refused{};
    }
  }

 private:
  template <class F>
  auto then_future(F&& fn) const -> future<std::invoke_result_t<std::decay_t<F>&, const future&>> {
    using U = std::invoke_result_t<std::decay_t<F>&, const future&>;
    detail::future_state& done = state("future::then()");
    auto next = detail::make_future_state();
    next->derive_from(state_);
    auto body = std::make_shared<std::decay_t<F>>(std::forward<F>(fn));
    done.on_done([self = *this, next, body] {
      detail::run_continuation([self, next, body] {
        if (!next->start()) return;  // cancelled
        try {
          if constexpr (std::is_void_v<U>) {
            (*body)(self);
            next->finish_local(detail::void_value());
          } else {
            next->finish_local(std::make_shared<const U>((*body)(self)));
          }
        } catch (...) {
          next->fail(std::current_exception());
        }
      });
    });
    return future<U>(std::move(next));
  }

 private:
  friend struct detail::future_access;
  // The state, which every member but valid() needs: a clear error, not a
  // null dereference, for a future that has none.
  detail::future_state& state(const char* call) const {
    if (state_ == nullptr) detail::throw_no_future_state(call);
    return *state_;
  }

  std::shared_ptr<detail::future_state> state_;
  T (*decode_)(const detail::future_state&) = nullptr;  // set for a task's result
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
  const auto deadline = detail::deadline_after(timeout);
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
  for (const auto& f : futures) {
    f.on_done([q, index = i++](const auto&) { q->push(index); });  // first: throws for an invalid future
    q->watch(future_access::state(f));
  }
  return q;
}
}  // namespace detail

namespace detail {
template <class Futures>
void require_some(const Futures& futures, const char* call) {
  if (std::begin(futures) == std::end(futures))
    throw error(std::string("ferry::") + call + ": no futures to wait for");
}

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
// lowest-numbered finished one if several are). Throws ferry::error
// for no futures, as when_any does (it would wait forever).
template <class Futures>
std::size_t wait_any(const Futures& futures) {
  detail::require_some(futures, "wait_any");
  if (const auto ready = detail::first_ready(futures)) return *ready;
  return detail::watch(futures)->pop();
}

// Like wait_any, but gives up after `timeout`: nullopt then.
template <class Futures, class Rep, class Period>
std::optional<std::size_t> wait_any(const Futures& futures,
                                    const std::chrono::duration<Rep, Period>& timeout) {
  detail::require_some(futures, "wait_any");
  if (const auto ready = detail::first_ready(futures)) return ready;
  return detail::watch(futures)->pop_until(detail::deadline_after(timeout));
}

namespace detail {
template <class Futures>
std::optional<std::size_t> first_exception(const Futures& futures,
                                           std::optional<std::chrono::steady_clock::time_point> deadline) {
  const auto n = static_cast<std::size_t>(std::distance(std::begin(futures), std::end(futures)));
  auto q = watch(futures);
  for (std::size_t done = 0; done < n; ++done) {
    const std::optional<std::size_t> i = deadline ? q->pop_until(*deadline) : q->pop();
    if (!i) return std::nullopt;
    if (std::next(std::begin(futures), static_cast<std::ptrdiff_t>(*i))->has_exception()) return i;
  }
  return n;
}
}  // namespace detail

// Waits until every future is finished or one has finished with an
// exception (FIRST_EXCEPTION of concurrent.futures); returns the index of
// that one, or the number of futures when all finished without one.
template <class Futures>
std::size_t wait_all_or_first_exception(const Futures& futures) {
  return *detail::first_exception(futures, std::nullopt);
}

// Like it, but gives up after `timeout`: nullopt then.
template <class Futures, class Rep, class Period>
std::optional<std::size_t> wait_all_or_first_exception(const Futures& futures,
                                                       const std::chrono::duration<Rep, Period>& timeout) {
  return detail::first_exception(futures, detail::deadline_after(timeout));
}

// The futures in the order they finish, lazily: iterating blocks until the
// next one is finished. Given a timeout, begin() or ++ throws
// ferry::wait_timeout_error where the next has not finished when it has
// passed since as_completed was called (Python's as_completed(fs,
// timeout)), and the iteration ends there.
//
//   for (ferry::future<int> f : ferry::as_completed(futures)) use(f.get());
namespace detail {
// `futures` without the later copies of a future given twice.
template <class T>
std::vector<future<T>> first_of_each(std::vector<future<T>> futures) {
  std::vector<const future_state*> states;
  states.reserve(futures.size());
  for (const future<T>& f : futures) states.push_back(future_access::state(f).get());
  const std::vector<std::size_t> first = first_of_each_state(states);
  if (first.size() == futures.size()) return futures;
  std::vector<future<T>> kept;
  kept.reserve(first.size());
  for (const std::size_t i : first) kept.push_back(std::move(futures[i]));
  return kept;
}
}  // namespace detail

// Each future given once, a copy given again (or the same future twice)
// yielded once, as Python's as_completed does.
template <class T>
class completion_order {
 public:
  explicit completion_order(std::vector<future<T>> futures)
      : futures_(detail::first_of_each(std::move(futures))), finished_(detail::watch(futures_)) {}
  completion_order(std::vector<future<T>> futures, std::chrono::steady_clock::time_point deadline)
      : completion_order(std::move(futures)) {
    deadline_ = deadline;
  }

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
      const std::optional<std::size_t> next =
          owner_->deadline_ ? owner_->finished_->pop_until(*owner_->deadline_) : owner_->finished_->pop();
      if (!next) {
        const std::size_t left = owner_->futures_.size() - owner_->taken_;
        const std::size_t all = owner_->futures_.size();
        owner_ = nullptr;  // the iteration ends here, as Python's does
        throw wait_timeout_error("ferry: as_completed: " + std::to_string(left) + " of " + std::to_string(all) +
                                 " futures had not finished when its timeout passed");
      }
      current_ = owner_->futures_[*next];
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
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

template <class T>
completion_order<T> as_completed(std::vector<future<T>> futures) {
  return completion_order<T>(std::move(futures));
}
template <class T, class Rep, class Period>
completion_order<T> as_completed(std::vector<future<T>> futures, const std::chrono::duration<Rep, Period>& timeout) {
  return completion_order<T>(std::move(futures), detail::deadline_after(timeout));
}

}  // namespace ferry

#endif  // FERRY_EXECUTOR_FUTURE_H_
