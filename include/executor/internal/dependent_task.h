// Copyright ferry authors. Internal: a task some of whose arguments are
// futures (pool.submit(f, pool.submit(g, x))), for pool_front.h. It is held
// in this process until every such future is finished, then encoded and
// queued on the continuation thread (continuation.h). A failed input fails
// the task with the input's exception, and nothing is sent.
//
// A finished task's result travels as its bytes: where the parameter has
// exactly the result's type and the type holds plain data only (numbers,
// enums, strings, and vectors, arrays, pairs, tuples and optionals of
// them), those bytes are copied into the dependent task's message as they
// are, never decoded here. Other values (which may name code, whose
// references are relative to the message they came in) are decoded and
// encoded again.
#ifndef FERRY_EXECUTOR_INTERNAL_DEPENDENT_TASK_H_
#define FERRY_EXECUTOR_INTERNAL_DEPENDENT_TASK_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "executor/future.h"
#include "executor/internal/continuation.h"
#include "executor/internal/future_state.h"
#include "executor/internal/result_items.h"
#include "executor/internal/submit.h"
#include "serialize/archive.h"

namespace ferry::detail {

// The type a task receives for an argument: a future's value type, else
// the type the argument travels as (serialize/internal/shippable.h).
template <class A>
struct task_argument {
  using type = travels_as_t<A>;
};
template <class T>
struct task_argument<future<T>> {
  using type = T;
};
template <class A>
using task_argument_t = typename task_argument<std::decay_t<A>>::type;

// Plain data, whose encoding names no code and so reads the same in any
// message.
template <class T>
struct plain_data : std::bool_constant<std::is_arithmetic_v<T> || std::is_enum_v<T>> {};
template <class C, class Tr, class Al>
struct plain_data<std::basic_string<C, Tr, Al>> : std::true_type {};
template <class T, class Al>
struct plain_data<std::vector<T, Al>> : plain_data<T> {};
template <class T, std::size_t N>
struct plain_data<std::array<T, N>> : plain_data<T> {};
template <class T>
struct plain_data<std::optional<T>> : plain_data<T> {};
template <class A, class B>
struct plain_data<std::pair<A, B>> : std::bool_constant<plain_data<A>::value && plain_data<B>::value> {};
template <class... T>
struct plain_data<std::tuple<T...>> : std::bool_constant<(plain_data<T>::value && ...)> {};

// The exception a finished argument would throw from get(), if any.
template <class A>
std::exception_ptr failure_of(const A& arg) {
  if constexpr (is_future<A>) {
    if (arg.has_exception()) {
      try {
        arg.get();
      } catch (...) {
        return std::current_exception();
      }
    }
  }
  return nullptr;
}

// Writes an argument as parameter type P; a finished future's value is
// forwarded as its result's bytes where that is safe (see the top).
template <class P, class A>
void write_argument(output_archive& ar, const A& arg) {
  if constexpr (is_future<A>) {
    using T = task_argument_t<A>;
    const future_state& state = *future_access::state(arg);
    if constexpr (std::is_same_v<std::decay_t<P>, T> && plain_data<T>::value) {
      if (state.local_value() == nullptr) {
        const std::string_view bytes = item_value(result_items(state, 1).front());
        ar.saveBinary(bytes.data(), bytes.size());
        return;
      }
    }
    ar(as_parameter<P>(arg.get()));
  } else {
    ar(as_parameter<P>(arg));
  }
}

// Queues fn(args...) once every future among args is finished; returns the
// state its future reads (a task's result, or the first failed input's
// exception). The pool is held until the task is queued or cancelled, not
// after: the pool's last handle then is a user's, whose destruction joins.
template <class R, class... P, class... A>
std::shared_ptr<future_state> submit_after(std::shared_ptr<task_queue> queue, const function<R(P...)>& fn,
                                           A... args) {
  // An argument that is a future without a state fails the submit here,
  // before any other future is watched.
  auto require_state = [](const auto& arg) {
    if constexpr (is_future<std::decay_t<decltype(arg)>>)
      if (!arg.valid()) throw_no_future_state("submit with a future argument");
  };
  (require_state(args), ...);
  auto out = make_future_state();
  auto held = std::make_shared<const std::tuple<function<R(P...)>, A...>>(fn, std::move(args)...);
  auto pool = std::make_shared<std::atomic<std::shared_ptr<task_queue>>>(std::move(queue));
  out->on_done([pool] { pool->store(nullptr); });  // cancelled: no longer needed
  auto send = [pool, out, held] {
    std::shared_ptr<task_queue> q = pool->exchange(nullptr);
    if (q == nullptr || !out->start()) return;  // cancelled while it waited
    try {
      std::exception_ptr failed;
      std::apply([&](const auto&, const auto&... a) { ((failed = failed ? failed : failure_of(a)), ...); },
                 *held);
      if (failed) {
        q.reset();
        out->fail(failed);
        return;
      }
      auto task = std::apply(
          [&](const auto& f, const auto&... a) {
            auto encode = [&](output_archive& ar) { (write_argument<P>(ar, a), ...); };
            return submit_encoded(*q, f, 1, encode);
          },
          *held);
      q.reset();  // before `out` can finish: see above
      out->derive_from(task);
      task->on_done([out, task] {
        if (std::exception_ptr e = task->error())
          out->fail(e);
        else
          out->finish(task->result());
      });
    } catch (...) {
      q.reset();
      out->fail(std::current_exception());  // ferry::pool_shutdown_error, say
    }
  };
  // One count per future argument, and one held until every callback is
  // set, so that none sends the task early.
  auto left = std::make_shared<std::atomic<std::size_t>>((std::size_t{1} + ... + std::size_t{is_future<A>}));
  auto one_ready = [left, send] {
    if (left->fetch_sub(1) == 1) run_continuation(send);
  };
  std::apply(
      [&](const auto&, const auto&... a) {
        auto watch = [&](const auto& arg) {
          if constexpr (is_future<std::decay_t<decltype(arg)>>) {
            out->derive_from(future_access::state(arg));
            arg.on_done([one_ready](const auto&) { one_ready(); });
          }
        };
        (watch(a), ...);
      },
      *held);
  one_ready();
  return out;
}

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_DEPENDENT_TASK_H_
