// Copyright ferry authors. Internal: the memory of a large message body,
// kept once its message has left, for the next large task to be encoded
// into.
//
// Why: a body of many megabytes is allocated with mmap and given back to
// the kernel when freed, so each large task was encoded into fresh pages,
// which the kernel clears and faults in one by one: the largest cost of a
// 64 MiB argument's round trip after the copies themselves
// (docs/performance.md, issue 33). Encoding into pages already mapped
// costs only the copy.
//
// What it holds: at most one body's memory, of least..most bytes, for at
// most keep_for after it was given (the pool's timers call expire()). A
// task taking it whose body turns out small hands it back and keeps a copy
// of its own size (settle()).
//
// Thread-safety: every member may be called from any thread.
#ifndef FERRY_SRC_EXECUTOR_CORE_SPARE_BODY_H_
#define FERRY_SRC_EXECUTOR_CORE_SPARE_BODY_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include <serialize/internal/large_buffers.h>
#include "internal/mutex.h"

namespace ferry::detail {

class spare_body {
 public:
  using clock = std::chrono::steady_clock;
  static constexpr std::size_t least = large_buffer_bytes;
  static constexpr std::size_t most = std::size_t{256} << 20;
  static constexpr clock::duration keep_for = std::chrono::seconds(1);

  // The kept memory, as an empty string with its capacity; an empty string
  // with none when nothing is kept.
  std::string take() {
    if (!any_.load(std::memory_order_relaxed)) return {};
    mutex_lock lock(mu_);
    any_.store(false, std::memory_order_relaxed);
    std::string out = std::move(kept_);
    kept_ = std::string();
    out.clear();
    return out;
  }

  // Keeps body's memory if it is of a size kept and nothing is kept yet;
  // else frees it.
  void give(std::string&& body, clock::time_point now = clock::now()) {
    if (body.capacity() < least || body.capacity() > most) return;
    mutex_lock lock(mu_);
    if (any_.load(std::memory_order_relaxed)) return;
    kept_ = std::move(body);
    given_at_ = now;
    any_.store(true, std::memory_order_relaxed);
  }

  // A body encoded into taken memory: if it is smaller than `least`, the
  // memory goes back and the body becomes a copy of its own size.
  void settle(std::string& body) {
    if (body.size() >= least || body.capacity() < least) return;
    std::string own(body);
    give(std::move(body));
    body = std::move(own);
  }

  // When the kept memory is to be let go, if any is kept.
  std::optional<clock::time_point> expiry() const {
    if (!any_.load(std::memory_order_relaxed)) return std::nullopt;
    mutex_lock lock(mu_);
    if (!any_.load(std::memory_order_relaxed)) return std::nullopt;
    return given_at_ + keep_for;
  }

  // Lets go of memory kept since keep_for before `now`.
  void expire(clock::time_point now) {
    if (!any_.load(std::memory_order_relaxed)) return;
    std::string freed;
    mutex_lock lock(mu_);
    if (!any_.load(std::memory_order_relaxed) || now < given_at_ + keep_for) return;
    freed = std::move(kept_);
    kept_ = std::string();
    any_.store(false, std::memory_order_relaxed);
  }

 private:
  mutable mutex mu_;
  std::string kept_ ABSL_GUARDED_BY(mu_);
  clock::time_point given_at_ ABSL_GUARDED_BY(mu_);
  // Whether kept_ holds memory: read without the lock by take() and
  // expiry(), so that a pool that never sends large bodies never locks.
  std::atomic<bool> any_{false};
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_CORE_SPARE_BODY_H_
