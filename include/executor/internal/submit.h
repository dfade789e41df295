// Copyright ferry authors. Internal: how process_pool's templates hand a
// task to the pool. The message layout belongs to src/executor/wire/protocol.h;
// the templates only write the parts whose types they know.
#ifndef FERRY_EXECUTOR_INTERNAL_SUBMIT_H_
#define FERRY_EXECUTOR_INTERNAL_SUBMIT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "executor/internal/config.h"
#include "executor/events.h"
#include "executor/internal/future_state.h"
#include "executor/shutdown_options.h"
#include "serialize/archive.h"
#include "serialize/function.h"
#include "serialize/internal/shippable.h"

namespace ferry::detail {

template <class T>
inline constexpr bool is_ferry_function = false;
template <class Signature>
inline constexpr bool is_ferry_function<function<Signature>> = true;

// How many parameters a ferry::function takes.
template <class T>
inline constexpr std::size_t parameter_count = 0;
template <class R, class... P>
inline constexpr std::size_t parameter_count<function<R(P...)>> = sizeof...(P);

// An argument held until its task is encoded later than the call (with
// task_options, with futures among the arguments, a map's chunk kept for
// its retries): as the type it travels as, so that a std::string_view's
// text is copied at the call, since what it views may not outlive it; a C
// string as held_c_string, its text copied too, a null one kept null so
// that it fails the task when encoded, as at once.
struct held_c_string {
  std::optional<std::string> text;
};
template <class A>
using held_argument_t = std::conditional_t<is_c_string<A>, held_c_string, travels_as_t<A>>;
template <class A>
held_argument_t<A> hold_argument(A&& arg) {
  if constexpr (is_c_string<A>) {
    const char* s = arg;
    return held_c_string{s == nullptr ? std::nullopt : std::optional<std::string>(s)};
  } else {
    return held_argument_t<A>(std::forward<A>(arg));
  }
}

// An argument as the parameter type P it is serialized as: the argument
// itself when it already has that type (no copy of a large value on the way
// to the message), else converted; a C string as the std::string of its
// text.
template <class P, class A>
decltype(auto) as_parameter(const A& arg) {
  if constexpr (std::is_same_v<std::decay_t<P>, A>) {
    return (arg);
  } else if constexpr (std::is_same_v<A, held_c_string>) {
    if (!arg.text) (void)c_string_text(nullptr);  // throws: a null C string has no text
    return (*arg.text);
  } else if constexpr (is_c_string<A>) {
    return as_travelling(arg);
  } else {
    return std::decay_t<P>(arg);
  }
}

// A std::ref or std::cref, which std::async passes as a reference.
template <class T>
inline constexpr bool is_reference_wrapper = false;
template <class T>
inline constexpr bool is_reference_wrapper<std::reference_wrapper<T>> = true;

// Fails to compile, saying what to do, unless a task of this signature can
// travel: its arguments to a worker, its result back to future::get.
// Returns whether it can, for an `if constexpr` that then leaves out the
// code that would encode what cannot travel: cereal's own errors about it
// would follow ferry's message. Called in that condition, it is also
// instantiated at once, so that its message comes first.
template <class R, class... P>
constexpr bool check_task_signature() {
  constexpr bool no_reference_wrapper = !(is_reference_wrapper<std::decay_t<P>> || ...);
  // A reference wrapper has its own message above, not this one too.
  constexpr bool arguments_travel =
      ((serializable_value<std::decay_t<P>> || is_reference_wrapper<std::decay_t<P>>) && ...);
  constexpr bool result_returns = std::is_void_v<R> || serializable_value<std::decay_t<R>>;
  static_assert(no_reference_wrapper,
                "ferry: std::ref / std::cref cannot share a variable with a task: the task runs in "
                "another process, which gets a copy of each argument. Pass the value, and return "
                "what the task changes");
  static_assert(arguments_travel,
                "ferry::process_pool: an argument of this task cannot be sent to a worker: each "
                "must be default-constructible and cereal-serializable by value (a pointer, a "
                "std::span, a reference to a stream or a ferry::function's std::string_view "
                "parameter is not: take std::string; nor a std::map's element "
                "type std::pair<const K, V>, whose key cannot be loaded: take std::pair<K, V>; "
                "a standard type that "
                "serialize/std_types.h does not cover, such as std::list, std::complex or "
                "std::bitset, needs its cereal header first, e.g. #include <cereal/types/list.hpp>)");
  static_assert(result_returns,
                "ferry::process_pool: the result of this task cannot come back from the worker: "
                "it must be void, or default-constructible and cereal-serializable (give it a "
                "default constructor, or return a struct of plain values; a standard type that "
                "serialize/std_types.h does not cover, such as std::list, needs its cereal "
                "header first, e.g. #include <cereal/types/list.hpp>)");
  return no_reference_wrapper && arguments_travel && result_returns;
}

// Whether f (of type D) could be called with the parts of an argument of
// type A, a std::pair, std::tuple or std::array, but not with it whole:
// Python's starmap, which map does not do.
template <class D, class A>
constexpr bool callable_with_parts_of() {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_invocable_v<const D&, A> || !requires { std::tuple_size<T>::value; }) {
    return false;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return std::is_invocable_v<const D&, std::tuple_element_t<I, T>...>;
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  }
}
template <class D, class... A>
inline constexpr bool callable_with_parts_only = false;
template <class D, class A>
inline constexpr bool callable_with_parts_only<D, A> = callable_with_parts_of<D, A>();

