// Copyright ferry authors. Internal: what every pool of ferry's offers in
// the same words (process_pool, mpi_pool): submit, map, map_ordered and
// map_unordered, which serialize on the calling thread and hand the message
// to the pool's task_queue, and shutdown. Users name the pools, never this.
#ifndef FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_
#define FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "executor/actor.h"
#include "executor/internal/config.h"
#include "executor/internal/deadline.h"
#include "executor/future.h"
#include "executor/internal/dependent_task.h"
#include "executor/internal/endless_range.h"
#include "executor/internal/map_window.h"
#include "executor/internal/range_chunks.h"
#include "executor/internal/refused.h"
#include "executor/internal/retries.h"
#include "executor/internal/submit.h"
#include "executor/internal/zip_inputs.h"
#include "executor/map_options.h"
#include "executor/ordered_results.h"
#include "executor/shutdown_options.h"
#include "serialize/archive.h"
#include "serialize/function.h"

namespace ferry::detail {

// Whether the first of A is a T (options that may lead a call's arguments).
template <class T, class... A>
inline constexpr bool first_is = false;
template <class T, class A0, class... A>
inline constexpr bool first_is<T, A0, A...> = std::is_same_v<std::remove_cvref_t<A0>, T>;

class FERRY_EXECUTOR_EXPORT pool_front {
 public:
  // Runs f(args...) in a worker. f: any shippable callable; args and result
  // cereal-serializable and default-constructible (the result may be
  // void). Throws ferry::pool_shutdown_error after shutdown; any other
  // problem (f or args cannot be serialized, code in the main executable
  // with start_method::plugin) fails the returned future.
  //
  // An argument may be a ferry::future<T> where f takes a T: the task is
  // sent once that future is finished, with its result's bytes forwarded as
  // they are (internal/dependent_task.h), or fails with its exception
  // without being sent. Until then it is held in this process, not queued:
  // cancel() stops it; a shutdown meanwhile fails it with
  // ferry::pool_shutdown_error.
  // With options (executor/task_options.h): retries after a worker's death,
  // a name in the errors. Such a task's future is finished on the
  // continuation thread; cancel() cancels it and its attempt waiting in the
  // queue (one already running finishes, its result dropped).
  template <class F, class... Args>
  auto submit(const task_options& options, F&& f, Args&&... args) {
    using D = std::decay_t<F>;
    if constexpr (is_ferry_function<D>) {
      return submit_with_options(options, static_cast<const D&>(f), std::forward<Args>(args)...);
    } else if constexpr (!check_task_callable<D, task_argument_t<Args>...>()) {
      return refused{};  // the check has said why
    } else {
      // As submit's below, so that a future among the arguments reaches
      // submit_with_options, whose static_assert says what to do instead.
      using R = std::invoke_result_t<const D&, task_argument_t<Args>...>;
      return submit_with_options(options, function<R(task_argument_t<Args>...)>(std::forward<F>(f)),
                                 std::forward<Args>(args)...);
    }
  }

  template <class F, class... Args>
    requires(!std::is_same_v<std::decay_t<F>, task_options>)
  auto submit(F&& f, Args&&... args) {
    using D = std::decay_t<F>;
    if constexpr (is_ferry_function<D>) {
      // Shipped as it is: a wrapper adapting its signature would be code of
      // the caller's module, which a plugin worker may not be able to load.
      return submit_function(static_cast<const D&>(f), std::forward<Args>(args)...);
    } else if constexpr (!check_task_callable<D, task_argument_t<Args>...>()) {
      return refused{};  // the check has said why
    } else {
      using R = std::invoke_result_t<const D&, task_argument_t<Args>...>;
      return submit_function(function<R(task_argument_t<Args>...)>(std::forward<F>(f)),
                             std::forward<Args>(args)...);
    }
  }

  // Runs the member M of an object in a worker: pool.submit<&S::f>(s, x)
  // runs std::invoke(&S::f, s, x) there, the object traveling first as
  // any argument does (by value), as Python's executor.submit(s.f, x)
  // pickles s. M: a member function or a data member (whose value comes
  // back); a result returned by reference arrives as a copy. Otherwise as
  // submit(f, args...), options first included.
  template <auto M, class... Args>
    requires(std::is_member_pointer_v<decltype(M)> && !first_is<task_options, Args...>)
  auto submit(Args&&... args) {
    if constexpr (check_member_call<M, Args...>())
      return submit(member_call<M>{}, std::forward<Args>(args)...);
    else
      return refused{};
  }
  template <auto M, class... Args>
    requires std::is_member_pointer_v<decltype(M)>
  auto submit(const task_options& options, Args&&... args) {
    if constexpr (check_member_call<M, Args...>())
      return submit(options, member_call<M>{}, std::forward<Args>(args)...);
    else
      return refused{};
  }

