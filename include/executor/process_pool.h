// Copyright ferry authors.
//
// ferry::process_pool runs shippable callables (serialize/function.h) in
// worker processes and returns ferry::futures.
//
//   int main(int argc, char** argv) {
//     ferry::serve_if_worker(argc, argv);  // first: see executor/worker.h
//     ferry::process_pool pool({.max_workers = 4});
//     auto f = pool.submit([](int a, int b) { return a + b; }, 2, 3);
//     std::vector<int> squares = pool.map([](int x) { return x * x; }, std::vector{1, 2, 3});
//     f.get();  // 5
//   }
//
// Data flow (docs/design.md draws it): submit() serializes the callable and
// its arguments on the calling thread into one message and queues it; the
// pool's manager thread hands queued messages to idle workers, one task per
// worker at a time, over a socket per worker, starting workers on demand up
// to max_workers; workers send results back; the manager completes the
// futures. A worker that dies fails only the task it was running; the pool
// replaces it and goes on.
//
// process_pool is a handle: copies refer to the same pool, which shuts down
// and joins when shutdown() is called or the last handle is destroyed; no
// worker process outlives it. All members may be called from any thread.
#ifndef FERRY_EXECUTOR_PROCESS_POOL_H_
#define FERRY_EXECUTOR_PROCESS_POOL_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "executor/errors.h"
#include "executor/future.h"
#include "executor/pool_options.h"
#include "serialize/archive.h"
#include "serialize/function.h"

namespace ferry {
namespace detail {

class pool_core;

template <class T>
inline constexpr bool is_ferry_function = false;
template <class Signature>
inline constexpr bool is_ferry_function<function<Signature>> = true;

// Room left at the front of every message for the frame header.
inline constexpr std::size_t message_header_room = 24;

// Queues an encoded task message (header room, function, u32 count,
// arguments) and returns its state. Throws ferry::pool_shutdown_error.
FERRY_EXPORT std::shared_ptr<future_state> submit_message(pool_core& core, std::string message,
                                                          bool names_main_program);
FERRY_EXPORT std::shared_ptr<future_state> failed_state(std::exception_ptr error);

template <class Fn, class Encode>
std::shared_ptr<future_state> submit_encoded(pool_core& core, const Fn& fn, std::uint32_t count,
                                             Encode&& encode_arguments) {
  std::string message(message_header_room, '\0');
  bool main_program = false;
  try {
    output_archive ar(message);
    ar(fn, count);
    encode_arguments(ar);
    main_program = names_main_program(ar);
  } catch (const pool_shutdown_error&) {
    throw;
  } catch (...) {
    return failed_state(std::current_exception());
  }
  return submit_message(core, std::move(message), main_program);
}



}  // namespace detail

class FERRY_EXPORT process_pool {
 public:
  // Starts the manager thread; workers start on demand. Throws ferry::error
  // when called inside a worker process (pools do not nest).
  explicit process_pool(pool_options options = {});
  ~process_pool();
  process_pool(const process_pool&);
  process_pool& operator=(const process_pool&);
  process_pool(process_pool&&) noexcept;
  process_pool& operator=(process_pool&&) noexcept;

  // Runs f(args...) in a worker. f: any shippable callable; args and result
  // cereal-serializable and default-constructible (the result may be
  // void). Throws ferry::pool_shutdown_error after shutdown; any other
  // problem (f or args cannot be serialized, code in the main executable
  // with start_method::plugin) fails the returned future.
  template <class F, class... Args>
  auto submit(F&& f, Args&&... args) {
    using D = std::decay_t<F>;
    if constexpr (detail::is_ferry_function<D>) {
      // Shipped as it is: a wrapper adapting its signature would be code of
      // the caller's module, which a plugin worker may not be able to load.
      return submit_function(static_cast<const D&>(f), std::forward<Args>(args)...);
    } else {
      using R = std::invoke_result_t<const D&, std::decay_t<Args>...>;
      return submit_function(function<R(std::decay_t<Args>...)>(std::forward<F>(f)),
                             std::forward<Args>(args)...);
    }
  }

  // f applied to each input, in input order, computed in chunks of
  // `chunksize` inputs shipped as one message each. Waits for all; throws
  // the first failure in input order (what future::get would throw).
  template <class F, std::ranges::forward_range Range>
  auto map(F&& f, const Range& inputs, std::size_t chunksize = 1) {
    using D = std::decay_t<F>;
    if constexpr (detail::is_ferry_function<D>) {
      return map_function(static_cast<const D&>(f), inputs, chunksize);
    } else {
      using Arg = std::ranges::range_value_t<Range>;
      using R = std::invoke_result_t<const D&, Arg>;
      return map_function(function<R(Arg)>(std::forward<F>(f)), inputs, chunksize);
    }
  }

  // Stops accepting tasks. cancel_pending: tasks not yet sent to a worker
  // fail with ferry::pool_shutdown_error (else they still run). wait: block
  // until running (and remaining) tasks are done and every worker has
  // exited and been reaped; otherwise that happens in the background and
  // the destructor waits for it.
  void shutdown(bool wait = true, bool cancel_pending = false);

  bool is_shutdown() const;
  std::size_t max_workers() const;
  // Changes max_workers; surplus idle workers exit, busy ones finish first.
  void resize(std::size_t max_workers);
  // Process ids of the live workers.
  std::vector<int> worker_pids() const;
  const pool_options& options() const;

 private:
  template <class R, class... P, class... Args>
  future<R> submit_function(const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry::process_pool::submit: wrong number of arguments");
    auto encode = [&](output_archive& ar) { (ar(std::decay_t<P>(std::forward<Args>(args))), ...); };
    return future<R>(detail::submit_encoded(*core_, fn, 1, encode));
  }

  template <class R, class P, class Range>
  auto map_function(const function<R(P)>& fn, const Range& inputs, std::size_t chunksize) {
    if (chunksize == 0) chunksize = 1;
    std::vector<std::pair<std::shared_ptr<detail::future_state>, std::uint32_t>> chunks;
    auto it = std::ranges::begin(inputs);
    const auto end = std::ranges::end(inputs);
    while (it != end) {
      auto chunk_begin = it;
      std::uint32_t n = 0;
      for (; it != end && n < chunksize; ++it) ++n;
      auto encode = [&](output_archive& ar) {
        for (auto c = chunk_begin; c != it; ++c) ar(std::decay_t<P>(*c));
      };
      chunks.emplace_back(detail::submit_encoded(*core_, fn, n, encode), n);
    }
    if constexpr (std::is_void_v<R>) {
      for (auto& [state, n] : chunks) {
        for (std::string_view item : detail::split_items(*state, n)) {
          input_archive ar(item);
          detail::read_item<void>(ar);
        }
      }
    } else {
      std::vector<R> results;
      for (auto& [state, n] : chunks) {
        for (std::string_view item : detail::split_items(*state, n)) {
          input_archive ar(item);
          results.push_back(detail::read_item<R>(ar));
        }
      }
      return results;
    }
  }

  std::shared_ptr<detail::pool_core> core_;
};

// One process-wide pool reused across calls (no new workers when called
// again with the same options). A different max_workers resizes it; other
// different options (start, env, timeouts, max_tasks_per_worker,
// max_message_size, worker_program), or a pool that was shut down, give a
// fresh pool; handles to the old one stay valid until released.
FERRY_EXPORT process_pool get_reusable_executor(const pool_options& options = {});

}  // namespace ferry

#endif  // FERRY_EXECUTOR_PROCESS_POOL_H_
