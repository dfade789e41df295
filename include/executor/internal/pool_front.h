// Copyright ferry authors. Internal: what every pool of ferry's offers in
// the same words (process_pool, mpi_pool): submit, map and map_ordered,
// which serialize on the calling thread and hand the message to the pool's
// task_queue, and shutdown. Users name the pools, never this.
#ifndef FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_
#define FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "executor/internal/config.h"
#include "executor/future.h"
#include "executor/internal/dependent_task.h"
#include "executor/internal/retries.h"
#include "executor/internal/submit.h"
#include "executor/ordered_results.h"
#include "executor/shutdown_options.h"
#include "serialize/archive.h"
#include "serialize/function.h"

namespace ferry::detail {

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
    } else {
      using R = std::invoke_result_t<const D&, std::decay_t<Args>...>;
      return submit_with_options(options, function<R(std::decay_t<Args>...)>(std::forward<F>(f)),
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
    } else {
      using R = std::invoke_result_t<const D&, task_argument_t<Args>...>;
      return submit_function(function<R(task_argument_t<Args>...)>(std::forward<F>(f)),
                             std::forward<Args>(args)...);
    }
  }

  // f applied to each input, in input order, computed in chunks of
  // `chunksize` inputs shipped as one message each. Waits for all; throws
  // the first failure in input order (what future::get would throw).
  template <class F, std::ranges::forward_range Range>
  auto map(F&& f, const Range& inputs, std::size_t chunksize = 1) {
    return collect(map_ordered(std::forward<F>(f), inputs, chunksize));
  }

  // Like map, but throws ferry::wait_timeout_error if the results are not
  // all there within `timeout`; the chunks not yet sent are cancelled then
  // (those running finish, and their results are dropped).
  template <class F, std::ranges::forward_range Range, class Rep, class Period>
  auto map(F&& f, const Range& inputs, std::size_t chunksize,
           std::chrono::duration<Rep, Period> timeout) {
    auto results = map_ordered(std::forward<F>(f), inputs, chunksize);
    results.set_deadline(std::chrono::steady_clock::now() + timeout);
    return collect(std::move(results));
  }

  // Like map, but returns at once: a range that yields the results in input
  // order as they arrive, waiting only for the one it is at. Iterating
  // throws what map would throw, at the item concerned.
  //
  //   for (int r : pool.map_ordered(f, inputs, 16)) use(r);
  template <class F, std::ranges::forward_range Range>
  auto map_ordered(F&& f, const Range& inputs, std::size_t chunksize = 1) {
    using D = std::decay_t<F>;
    if constexpr (is_ferry_function<D>) {
      return submit_chunks(static_cast<const D&>(f), inputs, chunksize);
    } else {
      using Arg = std::ranges::range_value_t<Range>;
      using R = std::invoke_result_t<const D&, Arg>;
      return submit_chunks(function<R(Arg)>(std::forward<F>(f)), inputs, chunksize);
    }
  }

  // Stops accepting tasks, then as `how` says (see shutdown_options). May
  // be called again, from any thread; a later call can only add to what an
  // earlier one asked.
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
  template <class R, class... P, class... Args>
  future<R> submit_function(const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry: submit: wrong number of arguments");
    check_task_signature<R, P...>();
    if constexpr ((is_future<std::decay_t<Args>> || ...)) {
      if (queue_->is_shutdown()) throw pool_shutdown_error("ferry: submit after the pool was shut down");
      return future<R>(submit_after(queue_, fn, std::decay_t<Args>(std::forward<Args>(args))...),
                       detail::from_task);
    } else {
      if (queue_->task_retries() != 0) return submit_with_options({}, fn, std::forward<Args>(args)...);
      auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(args)), ...); };
      return future<R>(submit_encoded(*queue_, fn, 1, encode), detail::from_task);
    }
  }

  template <class R, class... P, class... Args>
  future<R> submit_with_options(const task_options& options, const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry: submit: wrong number of arguments");
    static_assert(!(is_future<std::decay_t<Args>> || ...),
                  "ferry: submit with task_options takes no future as an argument; call .then() on "
                  "the future and submit from there");
    check_task_signature<R, P...>();
    auto held = std::make_shared<const std::tuple<function<R(P...)>, std::decay_t<Args>...>>(
        fn, std::forward<Args>(args)...);
    send_attempt send = [held, timeout = options.timeout](task_queue& queue) {
      return std::apply(
          [&](const auto& f, const auto&... a) {
            auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(a)), ...); };
            return submit_encoded(queue, f, 1, encode, timeout);
          },
          *held);
    };
    const unsigned retries = options.retries.value_or(queue_->task_retries());
    return future<R>(run_with_retries(queue_, std::move(send), options, retries), detail::from_task);
  }

  template <class R, class P, class Range>
  ordered_results<R> submit_chunks(const function<R(P)>& fn, const Range& inputs, std::size_t chunksize) {
    check_task_signature<R, P>();
    if (chunksize == 0) chunksize = 1;
    std::vector<chunk> chunks;
    auto it = std::ranges::begin(inputs);
    const auto end = std::ranges::end(inputs);
    while (it != end) {
      auto chunk_begin = it;
      std::uint32_t n = 0;
      for (; it != end && n < chunksize; ++it) ++n;
      auto encode = [&](output_archive& ar) {
        for (auto c = chunk_begin; c != it; ++c) ar(detail::as_parameter<P>(*c));
      };
      chunks.push_back({submit_encoded(*queue_, fn, n, encode), n});
    }
    return ordered_results<R>(std::move(chunks));
  }

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

  std::shared_ptr<task_queue> queue_;
};

}  // namespace ferry::detail

#endif  // FERRY_EXECUTOR_INTERNAL_POOL_FRONT_H_
