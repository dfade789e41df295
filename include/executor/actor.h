// Copyright ferry authors.
//
// ferry::actor<T>: an object of type T living in one worker of a pool,
// made there from a constructor call and then called with shippable
// callables that take it by reference, each call a ferry::future:
//
//   struct counter { int n = 0; };
//   ferry::actor<counter> c = pool.make_actor<counter>();
//   c.call([](counter& x) { return ++x.n; });          // future<int>: 1
//   c.call([](counter& x, int k) { return x.n += k; }, 10).get();  // 11
//   c.call<&counter::n>().get();                        // a member: 11
//
// Calls run one at a time, in the order they were made (from any number of
// threads: the order in which their call() returned). T needs no
// serialization and no registration: only the constructor's arguments, the
// calls' arguments and results travel. The worker also runs the pool's
// other tasks, between the actor's calls.
//
// If the actor's worker dies, the call it was running fails with
// ferry::worker_died_error, and so does every later call; with
// actor_options::max_restarts, the actor is made again instead, on another
// worker, from its constructor's arguments, and the calls not yet run run
// there. docs/api/executor.md, "Actors", has the rest, mpi_pool's included.
#ifndef FERRY_EXECUTOR_ACTOR_H_
#define FERRY_EXECUTOR_ACTOR_H_

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "executor/future.h"
#include "executor/internal/actor_parts.h"
#include "executor/internal/config.h"
#include "executor/internal/refused.h"
#include "executor/internal/submit.h"
#include "serialize/function.h"

namespace ferry {

struct actor_options {
  // How many times the actor is made again, from its constructor's
  // arguments, after its worker died: the calls it had not run then run on
  // the new one. 0: never; its later calls fail with worker_died_error.
  unsigned max_restarts = 0;
};

namespace detail {
class pool_front;

// An actor's id and pool, shared by the copies of its handle; the last one
// gone sends the drop task, which destroys the object in its worker (after
// the calls made before it). Thread-safe.
// It does not keep the pool: the pool ends with its last pool handle, as
// without actors, and a call after that throws ferry::pool_shutdown_error.
class FERRY_EXECUTOR_EXPORT actor_handle {
 public:
  actor_handle(const std::shared_ptr<task_queue>& queue, std::uint64_t id) : queue_(queue), id_(id) {}
  ~actor_handle();
  actor_handle(const actor_handle&) = delete;
  actor_handle& operator=(const actor_handle&) = delete;

  // The pool; throws ferry::pool_shutdown_error once it is gone.
  std::shared_ptr<task_queue> queue() const;
  std::uint64_t id() const { return id_; }

 private:
  std::weak_ptr<task_queue> queue_;
  std::uint64_t id_;
};
}  // namespace detail

template <class T>
class actor {
 public:
  // Runs f(object, args...) in the actor's worker, after every call made
  // on this actor before it. f: a shippable callable (as for submit) taking
  // T& first; args and the result as for submit. A call's future fails
  // with what f throws (the object stays as f left it), with
  // worker_died_error if the worker died (as above), or with what T's
  // constructor threw. Throws ferry::pool_shutdown_error after the pool's
  // shutdown, ferry::error on an actor moved from. task_options (retries,
  // timeout, name, priority) do not apply.
  template <class F, class... Args>
  auto call(F&& f, Args&&... args) const {
    static_assert(!(detail::is_future<std::decay_t<Args>> || ...),
                  "ferry::actor::call takes no future as an argument; call .then() on the future and "
                  "call the actor from there");
    using D = std::decay_t<F>;
    if constexpr (std::is_member_pointer_v<D>) {
      // A member's address is a value, which names no code in another
      // process; as a template argument it makes a type of its own.
      static_assert(!std::is_member_pointer_v<D>,
                    "ferry::actor<T>::call(&T::f, args...): name the member as a template argument "
                    "instead, call<&T::f>(args...), e.g. acct.call<&account::deposit>(10)");
      return detail::refused{};
    } else if constexpr (!std::is_invocable_v<const D&, T&, detail::travels_as_t<Args>...>) {
      static_assert(std::is_invocable_v<const D&, T&, detail::travels_as_t<Args>...>,
                    "ferry::actor<T>::call(f, args...): f must be callable as f(T&, args...), each argument "
                    "as the worker receives it (a string literal, const char* or std::string_view as a "
                    "std::string)");
      return detail::refused{};
    } else {
      using R = std::invoke_result_t<const D&, T&, detail::travels_as_t<Args>...>;
      return call_function<R, detail::travels_as_t<Args>...>(
          function<R(T&, detail::travels_as_t<Args>...)>(std::forward<F>(f)), std::forward<Args>(args)...);
    }
  }

  // Runs the object's member M, as std::invoke(M, object, args...) would:
  // acct.call<&account::deposit>(10) is
  // acct.call([](account& a, int v) { return a.deposit(v); }, 10), ordered
  // and failing as call(f, args...). M: a member function or a data member
  // of T or of a base of T. A member returning a reference gives a future
  // of a copy of what it refers to, taken in the worker.
  template <auto M, class... Args>
  auto call(Args&&... args) const {
    static_assert(std::is_member_pointer_v<decltype(M)>,
                  "ferry::actor<T>::call<M>(args...): M must name a member of T, as &T::f");
    constexpr bool callable = std::is_invocable_v<decltype(M), T&, detail::travels_as_t<Args>...>;
    static_assert(callable,
                  "ferry::actor<T>::call<&T::f>(args...): f must be a member of T (or of its base) "
                  "callable with args, each argument as the worker receives it (a string literal, "
                  "const char* or std::string_view as a std::string)");
    if constexpr (std::is_member_pointer_v<decltype(M)> && callable)
      return call(detail::member_call<M>{}, std::forward<Args>(args)...);
    else
      return detail::refused{};
  }

  // The actor's id, as the pool's events do not show it: for logs.
  // 0 for an actor moved from.
  std::uint64_t id() const noexcept { return handle_ ? handle_->id() : 0; }

 private:
  friend class detail::pool_front;
  explicit actor(std::shared_ptr<detail::actor_handle> handle) : handle_(std::move(handle)) {}

  template <class R, class... P, class... Args>
  future<R> call_function(function<R(T&, P...)> f, Args&&... args) const {
    if constexpr (!detail::check_task_signature<R, P...>()) {
      return future<R>();  // it has said why
    } else {
      if (handle_ == nullptr)
        throw error("ferry: actor::call on an actor handle without an actor (moved from); use the handle it "
                    "was moved to");
      if (!f) return future<R>(detail::empty_call_state());  // as a task's empty function: nothing sent
      const function<R(P...)> shipped(detail::actor_call<T, R, P...>{handle_->id(), std::move(f)});
      auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(args)), ...); };
      const detail::task_settings settings{.actor = {handle_->id(), detail::actor_route::part::call}};
      return future<R>(detail::submit_encoded(*handle_->queue(), shipped, 1, encode, settings), detail::from_task);
    }
  }

  std::shared_ptr<detail::actor_handle> handle_;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_ACTOR_H_