  // f applied to each input, in input order. inputs: any input range (a
  // container, std::views::istream, a generator), read once, as far ahead
  // of the results as map_options::max_chunks_in_flight allows; chunks of
  // map_options::chunksize inputs (0, the default: chosen as it goes)
  // travel as one message each. Waits for all; throws the first failure in
  // input order (what future::get would throw), or what the input's
  // iterator throws, unchanged; either cancels what was not sent yet.
  // An input the compiler sees never ends (std::views::iota(0), or a
  // transform or filter of it) fails to compile: map would read it until
  // memory ran out. map_ordered and map_unordered stream it.
  template <class F, std::ranges::input_range Range>
  auto map(F&& f, Range&& inputs, std::size_t chunksize = 0) {
    check_ends<Range>();
    return collect(map_ordered(std::forward<F>(f), std::forward<Range>(inputs), chunksize));
  }
  template <class F, std::ranges::input_range Range>
  auto map(F&& f, Range&& inputs, const map_options& options) {
    check_ends<Range>();
    return collect(map_ordered(std::forward<F>(f), std::forward<Range>(inputs), options));
  }

  // Like map, but throws ferry::wait_timeout_error if the results are not
  // all there within `timeout`; the chunks not yet sent are cancelled then
  // (those running finish, and their results are dropped).
  template <class F, std::ranges::input_range Range, class Rep, class Period>
  auto map(F&& f, Range&& inputs, std::size_t chunksize, std::chrono::duration<Rep, Period> timeout) {
    check_ends<Range>();
    map_options options{.chunksize = chunksize};
    options.timeout = saturating_milliseconds(timeout);
    return map(std::forward<F>(f), std::forward<Range>(inputs), options);
  }

  // Like map, but returns at once (having sent the first chunks): a range
  // that yields the results in input order as they arrive, waiting only
  // for the one it is at, and sends more of the input as it goes.
  // Iterating throws what map would throw, at the item concerned. See
  // executor/ordered_results.h for its lifetime.
  //
  //   for (int r : pool.map_ordered(f, inputs, 16)) use(r);
  template <class F, std::ranges::input_range Range>
  auto map_ordered(F&& f, Range&& inputs, std::size_t chunksize = 0) {
    return map_ordered(std::forward<F>(f), std::forward<Range>(inputs), map_options{.chunksize = chunksize});
  }
  template <class F, std::ranges::input_range Range>
  auto map_ordered(F&& f, Range&& inputs, const map_options& options) {
    return start_map<true>(std::forward<F>(f), std::forward<Range>(inputs), options);
  }

  // Like map_ordered, but yields each result as soon as its chunk is
  // finished, whatever its place, as a ferry::indexed_result<R> {index,
  // value}: value is f(inputs[index]) (indexed_result<void> has the index
  // alone). A failed input throws at its item, and the iteration may go on
  // past it.
  //
  //   for (auto [i, r] : pool.map_unordered(f, inputs)) out[i] = r;
  template <class F, std::ranges::input_range Range>
  auto map_unordered(F&& f, Range&& inputs, std::size_t chunksize = 0) {
    return map_unordered(std::forward<F>(f), std::forward<Range>(inputs), map_options{.chunksize = chunksize});
  }
  template <class F, std::ranges::input_range Range>
  auto map_unordered(F&& f, Range&& inputs, const map_options& options) {
    return start_map<false>(std::forward<F>(f), std::forward<Range>(inputs), options);
  }

  // A braced list, map(f, {1, 2, 3}), as Python's map(f, [1, 2, 3]): its
  // elements are copied into a vector the map owns, since a list's array
  // ends with the statement while map_ordered's range reads on.
  template <class F, class T>
  auto map(F&& f, std::initializer_list<T> inputs, std::size_t chunksize = 0) {
    return map(std::forward<F>(f), std::vector<T>(inputs), chunksize);
  }
  template <class F, class T>
  auto map_ordered(F&& f, std::initializer_list<T> inputs, std::size_t chunksize = 0) {
    return map_ordered(std::forward<F>(f), std::vector<T>(inputs), chunksize);
  }
  template <class F, class T>
  auto map_unordered(F&& f, std::initializer_list<T> inputs, std::size_t chunksize = 0) {
    return map_unordered(std::forward<F>(f), std::vector<T>(inputs), chunksize);
  }

