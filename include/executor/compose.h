// Copyright ferry authors.
//
// Futures that compose, for process_pool and mpi_pool alike:
//
//   when_all(futures)      a future of them all, once every one is finished
//   when_any(futures)      a future of them all and the index of the first
//                          finished
//   co_await f             in a coroutine: suspends without blocking a
//                          thread, resumes with f.get()
//   ferry::future<T> as a coroutine's return type: co_return sets it
//
//   ferry::future<int> sum(ferry::process_pool& pool) {
//     const int a = co_await pool.submit(square, 3);
//     const int b = co_await pool.submit(square, 4);
//     co_return a + b;  // 25
//   }
//
// A coroutine runs on the calling thread until its first co_await of a
// future that is not finished; from then on it resumes on ferry's
// continuation thread (include/executor/internal/continuation.h), which it
// holds while it runs: submit long work rather than run it there. A
// coroutine's exception fails its future. Like then(), the futures made
// here hold their values in this process; get() copies them.
#ifndef FERRY_EXECUTOR_COMPOSE_H_
#define FERRY_EXECUTOR_COMPOSE_H_

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "executor/future.h"
#include "executor/internal/continuation.h"
#include "executor/internal/future_state.h"

namespace ferry {

// A future finished once every one of `futures` is; it holds them, each
// finished, with its own value or exception (when_all itself never fails).
// Empty input: finished at once.
template <class T>
future<std::vector<future<T>>> when_all(std::vector<future<T>> futures) {
  auto all = detail::make_future_state();
  all->start();
  auto held = std::make_shared<const std::vector<future<T>>>(std::move(futures));
  for (const future<T>& f : *held) all->derive_from(detail::future_access::state(f));
  auto left = std::make_shared<std::atomic<std::size_t>>(held->size() + 1);
  auto one_done = [all, held, left] {
    if (left->fetch_sub(1) == 1) all->finish_local(held);
  };
  for (const future<T>& f : *held) f.on_done([one_done](const future<T>&) { one_done(); });
  one_done();  // the +1: none finishes `all` before every callback is set
  return future<std::vector<future<T>>>(std::move(all));
}

// The same for futures of different types: a future of their tuple.
template <class... T>
future<std::tuple<future<T>...>> when_all(future<T>... futures) {
  auto all = detail::make_future_state();
  all->start();
  auto held = std::make_shared<const std::tuple<future<T>...>>(std::move(futures)...);
  std::apply([&](const auto&... f) { (all->derive_from(detail::future_access::state(f)), ...); }, *held);
  auto left = std::make_shared<std::atomic<std::size_t>>(sizeof...(T) + 1);
  auto one_done = [all, held, left] {
    if (left->fetch_sub(1) == 1) all->finish_local(held);
  };
  std::apply([&](const auto&... f) { (f.on_done([one_done](const auto&) { one_done(); }), ...); }, *held);
  one_done();
  return future<std::tuple<future<T>...>>(std::move(all));
}

// What when_any's future holds: every input, and the index of the first
// that finished.
template <class Futures>
struct when_any_result {
  std::size_t index = 0;
  Futures futures;
};

// A future finished as soon as one of `futures` is. futures must not be
// empty (throws ferry::error).
template <class T>
future<when_any_result<std::vector<future<T>>>> when_any(std::vector<future<T>> futures) {
  using result = when_any_result<std::vector<future<T>>>;
  if (futures.empty()) throw error("ferry::when_any: no futures to wait for");
  auto any = detail::make_future_state();
  any->start();
  auto held = std::make_shared<const std::vector<future<T>>>(std::move(futures));
  for (const future<T>& f : *held)
    any->derive_from(detail::future_access::state(f), detail::future_state::needs::any);
  auto first = std::make_shared<std::atomic<bool>>(false);
  for (std::size_t i = 0; i < held->size(); ++i) {
    (*held)[i].on_done([any, first, held, i](const future<T>&) {
      if (!first->exchange(true)) any->finish_local(std::make_shared<const result>(result{i, *held}));
    });
  }
  return future<result>(std::move(any));
}

namespace detail {

// Suspends a coroutine until a future is finished; resumes it on the
// continuation thread.
template <class T>
struct future_awaiter {
  future<T> awaited;

  bool await_ready() const { return awaited.ready(); }
  void await_suspend(std::coroutine_handle<> h) const {
    awaited.on_done([h](const future<T>&) { run_continuation([h] { h.resume(); }); });
  }
  T await_resume() const { return awaited.get(); }
};

// The promise of a coroutine returning ferry::future<T>.
struct future_promise_base {
  std::shared_ptr<future_state> state = make_future_state();

  std::suspend_never initial_suspend() const noexcept { return {}; }
  std::suspend_never final_suspend() const noexcept { return {}; }
  void unhandled_exception() { state->fail(std::current_exception()); }
};

template <class T>
struct future_promise : future_promise_base {
  future<T> get_return_object() {
    state->start();  // a running coroutine is not cancellable
    return future<T>(state);
  }
  template <class V>
  void return_value(V&& value) {
    state->finish_local(std::make_shared<const T>(std::forward<V>(value)));
  }
};

template <>
struct future_promise<void> : future_promise_base {
  future<void> get_return_object() {
    state->start();
    return future<void>(state);
  }
  void return_void() { state->finish_local(void_value()); }
};

}  // namespace detail

template <class T>
detail::future_awaiter<T> operator co_await(const future<T>& f) {
  return {f};
}

}  // namespace ferry

template <class T, class... Args>
struct std::coroutine_traits<ferry::future<T>, Args...> {
  using promise_type = ferry::detail::future_promise<T>;
};

#endif  // FERRY_EXECUTOR_COMPOSE_H_
