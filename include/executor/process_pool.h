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
// pool's manager thread hands queued messages to idle workers over a socket
// per worker, starting workers on demand up to max_workers (when all are
// busy, each is also sent its next small task to start as soon as it
// answers); workers run one task at a time and send results back; the
// manager completes the futures. A worker that dies fails only the task it
// was running; the pool replaces it and goes on.
//
// process_pool is a handle: copies refer to the same pool, which shuts down
// and joins when shutdown() is called or the last handle is destroyed; no
// worker process outlives it. All members may be called from any thread.
#ifndef FERRY_EXECUTOR_PROCESS_POOL_H_
#define FERRY_EXECUTOR_PROCESS_POOL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <ranges>
#include <string>
#include <type_traits>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "executor/errors.h"
#include "executor/future.h"
#include "executor/internal/result_items.h"
#include "executor/internal/submit.h"
#include "executor/pool_options.h"
#include "serialize/archive.h"
#include "serialize/function.h"

namespace ferry {

// The results of process_pool::map_ordered, in input order. An input range:
// iterate it once. Each result is decoded when its iterator is dereferenced.
template <class R>
class ordered_results {
 public:
  explicit ordered_results(std::vector<detail::chunk> chunks) : chunks_(std::move(chunks)) {}

  void set_deadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }

  class iterator {
   public:
    using value_type = std::conditional_t<std::is_void_v<R>, std::monostate, R>;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    explicit iterator(ordered_results* owner) : owner_(owner) { settle(); }

    // The result, or what map would throw for this input.
    value_type operator*() const {
      if constexpr (std::is_void_v<R>) {
        detail::read_item<void>(items_[item_]);
        return {};
      } else {
        return detail::read_item<R>(items_[item_]);
      }
    }
    iterator& operator++() {
      ++item_;
      settle();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const { return owner_ == nullptr; }

   private:
    // Moves to a chunk with an item left, waiting for it; or to the end.
    void settle() {
      while (owner_ != nullptr && item_ == items_.size()) {
        if (chunk_ == owner_->chunks_.size()) {
          owner_ = nullptr;
          return;
        }
        items_ = owner_->items_of(chunk_++);
        item_ = 0;
      }
    }
    ordered_results* owner_ = nullptr;
    std::size_t chunk_ = 0;
    std::vector<std::string_view> items_;
    std::size_t item_ = 0;
  };

  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() { return {}; }

 private:
  std::vector<std::string_view> items_of(std::size_t i) {
    detail::chunk& c = chunks_[i];
    if (deadline_ && !c.state->wait_until(*deadline_)) {
      for (std::size_t j = i; j < chunks_.size(); ++j) chunks_[j].state->cancel();
      throw wait_timeout_error("ferry: map did not finish in time; the inputs not yet sent were cancelled");
    }
    return detail::result_items(*c.state, c.count);
  }

  std::vector<detail::chunk> chunks_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

// How process_pool::shutdown stops a pool; name the fields you set:
//   pool.shutdown({.wait = false});
//   pool.shutdown({.cancel_pending = true});
struct shutdown_options {
  // Block until running (and remaining) tasks are done and every worker has
  // exited and been reaped; otherwise that happens in the background and
  // the last handle's destructor waits for it.
  bool wait = true;
  // Tasks not yet sent to a worker fail with ferry::pool_shutdown_error
  // (otherwise they still run).
  bool cancel_pending = false;
  // Also kill the workers running tasks (SIGKILL); those tasks fail with
  // ferry::pool_shutdown_error. Implies cancel_pending.
  bool kill_running = false;
};

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
    if constexpr (detail::is_ferry_function<D>) {
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
  std::size_t max_workers() const;
  // Changes max_workers; surplus idle workers exit, busy ones finish first.
  void resize(std::size_t max_workers);
  // Process ids of the live workers.
  std::vector<int> worker_pids() const;
  const pool_options& options() const;

  // Whether both handles refer to the same pool, like std::shared_ptr.
  friend bool operator==(const process_pool&, const process_pool&) noexcept = default;

 private:
  template <class R, class... P, class... Args>
  future<R> submit_function(const function<R(P...)>& fn, Args&&... args) {
    static_assert(sizeof...(P) == sizeof...(Args), "ferry::process_pool::submit: wrong number of arguments");
    detail::check_task_signature<R, P...>();
    auto encode = [&](output_archive& ar) { (ar(detail::as_parameter<P>(args)), ...); };
    return future<R>(detail::submit_encoded(*core_, fn, 1, encode));
  }

  template <class R, class P, class Range>
  ordered_results<R> submit_chunks(const function<R(P)>& fn, const Range& inputs, std::size_t chunksize) {
    detail::check_task_signature<R, P>();
    if (chunksize == 0) chunksize = 1;
    std::vector<detail::chunk> chunks;
    auto it = std::ranges::begin(inputs);
    const auto end = std::ranges::end(inputs);
    while (it != end) {
      auto chunk_begin = it;
      std::uint32_t n = 0;
      for (; it != end && n < chunksize; ++it) ++n;
      auto encode = [&](output_archive& ar) {
        for (auto c = chunk_begin; c != it; ++c) ar(detail::as_parameter<P>(*c));
      };
      chunks.push_back({detail::submit_encoded(*core_, fn, n, encode), n});
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

  std::shared_ptr<detail::pool_core> core_;
};

}  // namespace ferry

#endif  // FERRY_EXECUTOR_PROCESS_POOL_H_