  // Several input ranges, zipped as Python's map(f, a, b) zips them: f is
  // called with one element of each range, f(a[i], b[i], ...), for each i
  // up to the end of the shortest range. After the ranges, a chunk size or
  // map_options may come, as for one range. Each range is read once, as
  // far ahead as for one range; the same results, failures and throws.
  //   std::vector<int> sums = pool.map([](int x, int y) { return x + y; }, xs, ys);
  template <class F, std::ranges::input_range A, std::ranges::input_range B, class... More>
  auto map(F&& f, A&& a, B&& b, More&&... more) {
    check_ends<A, B, More...>();
    return collect(
        map_ordered(std::forward<F>(f), std::forward<A>(a), std::forward<B>(b), std::forward<More>(more)...));
  }
  template <class F, std::ranges::input_range A, std::ranges::input_range B, class... More>
  auto map_ordered(F&& f, A&& a, B&& b, More&&... more) {
    return start_zip<true>(std::forward<F>(f), std::forward<A>(a), std::forward<B>(b), std::forward<More>(more)...);
  }
  template <class F, std::ranges::input_range A, std::ranges::input_range B, class... More>
  auto map_unordered(F&& f, A&& a, B&& b, More&&... more) {
    return start_zip<false>(std::forward<F>(f), std::forward<A>(a), std::forward<B>(b), std::forward<More>(more)...);
  }

  // The member M mapped over objects, as Python's map(S.f, objects):
  // pool.map<&S::f>(objects) calls std::invoke(&S::f, object) for each;
  // ranges after the first are zipped as f's arguments,
  // map<&S::f>(objects, xs) calling object.f(x); then a chunk size or
  // map_options may come. Otherwise as map(f, ...).
  template <auto M, class... Args>
    requires std::is_member_pointer_v<decltype(M)>
  auto map(Args&&... args) {
    return map(member_call<M>{}, std::forward<Args>(args)...);
  }
  template <auto M, class... Args>
    requires std::is_member_pointer_v<decltype(M)>
  auto map_ordered(Args&&... args) {
    return map_ordered(member_call<M>{}, std::forward<Args>(args)...);
  }
  template <auto M, class... Args>
    requires std::is_member_pointer_v<decltype(M)>
  auto map_unordered(Args&&... args) {
    return map_unordered(member_call<M>{}, std::forward<Args>(args)...);
  }

  // An actor (executor/actor.h): T(args...) made in one of the pool's
  // workers, which then runs the actor's calls. Returns at once; if T's
  // constructor throws, the actor's calls fail with that. args: as for
  // submit (serializable, default-constructible); T itself is never
  // serialized. Throws ferry::pool_shutdown_error after shutdown.
  template <class T, class... Args>
    requires(!first_is<actor_options, Args...>)
  actor<T> make_actor(Args&&... args) {
    return make_actor<T>(actor_options{}, std::forward<Args>(args)...);
  }
  template <class T, class... Args>
  actor<T> make_actor(const actor_options& options, Args&&... args) {
    constexpr bool constructible = std::is_constructible_v<T, travels_as_t<Args>...>;
    constexpr bool no_future = !(is_future<std::decay_t<Args>> || ...);
    static_assert(constructible,
                  "ferry: make_actor<T>(args...): T cannot be constructed from these arguments as the "
                  "worker receives them (a string literal, const char* or std::string_view arrives as a std::string)");
    static_assert(no_future,
                  "ferry: make_actor takes no future as an argument; call .then() on the future and make "
                  "the actor from there");
    if constexpr (!(constructible && no_future && check_task_signature<void, travels_as_t<Args>...>())) {
      return actor<T>(nullptr);  // a check has said why
    } else {
      auto handle = std::make_shared<actor_handle>(queue("make_actor"), new_actor_id());
      const function<void(travels_as_t<Args>...)> make(actor_make<T, travels_as_t<Args>...>{handle->id()});
      auto encode = [&](output_archive& ar) { (ar(as_parameter<travels_as_t<Args>>(args)), ...); };
      const task_settings settings{.actor = {handle->id(), actor_route::part::make, options.max_restarts}};
      // A constructor that throws fails the actor's calls, which is where
      // the caller looks; the make's own future is not kept.
      submit_encoded(*queue_, make, 1, encode, settings);
      return actor<T>(std::move(handle));
    }
  }

