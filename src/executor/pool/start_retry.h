// Copyright ferry authors. Internal: when a pool tries again to start a
// worker after starts failed, and when it gives up and fails its queue.
//
// Thread-safety: none; the pool's manager alone uses it.
#ifndef FERRY_SRC_EXECUTOR_POOL_START_RETRY_H_
#define FERRY_SRC_EXECUTOR_POOL_START_RETRY_H_

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>

namespace ferry::detail {

class start_retry {
 public:
  using clock = std::chrono::steady_clock;

  // How long starts may go on failing, while they might pass by themselves,
  // before the queue is failed; also how long a started worker may take to
  // say it is ready.
  static constexpr std::chrono::seconds start_timeout{30};
  // After a failure that will not pass by itself while other workers serve.
  static constexpr std::chrono::milliseconds lasting_delay{500};
  // After one that may pass (a worker killed, say, by an OOM killer before
  // it was ready): retried at once and then ever more slowly, up to this.
  static constexpr std::chrono::milliseconds max_backoff{1000};
  static constexpr std::size_t min_failures = 3;

  enum class verdict { retry_later, hopeless };

  // A start failed at `now`. Hopeless when the failure is `lasting`, or
  // starts have failed min_failures times over start_timeout, and no worker
  // is ready to serve meanwhile (`others_serve`): the caller then fails its
  // queue, and the count starts again. Otherwise the next try waits.
  verdict failed(bool lasting, bool others_serve, clock::time_point now) {
    if (failures_++ == 0) failing_since_ = now;
    const bool hopeless =
        lasting || (failures_ >= min_failures && now - failing_since_ >= start_timeout);
    if (hopeless && !others_serve) {
      failures_ = 0;
      return verdict::hopeless;
    }
    const auto backoff = std::min<std::chrono::milliseconds>(
        max_backoff, std::chrono::milliseconds(5 << std::min<std::size_t>(failures_ - 1, 10)));
    retry_at_ = now + (lasting ? std::chrono::milliseconds(lasting_delay) : backoff);
    return verdict::retry_later;
  }

  // A worker became ready: starts work again.
  void succeeded() { failures_ = 0; }

  bool may_start(clock::time_point now) const { return now >= retry_at_; }
  // When the next try is due, if it is still to come.
  std::optional<clock::time_point> next_try(clock::time_point now) const {
    if (retry_at_ > now) return retry_at_;
    return std::nullopt;
  }

 private:
  std::size_t failures_ = 0;  // in a row, since a worker last became ready
  clock::time_point failing_since_;
  clock::time_point retry_at_;
};

}  // namespace ferry::detail

#endif  // FERRY_SRC_EXECUTOR_POOL_START_RETRY_H_