// Whether f (of type D) can run as a task given `A...`: in the worker each
// argument is a value of its own type, decoded there and passed as an
// rvalue. Fails to compile, saying what to do, when it cannot; a caller
// then discards its branch that names the result type, so that no error
// about a result type that does not exist follows this one.
template <class D, class... A>
constexpr bool check_task_callable() {
  static_assert(std::is_invocable_v<const D&, A...> || !mutable_call_only<D>,
                FERRY_MUTABLE_CALLABLE_MESSAGE("ferry: submit(f, args...) / map(f, inputs)"));
  static_assert(!callable_with_parts_only<D, A...>,
                "ferry: map(f, inputs) / submit(f, arg): f takes the parts of its argument, but a "
                "std::pair, std::tuple or std::array is passed whole, as one argument, not spread over f's parameters "
                "(Python's map, not its starmap). Pass one range per parameter, map(f, firsts, seconds), "
                "which zips them, or map a lambda that takes the whole and calls f: "
                "[](std::pair<int, int> p) { return f(p.first, p.second); }");
  static_assert(std::is_invocable_v<const D&, A...> || mutable_call_only<D> || callable_with_parts_only<D, A...>,
                "ferry: submit(f, args...) / map(f, inputs): f cannot be called with these arguments as "
                "a task receives them (each a value of its own type, decoded in the worker, passed as "
                "an rvalue). Check their number and types; a parameter of type T& cannot bind such a "
                "value: take T or const T& (a change the task makes to an argument never reaches the "
                "caller; return it instead); a string literal or const char* arrives as a std::string: "
                "take std::string, const std::string& or std::string_view");
  if constexpr (std::is_invocable_v<const D&, A...>) {
    static_assert(!std::is_reference_v<std::invoke_result_t<const D&, A...>>,
                  "ferry: submit(f, args...) / map(f, inputs): f returns a reference, and what it refers "
                  "to stays in the worker's memory: return the value instead (a return type without &, "
                  "`-> std::string` say, or plain `auto`); the result is copied into the message either way");
    using R = std::invoke_result_t<const D&, A...>;
    static_assert(!std::is_pointer_v<R>,
                  "ferry: submit(f, args...) / map(f, inputs): f returns a pointer, and what it points to "
                  "stays in the worker's memory: return the value instead, or a std::unique_ptr or "
                  "std::shared_ptr, which carries what it owns (for a C string, return std::string)");
    return !std::is_reference_v<R> && !std::is_pointer_v<R>;
  } else {
    return false;
  }
}

// Which actor a task belongs to, and as what (internal/actor_parts.h):
// the pools send an actor's tasks to the worker its constructor call went
// to, in the order they were submitted.
struct actor_route {
  enum class part : std::uint8_t { none, make, call, drop };
  std::uint64_t id = 0;
  part what = part::none;
  unsigned max_restarts = 0;  // a make's: actor_options::max_restarts
};

// What the pool that runs a task needs of its task_options (retries are
// the front's, retries.h).
struct task_settings {
  std::optional<std::chrono::milliseconds> timeout{};  // its own; else the pool's
  std::string_view name{};                             // for the pool's events and errors
  int priority = 0;                                    // higher leaves the queue first
  actor_route actor{};
  bool any() const {
    return timeout.has_value() || !name.empty() || priority != 0 || actor.what != actor_route::part::none;
  }
};

// The typed parts of a task: its function, and the arguments of each of its
// items. protocol.cc decides where they go in the message.
class task_writer {
 public:
  virtual void write_function(output_archive& ar) const = 0;
  virtual void write_arguments(output_archive& ar) const = 0;
  virtual task_settings settings() const { return {}; }

 protected:
  ~task_writer() = default;
};

// Throws ferry::error for `call` (e.g. "submit") made on a pool handle
// moved from, which has no pool.
[[noreturn]] FERRY_EXECUTOR_EXPORT void throw_no_pool(const char* call);

// A state failed with ferry::bad_function_call, as a task whose function is
// empty fails (protocol::encode_task refuses it): for an actor's call,
// whose empty function is wrapped before it is encoded.
FERRY_EXECUTOR_EXPORT std::shared_ptr<future_state> empty_call_state();

// Where a pool's front (pool_front.h) hands its tasks: the pool itself.
// Thread-safety: every member may be called from any thread.
class FERRY_EXECUTOR_EXPORT task_queue {
 public:
  virtual ~task_queue();
  // Encodes a task of `count` items and queues it. When the task cannot be
  // encoded, or is one the pool's workers could not run, the returned state
  // is failed instead and nothing is queued. Throws
  // ferry::pool_shutdown_error after shutdown.
  virtual std::shared_ptr<future_state> submit_task(const task_writer& task,
                                                    std::uint32_t count) = 0;
  virtual void shutdown(shutdown_options how) = 0;
  virtual bool is_shutdown() const = 0;
  // pool_options::task_retries of the pool's workers.
  virtual unsigned task_retries() const = 0;
  // The most workers the pool runs at once (all hosts' for mpi_pool).
  virtual std::size_t max_workers() const = 0;
  // pool_options::observer, or null.
  virtual pool_observer* observer() const = 0;
};

template <class Fn, class Encode>
std::shared_ptr<future_state> submit_encoded(task_queue& queue, const Fn& fn, std::uint32_t count,
                                             Encode& encode_arguments, const task_settings& settings = {}) {
  class writer final : public task_writer {
   public:
    writer(const Fn& fn, Encode& encode, const task_settings& settings)
        : fn_(fn), encode_(encode), settings_(settings) {}
    void write_function(output_archive& ar) const override { ar(fn_); }
    void write_arguments(output_archive& ar) const override { encode_(ar); }
    task_settings settings() const override { return settings_; }

   private:
    const Fn& fn_;
    Encode& encode_;
    const task_settings& settings_;
  };
  return queue.submit_task(writer(fn, encode_arguments, settings), count);
}

// The inputs of map that travel in one message.
struct chunk {
  std::shared_ptr<future_state> state;
  std::uint32_t count;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_SUBMIT_H_