  // Stops accepting tasks, then as `how` says (see shutdown_options). May
  // be called again, from any thread; a later call can only add to what an
  // earlier one asked. Called from a callback the pool runs (on_done, an
  // observer's), it does not wait, whatever `how.wait` says: the pool's
  // loop, which that callback holds up, finishes the shutdown after it.
  void shutdown(shutdown_options how = {});
  bool is_shutdown() const;

 protected:
  explicit pool_front(std::shared_ptr<task_queue> queue);
  ~pool_front();
  pool_front(const pool_front&);
  pool_front& operator=(const pool_front&);
  pool_front(pool_front&&) noexcept;
  pool_front& operator=(pool_front&&) noexcept;

 private:
  template <auto M, class... Args>
  // Returns whether it holds, for an `if constexpr` that leaves out the
  // submit whose own errors would follow (and, being instantiated at once,
  // precede) this message.
  static constexpr bool check_member_call() {
    constexpr bool callable = sizeof...(Args) > 0 && std::is_invocable_v<decltype(M), task_argument_t<Args>...>;
    static_assert(callable,
                  "ferry: submit<&S::f>(object, args...): the object goes first, of S or a class "
                  "derived from it, then f's arguments, each as the worker receives it");
    return callable;
  }

  template <class R, class... P, class... Args>
  future<R> submit_function(const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry: submit: wrong number of arguments");
    if constexpr (!check_task_signature<R, P...>()) {
      return future<R>();  // the check has said why
    } else if constexpr ((is_future<std::decay_t<Args>> || ...)) {
      if (queue("submit")->is_shutdown()) throw pool_shutdown_error("ferry: submit after the pool was shut down");
      return future<R>(submit_after(queue_, fn, detail::hold_argument(std::forward<Args>(args))...),
                       detail::from_task);
    } else {
      if (queue("submit")->task_retries() != 0) return submit_with_options({}, fn, std::forward<Args>(args)...);
      auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(args)), ...); };
      return future<R>(submit_encoded(*queue_, fn, 1, encode), detail::from_task);
    }
  }

  template <class R, class... P, class... Args>
  future<R> submit_with_options(const task_options& options, const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry: submit: wrong number of arguments");
    constexpr bool no_future = !(is_future<std::decay_t<Args>> || ...);
    static_assert(no_future,
                  "ferry: submit with task_options takes no future as an argument; call .then() on "
                  "the future and submit from there");
    if constexpr (!(no_future && check_task_signature<R, P...>())) {
      return future<R>();  // a check has said why
    } else {
      auto held = std::make_shared<const std::tuple<function<R(P...)>, detail::held_argument_t<Args>...>>(
          fn, detail::hold_argument(std::forward<Args>(args))...);
      send_attempt send = [held, timeout = options.timeout, name = options.name,
                           priority = options.priority](task_queue& queue) {
        return std::apply(
            [&](const auto& f, const auto&... a) {
              auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(a)), ...); };
              return submit_encoded(queue, f, 1, encode, {timeout, name, priority});
            },
            *held);
      };
      const unsigned retries = options.retries.value_or(queue("submit")->task_retries());
      return future<R>(run_with_retries(queue_, std::move(send), options, retries), detail::from_task);
    }
  }

  template <bool InOrder, class F, class Range>
  auto start_map(F&& f, Range&& inputs, const map_options& options) {
    static_assert(std::ranges::viewable_range<Range>,
                  "ferry: map: the input cannot be held while the map reads it; pass it as an "
                  "lvalue, or as a view or a container by value");
    return start_map_as<InOrder, travels_as_t<std::ranges::range_value_t<Range>>>(
        std::forward<F>(f), std::views::all(std::forward<Range>(inputs)), options);
  }

  // map(f, a, b, ..., [chunksize or map_options]): splits the ranges from
  // what may follow them, and zips the ranges.
  template <bool InOrder, class F, class... Args>
  auto start_zip(F&& f, Args&&... args) {
    constexpr std::size_t last = sizeof...(Args) - 1;
    using Last = std::remove_cvref_t<std::tuple_element_t<last, std::tuple<Args...>>>;
    constexpr bool has_options = std::is_same_v<Last, map_options> || std::is_integral_v<Last>;
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);
    map_options options;
    if constexpr (std::is_same_v<Last, map_options>) {
      options = std::get<last>(all);
    } else if constexpr (has_options) {
      options.chunksize = static_cast<std::size_t>(std::get<last>(all));
    }
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return start_zip_map<InOrder>(std::forward<F>(f), options,
                                    std::forward<std::tuple_element_t<I, std::tuple<Args...>>>(std::get<I>(all))...);
    }(std::make_index_sequence<has_options ? last : last + 1>{});
  }

  template <bool InOrder, class F, class... Ranges>
  auto start_zip_map(F&& f, const map_options& options, Ranges&&... inputs) {
    constexpr bool ranges = (std::ranges::input_range<Ranges> && ...);
    static_assert(ranges,
                  "ferry: map(f, a, b, ...): every argument after f is an input range, but the last, "
                  "which may be a chunk size or map_options (a timeout goes in map_options::timeout)");
    static_assert(!ranges || (std::ranges::viewable_range<Ranges> && ...),
                  "ferry: map: an input cannot be held while the map reads it; pass it as an "
                  "lvalue, or as a view or a container by value");
    if constexpr ((std::ranges::viewable_range<Ranges> && ...))
      return start_map_as<InOrder, travels_as_t<std::ranges::range_value_t<Ranges>>...>(
          std::forward<F>(f),
          zip_inputs<std::views::all_t<Ranges>...>(std::views::all(std::forward<Ranges>(inputs))...), options);
  }

  // Maps f, called with one value of each type P (one per input range), over
  // `inputs`: f itself if it is a ferry::function, else f made into one.
  template <bool InOrder, class... P, class F, class View>
  auto start_map_as(F&& f, View inputs, const map_options& options) {
    using D = std::decay_t<F>;
    if constexpr (is_ferry_function<D>) {
      static_assert(parameter_count<D> == sizeof...(P),
                    "ferry: map(fn, a, b, ...): fn takes one parameter per input range, and the number of "
                    "ranges differs from fn's parameters");
      if constexpr (parameter_count<D> == sizeof...(P))
        return start_map_of<InOrder>(static_cast<const D&>(f), std::move(inputs), options);
      else
        return refused{};
    } else if constexpr (check_task_callable<D, P...>()) {
      using R = std::invoke_result_t<const D&, P...>;
      return start_map_of<InOrder>(function<R(P...)>(std::forward<F>(f)), std::move(inputs), options);
    } else {
      return refused{};  // a static_assert has said why
    }
  }

  template <bool InOrder, class R, class... P, class View>
  auto start_map_of(const function<R(P...)>& fn, View inputs, const map_options& options) {
    if constexpr (!check_task_signature<R, P...>()) {
      return refused{};  // the check has said why
    } else {
      const std::shared_ptr<task_queue>& pool = queue("map");
      std::optional<std::size_t> size;
      if constexpr (std::ranges::sized_range<View>) size = static_cast<std::size_t>(std::ranges::size(inputs));
      auto window = std::make_unique<map_window>(
          std::make_unique<range_chunks<function<R(P...)>, map_call<P...>, View>>(
              pool, fn, std::move(inputs), options.priority, options.retries),
          options, pool->max_workers(), size, InOrder);
      if constexpr (InOrder)
        return ordered_results<R>(std::move(window));
      else
        return unordered_results<R>(std::move(window));
    }
  }

  // map collects every result: one of its inputs must end (zipped, the
  // shortest ends the map; a chunk size or map_options among Ranges is no
  // range, and ends nothing).
  template <class... Ranges>
  static constexpr void check_ends() {
    static_assert(!((endless_range<Ranges> || !std::ranges::range<Ranges>) && ...),
                  "ferry: map(f, inputs) waits for every result and returns them all, and this input never "
                  "ends (its end is std::unreachable_sentinel): loop over map_ordered(f, inputs) or "
                  "map_unordered(f, inputs), which stream, and break when you have what you need, or "
                  "bound the input with std::views::take(n)");
  }

  // A map that failed to compile (internal/refused.h).
  static refused collect(refused r) { return r; }

  template <class R>
  static auto collect(ordered_results<R> results) {
    if constexpr (std::is_void_v<R>) {
      for (auto it = results.begin(); it != results.end(); ++it) *it;
    } else {
      std::vector<R> out;
      for (auto&& r : results) out.push_back(std::move(r));
      return out;
    }
  }

  // The pool; ferry::error naming `call` on a handle moved from, which has
  // none (as on a future moved from), where it would be a null pointer.
  const std::shared_ptr<task_queue>& queue(const char* call) const {
    if (queue_ == nullptr) throw_no_pool(call);
    return queue_;
  }
  std::shared_ptr<task_queue> queue_;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_
