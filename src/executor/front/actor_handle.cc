// Copyright ferry authors.
#include <executor/actor.h>

#include <atomic>
#include <cstdint>
#include <random>

#include <executor/errors.h>

namespace ferry::detail {

std::uint64_t new_actor_id() {
  // A random start: a worker's task and the pool's owner may both make
  // actors of one pool, and their ids must not meet.
  static std::atomic<std::uint64_t> next{[] {
    std::random_device seed;
    return (static_cast<std::uint64_t>(seed()) << 32 | seed()) | 1;
  }()};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::shared_ptr<task_queue> actor_handle::queue() const {
  std::shared_ptr<task_queue> q = queue_.lock();
  if (!q) throw pool_shutdown_error("ferry: a call to an actor whose pool is gone");
  return q;
}

actor_handle::~actor_handle() {
  const std::shared_ptr<task_queue> q = queue_.lock();
  if (!q) return;  // the pool is gone, its workers and the object with it
  const function<void(std::uint64_t)> drop(&drop_actor_object);
  auto encode = [&](output_archive& ar) { ar(id_); };
  const task_settings settings{.actor = {id_, actor_route::part::drop}};
  try {
    submit_encoded(*q, drop, 1, encode, settings);
  } catch (const pool_shutdown_error&) {
    // Shut down: its workers, and the object, end with it.
  }
}

}  // namespace ferry::detail
