// Copyright ferry authors. Internal: what an actor's tasks are made of
// (executor/actor.h). An actor is three kinds of ordinary tasks that the
// pools route by the actor's id (actor_route, in task_settings): its
// constructor call, which makes the object in the worker it is sent to and
// binds the actor there; its calls, sent only to that worker, in the order
// made; and its drop, once its last handle is gone. The worker needs to
// know nothing of actors: the tasks' own code finds the object in the
// process's table of actor objects (src/executor/worker/actor_objects.cc).
#ifndef FERRY_EXECUTOR_INTERNAL_ACTOR_PARTS_H_
#define FERRY_EXECUTOR_INTERNAL_ACTOR_PARTS_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <typeinfo>
#include <utility>

#include "executor/internal/config.h"
#include "serialize/function.h"

namespace ferry::detail {

// A new actor's id: unique in this process, and, being drawn from a random
// start, across the processes that may make actors of one pool.
FERRY_EXECUTOR_EXPORT std::uint64_t new_actor_id();

// The table of this process's actor objects. Thread-safe. put throws
// ferry::error when `id` is taken. An actor whose constructor threw keeps
// the exception in its place (put_actor_failure): the calls sent behind
// its make, before the pool knew, throw it too. find throws that, or
// ferry::error when there is no object `id` of type `type` here.
FERRY_EXECUTOR_EXPORT void put_actor_object(std::uint64_t id, std::shared_ptr<void> object,
                                            const std::type_info& type);
FERRY_EXECUTOR_EXPORT void put_actor_failure(std::uint64_t id, std::exception_ptr error);
FERRY_EXECUTOR_EXPORT void* find_actor_object(std::uint64_t id, const std::type_info& type);
// The drop task's code: a function of the library, which every worker has.
FERRY_EXECUTOR_EXPORT void drop_actor_object(std::uint64_t id);

// The constructor call: makes T from the task's arguments.
template <class T, class... A>
struct actor_make {
  std::uint64_t actor = 0;
  void operator()(A... a) const {
    std::shared_ptr<T> object;
    try {
      object = std::make_shared<T>(std::move(a)...);
    } catch (...) {
      put_actor_failure(actor, std::current_exception());
      throw;
    }
    put_actor_object(actor, std::move(object), typeid(T));
  }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(actor);
  }
};

// A call: f(object, arguments...).
template <class T, class R, class... P>
struct actor_call {
  std::uint64_t actor = 0;
  function<R(T&, P...)> f;
  R operator()(P... p) const {
    T& object = *static_cast<T*>(find_actor_object(actor, typeid(T)));
    return f(object, std::forward<P>(p)...);
  }
  template <class Archive>
  void serialize(Archive& ar) {
    ar(actor, f);
  }
};

// A call that names a member, an actor's call<&T::f>(args...) on its
// object or a pool's submit<&T::f>(object, args...) on an object that
// travels: std::invoke(M, object, args...), its result by value. One type
// per member, found in another process by its registration as a lambda's
// type is. Not a lambda in actor<T>::call: a closure type there belongs to
// namespace ferry, whose serialize() for empty classes argument-dependent
// lookup would then find while the very test that serialize() asks of the
// type is running.
template <auto M>
struct member_call {
  // Constrained, so that asking whether it can be called with the wrong
  // arguments answers no (and ferry's message says why) instead of
  // failing inside.
  template <class T, class... P>
    requires std::is_invocable_v<decltype(M), T&&, P&&...>
  auto operator()(T&& object, P... p) const {
    return std::invoke(M, std::forward<T>(object), std::move(p)...);
  }
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_ACTOR_PARTS_H_
