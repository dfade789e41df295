// Copyright ferry authors.
#include <executor/reusable_executor.h>

#include <cstdlib>
#include <optional>

#include <executor/cpu_count.h>
#include <executor/worker.h>
#include "executor/core/fork_generation.h"
#include "internal/mutex.h"
#include <serialize/dumps.h>
#include "serialize/frame/hmac.h"

namespace ferry {
namespace {

// Whether a pool made with `a` can serve as one made with `b`, but for
// max_workers.
bool same_but_size(const pool_options& a, const pool_options& b) {
  return a.start == b.start && a.idle_timeout == b.idle_timeout &&
         a.max_tasks_per_worker == b.max_tasks_per_worker && a.task_timeout == b.task_timeout &&
         a.task_retries == b.task_retries &&
         a.env == b.env && a.unset_env == b.unset_env && a.inner_threads == b.inner_threads &&
         a.max_message_size == b.max_message_size &&
         a.shared_memory_threshold == b.shared_memory_threshold &&
         a.max_worker_memory == b.max_worker_memory && a.spin == b.spin &&
         a.worker_program == b.worker_program &&
         dumps(a.initializer) == dumps(b.initializer);
}

struct reusable {
  detail::mutex mu;
  std::optional<process_pool> pool ABSL_GUARDED_BY(mu);
  // Of the process that made `pool`: in a child of fork(), the copy is the
  // parent's, served by nothing here.
  std::uint64_t made_in ABSL_GUARDED_BY(mu) = 0;
};

reusable& the_reusable() {
  static auto* r = [] {
    auto* made = new reusable;
    // Stop its workers before the process's static objects go away, and
    // before OpenSSL, which its messages need, is torn down.
    detail::initialize_crypto();
    std::atexit([] {
      // A task that calls exit() runs this in a forked worker, which has a
      // copy of the pool but not its threads: leave it alone there.
      if (is_worker_process()) return;
      std::optional<process_pool> last;
      {
        reusable& r = the_reusable();
        detail::mutex_lock lock(r.mu);
        last.swap(r.pool);
      }
      if (last) last->shutdown({.cancel_pending = true});
    });
    return made;
  }();
  return *r;
}

}  // namespace

process_pool get_reusable_executor(const pool_options& options) {
  reusable& r = the_reusable();
  detail::mutex_lock lock(r.mu);
  if (r.pool && r.made_in == detail::fork_generation() && !r.pool->is_shutdown() &&
      same_but_size(r.pool->options(), options)) {
    const std::size_t wanted = options.max_workers != 0 ? options.max_workers : cpu_count();
    if (r.pool->max_workers() != wanted) r.pool->resize(wanted);
    return *r.pool;
  }
  // Handles to the previous pool keep it working; it shuts down, finishing
  // its work, when the last of them is released.
  r.pool.emplace(options);
  r.made_in = detail::fork_generation();
  return *r.pool;
}

}  // namespace ferry
